// Package vault stores exact blocks of old agent context in one bbolt file.
//
// A block is any non-empty byte string. Its id is "ctx:" followed by the first
// 12 hex digits of its SHA-256, lengthened when another block already holds
// that prefix; a stored block is never overwritten. Gets are byte-exact. The
// vault also keeps per-block metadata, a term index for Search, and an
// append-only log of diet events. One *Vault is safe for many goroutines.
package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kwsdev/kws/internal/lexical"
	"github.com/kwsdev/kws/internal/pubsub"
)

// FileName is the name of the vault file inside the data dir.
const FileName = "vault.db"

var (
	bucketBlocks = []byte("blocks")
	bucketMeta   = []byte("meta")
	bucketIndex  = []byte("index")
	bucketStats  = []byte("stats")
	allBuckets   = [][]byte{bucketBlocks, bucketMeta, bucketIndex, bucketStats}
)

// Documented errors. Callers test them with errors.Is.
var (
	// ErrNotFound is returned by Get and Meta for an unknown id.
	ErrNotFound = errors.New("vault: no block with that id")
	// ErrEmpty is returned by Put for an empty block.
	ErrEmpty = errors.New("vault: refusing to store an empty block")
	// ErrBadID is returned for a string that is not a vault id.
	ErrBadID = errors.New("vault: malformed id (want ctx: followed by 8 to 64 hex digits)")
	// ErrLocked is returned by Open when another process holds the vault.
	ErrLocked = errors.New("vault: held by another process")
	// ErrCorrupt is returned when the vault file is damaged or not a vault,
	// and by Get for a block whose bytes no longer hash to its id; the
	// error names the block.
	ErrCorrupt = errors.New("vault: damaged")
	// ErrTruncated is returned by Open for a file that is empty or shorter
	// than its own meta page says; it wraps ErrCorrupt.
	ErrTruncated = fmt.Errorf("%w: file is truncated", ErrCorrupt)
	// ErrClosed is returned by operations on a closed vault.
	ErrClosed = errors.New("vault: closed")
)

// Options tune Open. The zero value is usable.
type Options struct {
	// LockTimeout bounds the wait for a vault held by another process.
	// Zero means 500 ms.
	LockTimeout time.Duration
	// ReadOnly opens the file with a shared lock and no writes.
	ReadOnly bool
	// Reserve is how many bytes the caller is about to put. Open maps the
	// file that much bigger up front, so that storing a large block does
	// not remap it mid-commit, which makes bbolt copy every value the
	// transaction holds (a third copy of a 200 MB block).
	Reserve int64
}

// Vault is an open vault file.
type Vault struct {
	db   *bolt.DB
	path string

	idxOnce sync.Once
	idxMu   sync.RWMutex
	idx     *lexical.Index
	idxErr  error

	placeMu sync.Mutex
	places  *placeMap

	remoteMu sync.Mutex
	remote   Remote
	// stored hears of blocks stored for the first time (OnStored).
	stored pubsub.Listeners[Block]
}

// OpenDir opens (creating if needed) the vault file inside dataDir.
func OpenDir(dataDir string, opts *Options) (*Vault, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("vault: create data dir: %w", err)
	}
	return Open(filepath.Join(dataDir, FileName), opts)
}

// Open opens (creating if needed) the vault file at path. A file held by
// another process yields ErrLocked, naming the holder's pid, within
// Options.LockTimeout; a damaged file yields ErrCorrupt, and an empty file
// or one shorter than its meta page says yields ErrTruncated (an empty
// file is never turned into a new vault).
func Open(path string, opts *Options) (v *Vault, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 500 * time.Millisecond
	}
	if err := checkFileSize(path); err != nil {
		return nil, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		// bbolt can panic on some damaged files while reading pages, and
		// a read past the end of the mapped file faults.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, r)
		}
	}()
	// The freelist stays synced: with NoFreelistSync bbolt rebuilds it on
	// open in a goroutine that panics, uncatchably, on a damaged file.
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: o.LockTimeout, ReadOnly: o.ReadOnly, FreelistType: bolt.FreelistMapType,
		InitialMmapSize: initialMapSize(path, o.Reserve),
	})
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	v = &Vault{db: db, path: path}
	if o.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error { return checkBuckets(tx, path) })
	} else {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
				}
			}
			return nil
		})
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return v, nil
}

// initialMapSize is the mapping that holds the file at path and reserve
// more bytes with room for page headers and the transaction's other pages,
// or 0 (bbolt's default) when nothing is reserved.
func initialMapSize(path string, reserve int64) int {
	if reserve <= 0 {
		return 0
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	return int(size + reserve + reserve/4 + 4<<20)
}

func checkBuckets(tx *bolt.Tx, path string) error {
	for _, b := range allBuckets {
		if tx.Bucket(b) == nil {
			return fmt.Errorf("%w: %s: bucket %q missing", ErrCorrupt, path, b)
		}
	}
	return nil
}

func classifyOpenError(path string, err error) error {
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return fmt.Errorf("%w: %s is locked by %s; close that kws (or pass another --data-dir)",
			ErrLocked, path, describeHolder(path))
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum),
		errors.Is(err, bolt.ErrVersionMismatch):
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	return fmt.Errorf("vault: open %s: %w", path, err)
}

// Path returns the file path of the vault.
func (v *Vault) Path() string { return v.path }

// Close releases the file and its lock.
func (v *Vault) Close() error {
	if v == nil || v.db == nil {
		return nil
	}
	return v.db.Close()
}

// view runs fn in a read transaction.
func (v *Vault) view(fn func(tx *bolt.Tx) error) error { return v.guard(v.db.View, fn) }

// update runs fn in a write transaction.
func (v *Vault) update(fn func(tx *bolt.Tx) error) error { return v.guard(v.db.Update, fn) }

// guard runs fn through a bbolt transaction runner, turning a bbolt panic
// on a damaged page or a memory fault in the mapped file (one cut short
// while open) into ErrCorrupt and a closed database into ErrClosed.
// SetPanicOnFault is per goroutine, and bbolt runs fn on this one.
func (v *Vault) guard(run func(func(*bolt.Tx) error) error, fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: %v", ErrCorrupt, v.path, r)
		}
	}()
	err = run(fn)
	if errors.Is(err, bolt.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// Check verifies the whole file's page structure (slow on large vaults).
func (v *Vault) Check() error {
	return v.view(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() {
			if first == nil {
				first = fmt.Errorf("%w: %s: %v", ErrCorrupt, v.path, err)
			}
		}
		return first
	})
}

// FileSize returns the size of the vault file in bytes.
func (v *Vault) FileSize() int64 {
	var n int64
	_ = v.view(func(tx *bolt.Tx) error {
		n = tx.Size()
		return nil
	})
	return n
}
