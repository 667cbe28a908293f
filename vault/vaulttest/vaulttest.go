// Package vaulttest holds test helpers for packages that use the vault.
package vaulttest

import (
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
