package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Meta describes one block. Put fills ID, Chars, Lines and Created; the
// rest comes from the caller (the diet's extractive describer).
type Meta struct {
	ID              string    `json:"id"`
	Kind            string    `json:"kind,omitempty"`
	Agent           string    `json:"agent,omitempty"`
	Session         string    `json:"session,omitempty"`
	Turn            int       `json:"turn,omitempty"`
	MsgIndex        int       `json:"msg_index"`
	Created         time.Time `json:"created"`
	Chars           int       `json:"chars"`
	Tokens          int       `json:"tokens"`
	TokensEstimated bool      `json:"tokens_estimated,omitempty"`
	Lines           int       `json:"lines"`
	Files           []string  `json:"files,omitempty"`
	Topics          []string  `json:"topics,omitempty"`
	Command         string    `json:"command,omitempty"`
	Summary         string    `json:"summary,omitempty"`
	Confidence      float64   `json:"confidence"`
	Priority        string    `json:"priority,omitempty"`
	Sensitive       bool      `json:"sensitive,omitempty"`
	// Workspaces are the absolute paths of the workspaces whose agents
	// stored the block; empty for blocks stored by hand or by an older kws.
	// Agents serve a sensitive block only to these workspaces.
	Workspaces []string `json:"workspaces,omitempty"`
	// Also lists the other places the same bytes were put from (another
	// conversation, a later message), at most MaxPlaces; search counts
	// recency at each of them.
	Also []Place `json:"also,omitempty"`
}

// Place is where in a conversation a block was put from.
type Place struct {
	Agent    string `json:"agent,omitempty"`
	Session  string `json:"session,omitempty"`
	Turn     int    `json:"turn,omitempty"`
	MsgIndex int    `json:"msg_index"`
}

// MaxPlaces bounds Meta.Also.
const MaxPlaces = 32

// place returns where m was put from.
func (m Meta) place() Place {
	return Place{Agent: m.Agent, Session: m.Session, Turn: m.Turn, MsgIndex: m.MsgIndex}
}

// Places returns every place the block was put from: its first, then
// Also.
func (m Meta) Places() []Place {
	return append([]Place{m.place()}, m.Also...)
}

// StoredIn reports whether an agent of workspace stored the block.
func (m Meta) StoredIn(workspace string) bool {
	return workspace != "" && slices.Contains(m.Workspaces, workspace)
}

// VisibleTo reports whether agents of workspace may find the block in a
// search: every block but a sensitive one another workspace stored.
func (m Meta) VisibleTo(workspace string) bool {
	return !m.Sensitive || m.StoredIn(workspace)
}

// Block is one Put request: the exact bytes and their metadata.
type Block struct {
	Data []byte
	Meta Meta
}

// Put stores data exactly and returns its id. Putting the same bytes again
// returns the same id and changes nothing but adding m's Workspaces to the
// block's and m's conversation place to its Also.
func (v *Vault) Put(data []byte, m Meta) (string, error) {
	ids, err := v.PutMany([]Block{{Data: data, Meta: m}})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// PutMany stores blocks in one durable transaction and returns their ids in
// order. Either every block is stored or none is.
func (v *Vault) PutMany(blocks []Block) ([]string, error) {
	for i, b := range blocks {
		if len(b.Data) == 0 {
			return nil, fmt.Errorf("block %d: %w", i, ErrEmpty)
		}
	}
	ids := make([]string, len(blocks))
	var added []indexedDoc
	var fresh []Block
	var placed []placedAt
	err := v.update(func(tx *bolt.Tx) error {
		added, placed, fresh = added[:0], placed[:0], fresh[:0]
		bb, mb, ib := tx.Bucket(bucketBlocks), tx.Bucket(bucketMeta), tx.Bucket(bucketIndex)
		for i, b := range blocks {
			id, exists, err := assignID(bb, b.Data)
			if err != nil {
				return err
			}
			ids[i] = id
			if exists {
				more, err := addOccurrence(mb, id, b.Meta)
				if err != nil {
					return err
				}
				if more {
					placed = append(placed, placedAt{id: id, place: b.Meta.place()})
				}
				continue
			}
			m := b.Meta
			m.ID = id
			m.Chars = len(b.Data)
			m.Lines = countLines(b.Data)
			if m.Created.IsZero() {
				m.Created = time.Now().UTC()
			}
			mj, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("vault: encode meta: %w", err)
			}
			tv := termVector(b.Data, &m)
			if err := bb.Put([]byte(id), b.Data); err != nil {
				return fmt.Errorf("vault: put block: %w", err)
			}
			if err := mb.Put([]byte(id), mj); err != nil {
				return fmt.Errorf("vault: put meta: %w", err)
			}
			if err := ib.Put([]byte(id), tv.Encode()); err != nil {
				return fmt.Errorf("vault: put index: %w", err)
			}
			added = append(added, indexedDoc{id: id, tv: tv})
			fresh = append(fresh, Block{Data: b.Data, Meta: m})
			placed = append(placed, placedAt{id: id, place: m.place(), created: m.Created})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	v.indexAdd(added)
	v.placesAdd(placed)
	for _, b := range fresh {
		v.stored.Notify(b)
	}
	return ids, nil
}

// addOccurrence records that the existing block id was put again (the
// same bytes) from put's workspaces and conversation place, and reports
// whether the place is new.
func addOccurrence(mb *bolt.Bucket, id string, put Meta) (bool, error) {
	newPlace := put.MsgIndex >= 0 && (put.Agent != "" || put.Session != "")
	if len(put.Workspaces) == 0 && !newPlace {
		return false, nil
	}
	var m Meta
	if err := decodeMeta(mb.Get([]byte(id)), &m); err != nil {
		return false, fmt.Errorf("block %s: %w", id, err)
	}
	changed, placed := false, false
	for _, w := range put.Workspaces {
		if w != "" && !slices.Contains(m.Workspaces, w) {
			m.Workspaces = append(m.Workspaces, w)
			changed = true
		}
	}
	if p := put.place(); newPlace && len(m.Also) < MaxPlaces && !slices.ContainsFunc(m.Places(), func(q Place) bool {
		return q.Agent == p.Agent && q.Session == p.Session && q.MsgIndex == p.MsgIndex
	}) {
		m.Also = append(m.Also, p)
		changed, placed = true, true
	}
	if !changed {
		return false, nil
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return false, fmt.Errorf("vault: encode meta: %w", err)
	}
	if err := mb.Put([]byte(id), mj); err != nil {
		return false, fmt.Errorf("vault: put meta: %w", err)
	}
	return placed, nil
}

// assignID finds the id for data: the shortest "ctx:"+hex prefix (12, 16,
// ... 64 digits) that is free or already holds exactly these bytes.
func assignID(bb *bolt.Bucket, data []byte) (id string, exists bool, err error) {
	sum := sha256.Sum256(data)
	full := hex.EncodeToString(sum[:])
	for n := 12; n <= len(full); n += 4 {
		id = "ctx:" + full[:n]
		old := bb.Get([]byte(id))
		if old == nil {
			return id, false, nil
		}
		if bytes.Equal(old, data) {
			return id, true, nil
		}
	}
	return "", false, fmt.Errorf("vault: every id for sha256 %s is taken by other bytes", full)
}

// IDFor returns the id that data would get in an empty vault (collisions can
// lengthen the real one; Put's answer is the authority).
func IDFor(data []byte) string {
	sum := sha256.Sum256(data)
	return "ctx:" + hex.EncodeToString(sum[:6])
}

func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// NormalizeID accepts "ctx:HEX" or bare HEX (8 to 64 digits, any case) and
// returns the canonical "ctx:hex" form.
func NormalizeID(id string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(id))
	h = strings.TrimPrefix(h, "ctx:")
	if len(h) < 8 || len(h) > 64 {
		return "", fmt.Errorf("%w: %q", ErrBadID, id)
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", fmt.Errorf("%w: %q", ErrBadID, id)
		}
	}
	return "ctx:" + h, nil
}

// resolve finds the stored key for id: an exact match, else the only key
// that starts with it. It reports ErrNotFound or an ambiguity error.
func resolve(bb *bolt.Bucket, id string) ([]byte, error) {
	norm, err := NormalizeID(id)
	if err != nil {
		return nil, err
	}
	key := []byte(norm)
	if bb.Get(key) != nil {
		return key, nil
	}
	c := bb.Cursor()
	k, _ := c.Seek(key)
	if k == nil || !bytes.HasPrefix(k, key) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, norm)
	}
	found := append([]byte(nil), k...)
	if k2, _ := c.Next(); k2 != nil && bytes.HasPrefix(k2, key) {
		return nil, fmt.Errorf("%w: %s is a prefix of several blocks; give more digits", ErrBadID, norm)
	}
	return found, nil
}

// Get returns a copy of the exact bytes stored under id (a unique prefix of
// at least 8 hex digits also works). The bytes are checked against the id,
// which is their hash: a damaged block yields ErrCorrupt naming it, never
// wrong bytes.
func (v *Vault) Get(id string) ([]byte, error) {
	return fetched(v, id, func() ([]byte, error) { return v.get(id) })
}

func (v *Vault) get(id string) ([]byte, error) {
	var out []byte
	err := v.view(func(tx *bolt.Tx) error {
		data, err := verifiedBlock(tx, id)
		out = append([]byte(nil), data...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WriteTo writes the exact bytes stored under id to w, checked against the
// id first, and returns how many bytes it wrote. It reads the block in
// place instead of copying it, so a large block streams at the speed of
// its hash; a damaged block yields ErrCorrupt and writes nothing. The
// vault's read transaction stays open until w has taken every byte.
func (v *Vault) WriteTo(id string, w io.Writer) (int64, error) {
	return fetched(v, id, func() (int64, error) { return v.writeTo(id, w) })
}

func (v *Vault) writeTo(id string, w io.Writer) (int64, error) {
	var n int
	err := v.view(func(tx *bolt.Tx) error {
		data, err := verifiedBlock(tx, id)
		if err != nil {
			return err
		}
		n, err = w.Write(data)
		return err
	})
	return int64(n), err
}

// verifiedBlock returns the bytes stored under id (or a unique prefix of
// it) in place, valid only during tx, once they hash to the id.
func verifiedBlock(tx *bolt.Tx, id string) ([]byte, error) {
	bb := tx.Bucket(bucketBlocks)
	key, err := resolve(bb, id)
	if err != nil {
		return nil, err
	}
	data := bb.Get(key)
	if err := verifyBlock(string(key), data); err != nil {
		return nil, err
	}
	return data, nil
}

// verifyBlock checks that data hashes to the id it is stored under.
func verifyBlock(id string, data []byte) error {
	sum := sha256.Sum256(data)
	want := strings.TrimPrefix(id, "ctx:")
	if len(data) == 0 || len(want) > 2*len(sum) || hex.EncodeToString(sum[:])[:len(want)] != want {
		return fmt.Errorf("%w: block %s: its bytes no longer hash to its id, so they are not served", ErrCorrupt, id)
	}
	return nil
}

// Meta returns the metadata of the block id.
func (v *Vault) Meta(id string) (Meta, error) {
	return fetched(v, id, func() (Meta, error) { return v.meta(id) })
}

func (v *Vault) meta(id string) (Meta, error) {
	var m Meta
	err := v.view(func(tx *bolt.Tx) error {
		key, err := resolve(tx.Bucket(bucketBlocks), id)
		if err != nil {
			return err
		}
		return decodeMeta(tx.Bucket(bucketMeta).Get(key), &m)
	})
	return m, err
}

func decodeMeta(raw []byte, m *Meta) error {
	if raw == nil {
		return fmt.Errorf("%w: block without metadata", ErrCorrupt)
	}
	if err := json.Unmarshal(raw, m); err != nil {
		return fmt.Errorf("%w: metadata: %v", ErrCorrupt, err)
	}
	return nil
}

// List calls fn with every block's metadata in id order; fn's error stops
// the walk and is returned.
func (v *Vault) List(fn func(Meta) error) error {
	return v.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).ForEach(func(_, raw []byte) error {
			var m Meta
			if err := decodeMeta(raw, &m); err != nil {
				return err
			}
			return fn(m)
		})
	})
}

// Len returns the number of stored blocks.
func (v *Vault) Len() (int, error) {
	var n int
	err := v.view(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketBlocks).Stats().KeyN
		return nil
	})
	return n, err
}
