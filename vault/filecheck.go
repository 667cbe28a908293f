package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's meta page, as written by go.etcd.io/bbolt: a 16-byte page header,
// then magic, version, page size and flags (4 bytes each), the root bucket
// (16), the freelist page id, the high-water mark page id and the txid (8
// each) and an FNV-64a checksum of everything from magic to txid, all in
// the machine's byte order (little-endian on every platform kws ships for).
const (
	boltMagic      = 0xED0CDAED
	metaOffset     = 16
	metaSummedLen  = 56
	metaPageSizeAt = 8
	metaPgidAt     = 40
	metaTxidAt     = 48
)

// checkFileSize refuses a vault file that is empty or shorter than its own
// meta page says, before bbolt maps it: bbolt would silently turn an empty
// file into a new vault, and a truncated file mapped whole faults on the
// first read past its end. A missing file is fine (Open creates it); a file
// whose meta pages are both unreadable is left to bbolt, which reports it.
func checkFileSize(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("vault: open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("vault: stat %s: %w", path, err)
	}
	size := fi.Size()
	if size == 0 {
		return fmt.Errorf("%w: %s is empty (0 bytes): it was truncated, and its blocks are gone; move it away to start a new vault", ErrTruncated, path)
	}
	// bbolt uses the valid meta page with the higher txid.
	m0, ok0 := readMeta(f, 0)
	second := int64(os.Getpagesize())
	if ok0 {
		second = int64(m0.pageSize)
	}
	m1, ok1 := readMeta(f, second)
	var best boltMeta
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		best = m1
	case ok0:
		best = m0
	default:
		return nil
	}
	if need := int64(best.pgid) * int64(best.pageSize); size < need {
		return fmt.Errorf("%w: %s is %d bytes but its meta page says %d (%d pages of %d bytes): it was cut short; move it away and restore a backup, or start a new vault",
			ErrTruncated, path, size, need, best.pgid, best.pageSize)
	}
	return nil
}

type boltMeta struct {
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readMeta reads and validates the meta page at off; ok is false for a
// page that is short, not a bbolt meta page or fails its checksum.
func readMeta(r io.ReaderAt, off int64) (boltMeta, bool) {
	var buf [metaOffset + metaSummedLen + 8]byte
	if _, err := r.ReadAt(buf[:], off); err != nil {
		return boltMeta{}, false
	}
	m := buf[metaOffset:]
	le := binary.LittleEndian
	if le.Uint32(m) != boltMagic {
		return boltMeta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:metaSummedLen])
	if h.Sum64() != le.Uint64(m[metaSummedLen:]) {
		return boltMeta{}, false
	}
	bm := boltMeta{pageSize: le.Uint32(m[metaPageSizeAt:]), pgid: le.Uint64(m[metaPgidAt:]), txid: le.Uint64(m[metaTxidAt:])}
	if bm.pageSize < 512 || bm.pageSize > 1<<24 {
		return boltMeta{}, false
	}
	return bm, true
}
