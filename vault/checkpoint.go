package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Checkpoints of agents' workspaces live apart from blocks: file bytes in
// the blobs bucket, keyed by their SHA-256, and checkpoint records in the
// checkpoints bucket, one nested bucket per agent session keyed by the
// record's sequence number (8 bytes, big-endian). Neither is a block:
// List, Len, Search and the vault pane never see them. Both buckets are
// created by the first write, so that older vaults still open read-only.
var (
	bucketBlobs       = []byte("blobs")
	bucketCheckpoints = []byte("checkpoints")
)

// Checkpoint errors. Callers test them with errors.Is.
var (
	// ErrNoBlob is returned by Blob for a hash the vault does not hold.
	ErrNoBlob = errors.New("vault: no blob with that hash")
	// ErrCheckpointOrder is returned by PutCheckpoint when the session's
	// newest checkpoint is not the one the caller built on: another
	// writer recorded one in between.
	ErrCheckpointOrder = errors.New("vault: the session has a newer checkpoint than the one given")
	// ErrBadCheckpoint is returned for a checkpoint without a session.
	ErrBadCheckpoint = errors.New("vault: invalid checkpoint")
)

// BlobHash is the SHA-256 of a blob's bytes and its key in the vault.
type BlobHash [sha256.Size]byte

// HashBlob returns the hash that data is stored under.
func HashBlob(data []byte) BlobHash { return sha256.Sum256(data) }

// String returns the hash in hex.
func (h BlobHash) String() string { return hex.EncodeToString(h[:]) }

// emptyBlob is the hash of no bytes. The empty blob is never stored (a
// bbolt value cannot tell empty from absent); Blob answers it directly.
var emptyBlob = HashBlob(nil)

// Checkpoint is one recorded state of an agent's workspace. The vault
// keeps the fields and orders the records; Manifest is the caller's own
// encoding of the state (see agent/checkpoint), opaque to the vault.
type Checkpoint struct {
	// Seq orders the session's checkpoints from 1; PutCheckpoint assigns it.
	Seq      uint64    `json:"seq"`
	Agent    string    `json:"agent,omitempty"`
	Session  string    `json:"session"`
	Root     string    `json:"root,omitempty"`
	Turn     int       `json:"turn,omitempty"`
	MsgIndex int       `json:"msg_index"`
	Reason   string    `json:"reason,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	CallID   string    `json:"call_id,omitempty"`
	Target   uint64    `json:"target,omitempty"`
	Time     time.Time `json:"time"`
	Manifest []byte    `json:"-"`
}

// PutBlobs stores each non-empty data once under its SHA-256, in one
// durable transaction, and returns the hashes in order. Bytes already
// stored cost nothing.
func (v *Vault) PutBlobs(data [][]byte) ([]BlobHash, error) {
	var hs []BlobHash
	err := v.update(func(tx *bolt.Tx) error {
		var err error
		hs, err = putBlobs(tx, data)
		return err
	})
	return hs, err
}

// putBlobs stores data in the blobs bucket within tx.
func putBlobs(tx *bolt.Tx, data [][]byte) ([]BlobHash, error) {
	hs := make([]BlobHash, len(data))
	if len(data) == 0 {
		return hs, nil
	}
	b, err := tx.CreateBucketIfNotExists(bucketBlobs)
	if err != nil {
		return nil, fmt.Errorf("vault: blobs bucket: %w", err)
	}
	for i, d := range data {
		hs[i] = HashBlob(d)
		if len(d) == 0 || b.Get(hs[i][:]) != nil {
			continue
		}
		if err := b.Put(hs[i][:], d); err != nil {
			return nil, fmt.Errorf("vault: put blob: %w", err)
		}
	}
	return hs, nil
}

// Blob returns a copy of the bytes stored under h, checked against h: a
// damaged blob yields ErrCorrupt, an unknown one ErrNoBlob.
func (v *Vault) Blob(h BlobHash) ([]byte, error) {
	if h == emptyBlob {
		return []byte{}, nil
	}
	var out []byte
	err := v.view(func(tx *bolt.Tx) error {
		var data []byte
		if b := tx.Bucket(bucketBlobs); b != nil {
			data = b.Get(h[:])
		}
		switch {
		case data == nil:
			return fmt.Errorf("%w: %s", ErrNoBlob, h)
		case HashBlob(data) != h:
			return fmt.Errorf("%w: blob %s: its bytes no longer hash to its key, so they are not served", ErrCorrupt, h)
		}
		out = bytes.Clone(data)
		return nil
	})
	return out, err
}

// PutCheckpoint stores blobs and then c as the session's next checkpoint,
// in one durable transaction, and returns the sequence number it got.
// after is the Seq of the session's newest checkpoint the caller knows (0
// for none): when another was recorded since, nothing is stored and the
// error is ErrCheckpointOrder, so a manifest kept as a change to the one
// before it always has the right base.
func (v *Vault) PutCheckpoint(c Checkpoint, after uint64, blobs [][]byte) (uint64, error) {
	if c.Session == "" {
		return 0, fmt.Errorf("%w: no session", ErrBadCheckpoint)
	}
	if c.Time.IsZero() {
		c.Time = time.Now().UTC()
	}
	err := v.update(func(tx *bolt.Tx) error {
		if _, err := putBlobs(tx, blobs); err != nil {
			return err
		}
		root, err := tx.CreateBucketIfNotExists(bucketCheckpoints)
		if err != nil {
			return fmt.Errorf("vault: checkpoints bucket: %w", err)
		}
		sb, err := root.CreateBucketIfNotExists([]byte(c.Session))
		if err != nil {
			return fmt.Errorf("vault: checkpoints of %q: %w", c.Session, err)
		}
		if last := lastSeq(sb); last != after {
			return fmt.Errorf("%w: session %q is at checkpoint %d, not %d", ErrCheckpointOrder, c.Session, last, after)
		}
		if c.Seq, err = sb.NextSequence(); err != nil {
			return fmt.Errorf("vault: checkpoint sequence: %w", err)
		}
		raw, err := encodeCheckpoint(c)
		if err != nil {
			return err
		}
		return sb.Put(binary.BigEndian.AppendUint64(nil, c.Seq), raw)
	})
	if err != nil {
		return 0, err
	}
	return c.Seq, nil
}

// lastSeq is the sequence number of the newest record in sb, 0 if none.
func lastSeq(sb *bolt.Bucket) uint64 {
	k, _ := sb.Cursor().Last()
	if len(k) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k)
}

// CheckpointSeq returns the Seq of the session's newest checkpoint, 0 for
// none: a cheap way to learn whether another writer recorded one.
func (v *Vault) CheckpointSeq(session string) (uint64, error) {
	var seq uint64
	err := v.view(func(tx *bolt.Tx) error {
		if root := tx.Bucket(bucketCheckpoints); root != nil {
			if sb := root.Bucket([]byte(session)); sb != nil {
				seq = lastSeq(sb)
			}
		}
		return nil
	})
	return seq, err
}

// Checkpoints returns every checkpoint of session, oldest first; none is
// not an error.
func (v *Vault) Checkpoints(session string) ([]Checkpoint, error) {
	var out []Checkpoint
	err := v.view(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketCheckpoints)
		if root == nil {
			return nil
		}
		sb := root.Bucket([]byte(session))
		if sb == nil {
			return nil
		}
		return sb.ForEach(func(k, raw []byte) error {
			c, err := decodeCheckpoint(raw)
			if err != nil {
				return fmt.Errorf("checkpoint %x of %q: %w", k, session, err)
			}
			out = append(out, c)
			return nil
		})
	})
	return out, err
}

// encodeCheckpoint lays a record out as the length of its JSON fields
// (uvarint), the fields, then the manifest's raw bytes, which JSON would
// inflate by a third.
func encodeCheckpoint(c Checkpoint) ([]byte, error) {
	head, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("vault: encode checkpoint: %w", err)
	}
	out := binary.AppendUvarint(make([]byte, 0, len(head)+len(c.Manifest)+binary.MaxVarintLen64), uint64(len(head)))
	return append(append(out, head...), c.Manifest...), nil
}

// decodeCheckpoint reads what encodeCheckpoint wrote.
func decodeCheckpoint(raw []byte) (Checkpoint, error) {
	var c Checkpoint
	n, w := binary.Uvarint(raw)
	if w <= 0 || n > uint64(len(raw)-w) {
		return c, fmt.Errorf("%w: truncated checkpoint record", ErrCorrupt)
	}
	if err := json.Unmarshal(raw[w:w+int(n)], &c); err != nil {
		return c, fmt.Errorf("%w: checkpoint record: %v", ErrCorrupt, err)
	}
	c.Manifest = bytes.Clone(raw[w+int(n):])
	return c, nil
}
