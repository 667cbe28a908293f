package vault

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DietEvent is one logged diet call: what the prompt would have cost sent
// whole (naive) and what was sent.
type DietEvent struct {
	Time               time.Time `json:"time"`
	Agent              string    `json:"agent,omitempty"`
	Session            string    `json:"session,omitempty"`
	Call               int       `json:"call"`
	Mode               string    `json:"mode"`
	Messages           int       `json:"messages"`
	NaiveChars         int       `json:"naive_chars"`
	SentChars          int       `json:"sent_chars"`
	NaiveTokens        int       `json:"naive_tokens"`
	SentTokens         int       `json:"sent_tokens"`
	SavedTokens        int       `json:"saved_tokens"`
	Refs               int       `json:"refs"`
	SeenRefs           int       `json:"seen_refs"`
	Lossless           int       `json:"lossless"`
	Ingested           int       `json:"ingested"`
	AutoRestores       int       `json:"auto_restores"`
	PageFaults         int       `json:"page_faults"`
	Epoch              bool      `json:"epoch,omitempty"`
	CachedPrefixTokens int       `json:"cached_prefix_tokens"`
	DietMicros         int64     `json:"diet_us"`
}

// AppendStats appends events to the stats log in one transaction.
func (v *Vault) AppendStats(events ...DietEvent) error {
	if len(events) == 0 {
		return nil
	}
	return v.update(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketStats)
		for _, e := range events {
			seq, err := sb.NextSequence()
			if err != nil {
				return fmt.Errorf("vault: stats sequence: %w", err)
			}
			raw, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("vault: encode stats: %w", err)
			}
			if err := sb.Put(binary.BigEndian.AppendUint64(nil, seq), raw); err != nil {
				return fmt.Errorf("vault: put stats: %w", err)
			}
		}
		return nil
	})
}

// Stats calls fn with every logged event, oldest first.
func (v *Vault) Stats(fn func(DietEvent) error) error {
	return v.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketStats).ForEach(func(_, raw []byte) error {
			var e DietEvent
			if err := json.Unmarshal(raw, &e); err != nil {
				return fmt.Errorf("%w: stats entry: %v", ErrCorrupt, err)
			}
			return fn(e)
		})
	})
}
