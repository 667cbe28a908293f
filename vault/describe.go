package vault

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Described is what a describer learned of a block after it was stored:
// the fields Redescribe replaces in its meta.
type Described struct {
	Tokens          int
	TokensEstimated bool
	Files           []string
	Topics          []string
	Command         string
	Summary         string
	Confidence      float64
	Priority        string
	Sensitive       bool
}

// Redescribe replaces the descriptive fields of block id's meta with d,
// for a block stored at once with a provisional description (an estimated
// token count, marked sensitive) and described in the background. The
// block's bytes, id, kind, origin and workspaces stay; so does its search
// index, which the block's own text makes.
func (v *Vault) Redescribe(id string, d Described) error {
	return v.update(func(tx *bolt.Tx) error {
		key, err := resolve(tx.Bucket(bucketBlocks), id)
		if err != nil {
			return err
		}
		mb := tx.Bucket(bucketMeta)
		var m Meta
		if err := decodeMeta(mb.Get(key), &m); err != nil {
			return fmt.Errorf("block %s: %w", id, err)
		}
		m.Tokens, m.TokensEstimated = d.Tokens, d.TokensEstimated
		m.Files, m.Topics, m.Command, m.Summary = d.Files, d.Topics, d.Command, d.Summary
		m.Confidence, m.Priority, m.Sensitive = d.Confidence, d.Priority, d.Sensitive
		mj, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("vault: encode meta: %w", err)
		}
		return mb.Put(key, mj)
	})
}
