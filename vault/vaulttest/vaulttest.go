// Package vaulttest holds test helpers for packages that use the vault.
package vaulttest

import (
	"bytes"
	"os"
	"testing"

	"github.com/kwsdev/kws/vault"
)

// MustOpen opens a fresh vault in t.TempDir and closes it when the test
// ends; it fails the test if the vault cannot be opened.
func MustOpen(t testing.TB) *vault.Vault {
	t.Helper()
	v, err := vault.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// DamageBlock closes v, flips two bytes inside every stored copy of data
// in the vault file on disk (bbolt may keep an old copy of a page in its
// free list), and returns the vault reopened (closed when the test ends).
// It fails the test when data is not in the file.
func DamageBlock(t testing.TB, v *vault.Vault, data []byte) *vault.Vault {
	t.Helper()
	path := v.Path()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(raw, data)
	if at < 0 {
		t.Fatalf("vaulttest: the block is not in %s", path)
	}
	for at >= 0 {
		raw[at+len(data)/2] ^= 0x20
		raw[at+len(data)-1] ^= 0x01
		next := bytes.Index(raw[at+1:], data)
		if next < 0 {
			break
		}
		at += 1 + next
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	nv, err := vault.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nv.Close() })
	return nv
}
