package vault

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestOpenRefusesTruncatedFile(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	blocks := damageBlocks(r, 60)
	path, ids := fillVault(t, blocks)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := readMeta(f, 0)
	f.Close()
	used := int64(m.pgid) * int64(m.pageSize)
	if !ok || used > fi.Size() || used <= fi.Size()/2 {
		t.Fatalf("meta page %+v (valid %v) does not fit a %d-byte file", m, ok, fi.Size())
	}
	// bbolt grows the file ahead of the pages in use: cutting the unused
	// tail loses nothing, and the vault still opens with every block.
	if err := os.Truncate(path, used); err != nil {
		t.Fatal(err)
	}
	v, err := Open(path, nil)
	if err != nil {
		t.Fatalf("open of a file cut to its high-water mark: %v", err)
	}
	for i, id := range ids {
		if got, err := v.Get(id); err != nil || !bytes.Equal(got, blocks[i]) {
			t.Fatalf("block %d after cutting the unused tail: %d bytes, err %v", i, len(got), err)
		}
	}
	v.Close()
	for _, tc := range []struct {
		name string
		size int64
		want string
	}{
		{"one page short", used - int64(m.pageSize), "meta page says"},
		{"half", fi.Size() / 2, "meta page says"},
		{"empty", 0, "is empty (0 bytes)"},
	} {
		if err := os.Truncate(path, tc.size); err != nil {
			t.Fatal(err)
		}
		for _, ro := range []bool{false, true} {
			v, err := Open(path, &Options{ReadOnly: ro})
			if err == nil {
				v.Close()
				t.Fatalf("%s (read-only %v): open succeeded", tc.name, ro)
			}
			if !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (read-only %v): %v, want ErrTruncated saying %q", tc.name, ro, err, tc.want)
			}
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != tc.size {
			t.Fatalf("%s: the refused file changed: %v %v", tc.name, fi.Size(), err)
		}
	}
}

// TestFileCutShortWhileOpenIsAnError truncates the file under an open
// vault: reads of pages past the new end fault in the mapping, and every
// Get must come back with the exact bytes or an error instead of killing
// the process.
func TestFileCutShortWhileOpenIsAnError(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	blocks := damageBlocks(r, 60)
	path, ids := fillVault(t, blocks)
	v, err := Open(path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// Half of the pages in use go: half the file's size would cut only
	// free space when bbolt grew the file past its data.
	var used int64
	if err := v.db.View(func(tx *bolt.Tx) error {
		used = tx.Size()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, used/2); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i, id := range ids {
		got, err := v.Get(id)
		switch {
		case errors.Is(err, ErrCorrupt):
			failed++
		case err != nil:
			t.Errorf("block %d: %v, want ErrCorrupt", i, err)
		case !bytes.Equal(got, blocks[i]):
			t.Errorf("block %d: wrong bytes and no error", i)
		}
	}
	if failed == 0 {
		t.Fatalf("no Get failed although half of the file is gone")
	}
	if _, err := v.Search("block", 5); err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("search: %v, want nil or ErrCorrupt", err)
	}
}
