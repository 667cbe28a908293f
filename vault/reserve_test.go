package vault

import (
	"math/rand"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReservedPutCopiesTheBlockOnce: with Options.Reserve, a large Put
// allocates the block once more (bbolt's page buffer) and not twice, as it
// does when the file is remapped mid-commit.
func TestReservedPutCopiesTheBlockOnce(t *testing.T) {
	data := benchText(rand.New(rand.NewSource(4)), 48<<20)
	v, err := Open(filepath.Join(t.TempDir(), FileName), &Options{Reserve: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := v.Put(data, Meta{Kind: "stdin"}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc >= 2*uint64(len(data)) {
		t.Fatalf("a put of %d MB allocated %d MB", len(data)>>20, alloc>>20)
	}
}
