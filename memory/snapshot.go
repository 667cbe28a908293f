package memory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/philippgille/chromem-go"
)

// Reading a file per memory makes Open slow (about half a second at 10k
// memories), and a kws command without a server opens the store on every
// call. The snapshot is a cache of the memory files in one file: for each
// scope folder, the folder's modification time when it was read and the
// memories it held. Every change of a folder (a memory written, removed
// or quarantined, always by a rename or removal in that folder) changes
// its modification time, so Open takes a folder's memories from the
// snapshot only while its time is the recorded one, and reads the files
// of the others. The files stay the truth: a missing, damaged or stale
// snapshot costs only time, and is rewritten.
//
// A change within the file system's timestamp granularity of the read
// could leave the time unchanged; as git does with its index, a folder
// changed less than racyWindow before it was read is not recorded, and
// the snapshot waits for an Open after it has been quiet.

const (
	// snapshotFile is the snapshot, next to the scope folders.
	snapshotFile = "snapshot.bin"
	// snapshotMagic starts a snapshot; its number changes with the format.
	snapshotMagic = "kws memory snapshot 1\n"
	// racyWindow is how long after its last change a folder's time is
	// trusted.
	racyWindow = 2 * time.Second
)

// castagnoli is the CRC-32C table that checks a snapshot.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapFolder is what the snapshot holds of one scope folder.
type snapFolder struct {
	mtime int64 // the folder's modification time, in Unix nanoseconds
	docs  []chromem.Document
}

// load reads the memories of the scope folders of dir, removing the
// leftovers of cut-short writes and quarantining damaged files. A memory
// that records no embedder (one written before memories recorded theirs)
// gets the one recognizeEmbedder finds. With cache, the folders whose
// time the snapshot records are taken from it, and when it is stale and
// no folder changed within racyWindow, the snapshot is rewritten.
func load(dir string, cache bool) ([]chromem.Document, []Damage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("memory: %w", err)
	}
	var snap map[string]snapFolder
	if cache {
		snap, _ = readSnapshot(filepath.Join(dir, snapshotFile)) // a bad one is rewritten below
	}
	var (
		docs   []chromem.Document
		damage []Damage
		fresh  = map[string]snapFolder{}
		stale  = len(snap) == 0
		racy   bool
		now    = time.Now()
	)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		if !e.IsDir() || name == QuarantineDir {
			continue
		}
		// The time is taken before the folder is read: a change while it
		// is read changes the time again, and the next Open reads it.
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, fmt.Errorf("memory: %w", err)
		}
		mtime := fi.ModTime().UnixNano()
		racy = racy || now.Sub(fi.ModTime()) < racyWindow
		if f, ok := snap[name]; ok && f.mtime == mtime {
			fresh[name] = f
			docs = append(docs, f.docs...)
			continue
		}
		stale = true
		d, dmg, err := loadScope(dir, name)
		if err != nil {
			return nil, nil, err
		}
		for i := range d {
			if d[i].Metadata[keyEmbedder] == "" {
				d[i].Metadata[keyEmbedder] = recognizeEmbedder(d[i])
			}
		}
		fresh[name] = snapFolder{mtime: mtime, docs: d}
		docs, damage = append(docs, d...), append(damage, dmg...)
	}
	if len(fresh) != len(snap) {
		stale = true // a folder went
	}
	if cache && stale && !racy {
		// A snapshot that cannot be written costs the next Open time only.
		_ = writeFileAtomic(filepath.Join(dir, snapshotFile), encodeSnapshot(fresh))
	}
	return docs, damage, nil
}

// encodeSnapshot encodes folders: snapshotMagic, then per folder its
// name, time and memories, each memory its id, text, metadata and vector
// (float32 bits, little-endian, from an offset divisible by 4), strings
// and counts as uvarint-prefixed or uvarints, and last the CRC-32C of all
// that.
func encodeSnapshot(folders map[string]snapFolder) []byte {
	var b []byte
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	b = append(b, snapshotMagic...)
	b = binary.AppendUvarint(b, uint64(len(folders)))
	for name, f := range folders {
		str(name)
		b = binary.AppendVarint(b, f.mtime)
		b = binary.AppendUvarint(b, uint64(len(f.docs)))
		for _, d := range f.docs {
			str(d.ID)
			str(d.Content)
			b = binary.AppendUvarint(b, uint64(len(d.Metadata)))
			for k, v := range d.Metadata {
				str(k)
				str(v)
			}
			b = binary.AppendUvarint(b, uint64(len(d.Embedding)))
			for len(b)%4 != 0 {
				b = append(b, 0) // vectors start 4-aligned, so a mapped one is a []float32
			}
			for _, x := range d.Embedding {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// errSnapshot is what a snapshot that does not decode is.
var errSnapshot = errors.New("memory: damaged snapshot")

// readSnapshot reads the snapshot at path, by folder name. The file is
// mapped rather than read, and on a little-endian machine the vectors
// point into the mapping instead of being copied: a snapshot of 10k
// memories is 20 MB of vectors, and copying them was most of the time
// Open took. The mapping is never unmapped, since the store's memories
// point into it; a later snapshot replaces the file by a rename, which
// leaves the mapped one intact.
func readSnapshot(path string) (map[string]snapFolder, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	out, err := decodeSnapshot(data)
	if err != nil {
		syscall.Munmap(data) // nothing points into it yet
	}
	return out, err
}

// mapFile maps the file at path read-only.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(len(snapshotMagic)+4) || fi.Size() > math.MaxInt32 {
		return nil, errSnapshot
	}
	return syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
}

// decodeSnapshot decodes the snapshot data, checking its magic and CRC.
func decodeSnapshot(data []byte) (map[string]snapFolder, error) {
	if len(data) < len(snapshotMagic)+4 || !bytes.HasPrefix(data, []byte(snapshotMagic)) {
		return nil, errSnapshot
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, errSnapshot
	}
	r := snapReader{b: body, pos: len(snapshotMagic)}
	n := r.count()
	out := make(map[string]snapFolder, n)
	for range n {
		name := r.str()
		f := snapFolder{mtime: r.varint()}
		f.docs = make([]chromem.Document, r.count())
		for i := range f.docs {
			d := &f.docs[i]
			d.ID, d.Content = r.str(), r.str()
			nmd := r.count()
			d.Metadata = make(map[string]string, nmd)
			for range nmd {
				k := r.str()
				d.Metadata[k] = r.str()
			}
			d.Embedding = r.vector()
		}
		out[name] = f
	}
	if r.err != nil || r.pos != len(r.b) {
		return nil, errSnapshot
	}
	return out, nil
}

// littleEndian reports whether the machine stores numbers as the
// snapshot does, so its vectors can be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// snapReader decodes a snapshot's body from pos; the first error sticks
// and makes every later read return zero values.
type snapReader struct {
	b   []byte
	pos int
	err error
}

func (r *snapReader) fail() { r.err, r.pos = errSnapshot, len(r.b) }

func (r *snapReader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *snapReader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint reads one number with read (binary.Uvarint or Varint).
func readVarint[T uint64 | int64](r *snapReader, read func([]byte) (T, int)) T {
	v, n := read(r.b[r.pos:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.pos += n
	return v
}

// count reads a count, which cannot exceed the bytes left (every counted
// item takes at least one), so a damaged one allocates nothing huge.
func (r *snapReader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)-r.pos) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *snapReader) str() string {
	n := r.count()
	s := string(r.b[r.pos : r.pos+n])
	r.pos += n
	return s
}

// vector reads a vector: in place on a little-endian machine, else
// copied.
func (r *snapReader) vector() []float32 {
	n := r.count()
	start := (r.pos + 3) &^ 3
	if n == 0 || start+4*n > len(r.b) {
		r.fail()
		return nil
	}
	r.pos = start + 4*n
	raw := r.b[start:r.pos]
	if littleEndian {
		return unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n)
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}
