package checkpoint

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/kwsdev/kws/vault"
)

// kind is what a manifest entry is.
type kind uint8

const (
	kindNone kind = iota // absent: in a delta, the path was removed
	kindFile
	kindDir
)

// entry is one path's state in a manifest: a regular file (its permission
// bits and the hash of its bytes, which the vault holds) or a directory
// (its permission bits).
type entry struct {
	kind kind
	perm fs.FileMode
	hash vault.BlobHash
}

// manifest is a workspace's state: every tracked path, relative to the
// root and slash-separated, to its entry.
type manifest map[string]entry

// delta is what turns one manifest into the next: the paths whose entry
// changed, a removed path mapping to the zero entry (kindNone).
type delta map[string]entry

// deltaFormat leads every encoded delta, so that a later kws can tell an
// older layout.
const deltaFormat = 1

// diff returns the delta that turns old into cur.
func diff(old, cur manifest) delta {
	d := delta{}
	for p, e := range cur {
		if o, ok := old[p]; !ok || o != e {
			d[p] = e
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			d[p] = entry{}
		}
	}
	return d
}

// apply changes m by d in place.
func (m manifest) apply(d delta) {
	for p, e := range d {
		if e.kind == kindNone {
			delete(m, p)
		} else {
			m[p] = e
		}
	}
}

// encode lays d out compactly, paths in order: the format byte, then per
// path its length (uvarint), its bytes and its kind byte, followed for a
// file or a directory by its permission bits (uvarint) and for a file by
// its 32-byte hash. A checkpoint stores only this change to the one
// before it, so that a tool call that changes one file costs some fifty
// bytes however large the workspace.
func (d delta) encode() []byte {
	out := []byte{deltaFormat}
	for _, p := range slices.Sorted(maps.Keys(d)) {
		e := d[p]
		out = binary.AppendUvarint(out, uint64(len(p)))
		out = append(out, p...)
		out = append(out, byte(e.kind))
		if e.kind == kindNone {
			continue
		}
		out = binary.AppendUvarint(out, uint64(e.perm))
		if e.kind == kindFile {
			out = append(out, e.hash[:]...)
		}
	}
	return out
}

// decodeDelta reads what encode wrote, checking every path: a manifest
// names the files a rewind writes.
func decodeDelta(raw []byte) (delta, error) {
	if len(raw) == 0 || raw[0] != deltaFormat {
		return nil, fmt.Errorf("checkpoint: unknown manifest format")
	}
	d := delta{}
	for r := raw[1:]; len(r) > 0; {
		n, w := binary.Uvarint(r)
		if w <= 0 || n >= uint64(len(r)-w) {
			return nil, fmt.Errorf("checkpoint: truncated manifest")
		}
		p := string(r[w : w+int(n)])
		if err := checkRel(p); err != nil {
			return nil, err
		}
		r = r[w+int(n):]
		e := entry{kind: kind(r[0])}
		r = r[1:]
		var err error
		if r, err = decodeEntry(&e, r); err != nil {
			return nil, fmt.Errorf("checkpoint: manifest entry %s: %w", Name(p), err)
		}
		d[p] = e
	}
	return d, nil
}

// decodeEntry reads the rest of e (whose kind is set) from r and returns
// what follows it.
func decodeEntry(e *entry, r []byte) ([]byte, error) {
	switch e.kind {
	case kindNone:
		return r, nil
	case kindFile, kindDir:
	default:
		return nil, fmt.Errorf("unknown kind %d", e.kind)
	}
	perm, w := binary.Uvarint(r)
	if w <= 0 || perm > uint64(fs.ModePerm) {
		return nil, fmt.Errorf("bad permission bits")
	}
	e.perm, r = fs.FileMode(perm), r[w:]
	if e.kind == kindDir {
		return r, nil
	}
	if len(r) < len(e.hash) {
		return nil, fmt.Errorf("truncated hash")
	}
	copy(e.hash[:], r)
	return r[len(e.hash):], nil
}

// replay rebuilds the manifest of checkpoint seq from the session's
// records, oldest first: the first holds the whole state, each later one
// its change.
func replay(recs []vault.Checkpoint, seq uint64) (manifest, error) {
	m := manifest{}
	for _, c := range recs {
		if c.Seq > seq {
			break
		}
		d, err := decodeDelta(c.Manifest)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", c.Seq, err)
		}
		m.apply(d)
	}
	return m, nil
}

// state is a session's newest state as its checkpoints built it: the files
// and, for telling conflicts, the paths that others than the agent changed
// and a rewind kept so.
type state struct {
	files manifest
	// foreign holds, for each such path, its entry as the agent last
	// left it. A turn's start or a tool call adopts every change, as
	// both record the whole workspace as the agent's.
	foreign map[string]entry
}

// note takes checkpoint d, recorded for reason, into foreign; the caller
// then moves files on by d.
func (s *state) note(reason string, d delta) {
	switch reason {
	case ReasonRewind:
		for p := range d {
			if _, ok := s.foreign[p]; !ok {
				s.foreign[p] = s.files[p]
			}
		}
	case ReasonRewound:
		for p := range d {
			delete(s.foreign, p)
		}
	default:
		clear(s.foreign)
	}
}

// mine returns path p's entry as the agent last left it.
func (s *state) mine(p string) entry {
	if e, ok := s.foreign[p]; ok {
		return e
	}
	return s.files[p]
}
