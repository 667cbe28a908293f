package vault

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damageBlocks returns n distinct blocks of a few hundred bytes to n
// kilobytes, each unique enough to be found in the file by its bytes.
func damageBlocks(r *rand.Rand, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = benchText(r, 300+r.Intn(6000))
		copy(out[i], fmt.Sprintf("block-%03d ", i))
	}
	return out
}

// fillVault stores blocks in a new vault file and closes it; it returns
// the file's path and the blocks' ids.
func fillVault(t *testing.T, blocks [][]byte) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	v, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(blocks))
	for i, b := range blocks {
		if ids[i], err = v.Put(b, Meta{Kind: "test", Summary: fmt.Sprintf("summary of block %d", i), Topics: []string{"topic"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

func TestGetOfDamagedBlockIsErrCorrupt(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	blocks := damageBlocks(r, 8)
	path, ids := fillVault(t, blocks)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const victim = 3
	// bbolt may leave an old copy of a page in its free list; damage
	// every copy, so whichever one the tree points to is damaged.
	copies := 0
	for at := bytes.Index(raw, blocks[victim]); at >= 0; {
		for _, off := range []int{40, 41} {
			raw[at+off] ^= 0x20
		}
		copies++
		next := bytes.Index(raw[at+1:], blocks[victim])
		if next < 0 {
			break
		}
		at += 1 + next
	}
	if copies == 0 {
		t.Fatalf("block %d is not in the file", victim)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	got, err := v.Get(ids[victim])
	if !errors.Is(err, ErrCorrupt) || got != nil {
		t.Fatalf("get of the damaged block: %d bytes, err %v; want no bytes and ErrCorrupt", len(got), err)
	}
	if !strings.Contains(err.Error(), ids[victim]) {
		t.Errorf("error %q does not name the block %s", err, ids[victim])
	}
	// Search still finds it by its id's index entry, marked damaged and
	// quoting nothing its bytes were described by.
	hits, err := v.Search(fmt.Sprintf("block-%03d", victim), 8)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hits {
		found = found || h.ID == ids[victim]
		if h.ID == ids[victim] && (!h.Damaged || h.Meta.Summary != DamagedSummary || len(h.Meta.Topics) > 0) {
			t.Errorf("search hit of the damaged block: %+v", h)
		}
		if h.ID != ids[victim] && h.Damaged {
			t.Errorf("undamaged block %s marked damaged", h.ID)
		}
	}
	if !found {
		t.Errorf("search for the damaged block found %d others", len(hits))
	}
	var w bytes.Buffer
	if n, err := v.WriteTo(ids[victim], &w); !errors.Is(err, ErrCorrupt) || n != 0 || w.Len() != 0 {
		t.Fatalf("WriteTo of the damaged block: wrote %d bytes, err %v; want none and ErrCorrupt", w.Len(), err)
	}
	for i, id := range ids {
		if i == victim {
			continue
		}
		if got, err := v.Get(id); err != nil || !bytes.Equal(got, blocks[i]) {
			t.Errorf("undamaged block %d: %d bytes, err %v", i, len(got), err)
		}
		w.Reset()
		if n, err := v.WriteTo(id, &w); err != nil || n != int64(len(blocks[i])) || !bytes.Equal(w.Bytes(), blocks[i]) {
			t.Errorf("WriteTo of undamaged block %d: %d bytes, err %v", i, n, err)
		}
	}
}

// TestRandomFlipsNeverReturnWrongBytes flips 64 random bytes past the two
// meta pages of a 60-block vault, for several seeds: every Get returns the
// exact original bytes or an error, and nothing panics.
func TestRandomFlipsNeverReturnWrongBytes(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	blocks := damageBlocks(r, 60)
	clean, ids := fillVault(t, blocks)
	pristine, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	caught := 0
	for seed := int64(1); seed <= 12; seed++ {
		raw := bytes.Clone(pristine)
		fr := rand.New(rand.NewSource(seed))
		for range 64 {
			raw[2*pageSize+fr.Intn(len(raw)-2*pageSize)] ^= byte(1 + fr.Intn(255))
		}
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		v, err := Open(path, &Options{ReadOnly: true})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("seed %d: open: %v, want ErrCorrupt", seed, err)
			}
			continue
		}
		for i, id := range ids {
			got, err := v.Get(id)
			switch {
			case err != nil:
				if errors.Is(err, ErrCorrupt) {
					caught++
				}
			case !bytes.Equal(got, blocks[i]):
				t.Errorf("seed %d: block %d (%s) came back with wrong bytes and no error", seed, i, id)
			}
			var w bytes.Buffer
			if _, err := v.WriteTo(id, &w); err == nil && !bytes.Equal(w.Bytes(), blocks[i]) {
				t.Errorf("seed %d: WriteTo of block %d (%s) wrote wrong bytes and no error", seed, i, id)
			}
		}
		v.Close()
	}
	if caught == 0 {
		t.Errorf("no damaged block was reported as ErrCorrupt in 12 rounds of 64 flips")
	}
	t.Logf("%d gets reported ErrCorrupt", caught)
}
