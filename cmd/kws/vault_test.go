package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
)

func TestVaultGetOfDamagedBlockFails(t *testing.T) {
	dir := t.TempDir()
	data := []byte(strings.Repeat("exact line of a build log that must come back exactly\n", 20))
	out, err := run(t, dir, data, "vault", "put")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	path := filepath.Join(dir, vault.FileName)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(raw, data)
	if at < 0 {
		t.Fatal("block not found in the vault file")
	}
	raw[at+100] ^= 0x20
	raw[at+101] ^= 0x20
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := run(t, dir, nil, "vault", "get", id)
	if !errors.Is(err, vault.ErrCorrupt) || got != "" {
		t.Fatalf("get of a damaged block printed %d bytes, err %v; want nothing and ErrCorrupt", len(got), err)
	}
	if !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "no longer hash to its id") {
		t.Errorf("error %q does not say which block is damaged and how", err)
	}
}

func TestVaultCommandsRefuseTruncatedFile(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		block := strings.Repeat("line "+strconv.Itoa(i)+" of a long log\n", 200)
		if _, err := run(t, dir, []byte(block), "vault", "put"); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, vault.FileName)
	for _, tc := range []struct {
		size int64
		want string
	}{{3 * 4096, "was cut short"}, {0, "is empty (0 bytes)"}} {
		if err := os.Truncate(path, tc.size); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"vault", "ls"}, {"vault", "stats"}, {"vault", "get", "ctx:000000000000"}, {"vault", "put"}} {
			_, err := run(t, dir, []byte("more"), args...)
			if !errors.Is(err, vault.ErrTruncated) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v on a %d-byte vault: %v, want ErrTruncated saying %q", args, tc.size, err, tc.want)
			}
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != tc.size {
			t.Fatalf("the refused vault file changed size: %v %v", fi, err)
		}
	}
}

// TestReadAllExact checks that vault put's stdin reader returns the exact
// input in a slice without spare capacity, from a file and from a stream.
func TestReadAllExact(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 3*readChunk/17+5)
	for _, tc := range []struct {
		name string
		data []byte
		file bool
	}{
		{"empty stream", nil, false},
		{"small stream", []byte("hello\n"), false},
		{"stream of several chunks", big, false},
		{"stream of exactly one chunk", big[:readChunk], false},
		{"file", big, true},
		{"empty file", nil, true},
	} {
		var r io.Reader = bytes.NewReader(tc.data)
		if tc.file {
			path := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r = f
		}
		got, err := readAllExact(r)
		if err != nil || !bytes.Equal(got, tc.data) {
			t.Fatalf("%s: %d bytes, err %v; want the %d input bytes", tc.name, len(got), err, len(tc.data))
		}
		if len(tc.data) > readChunk && cap(got) > len(got)+1 {
			t.Errorf("%s: %d bytes held in a %d-byte buffer", tc.name, len(got), cap(got))
		}
	}
}
