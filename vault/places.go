package vault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// placeMap knows where every block was put from, for recency: each
// conversation's blocks by message index, its length (from its blocks and
// from the diet's stats log, whose events count every message sent), and
// which conversation was active last. It is built from the metadata on
// the first recency query and kept current by every Put after that; the
// stats log is read on from where the last query stopped.
type placeMap struct {
	byID      map[string][]Place
	streams   map[stream][]posRef
	now       map[stream]int
	newest    stream
	newestAt  time.Time
	newestMsg int
	statsKey  []byte
}

// posRef is one place of a block in its conversation.
type posRef struct {
	msg int
	id  string
}

// placedAt is a place a Put recorded, with the block's creation time for a
// new block (zero for a repeat).
type placedAt struct {
	id      string
	place   Place
	created time.Time
}

func (pm *placeMap) add(a placedAt) {
	pl := a.place
	s := stream{pl.Agent, pl.Session}
	if slices.Contains(pm.byID[a.id], pl) {
		return
	}
	pm.byID[a.id] = append(pm.byID[a.id], pl)
	if pl.MsgIndex >= 0 {
		pm.streams[s] = append(pm.streams[s], posRef{pl.MsgIndex, a.id})
		pm.now[s] = max(pm.now[s], pl.MsgIndex+1)
	}
	if !a.created.IsZero() && (pm.newestAt.IsZero() || a.created.After(pm.newestAt) ||
		a.created.Equal(pm.newestAt) && pl.MsgIndex > pm.newestMsg) {
		pm.newest, pm.newestAt, pm.newestMsg = s, a.created, pl.MsgIndex
	}
}

// placesAdd records the places a Put stored, once the map is built.
func (v *Vault) placesAdd(placed []placedAt) {
	v.placeMu.Lock()
	defer v.placeMu.Unlock()
	if v.places == nil {
		return
	}
	for _, a := range placed {
		v.places.add(a)
	}
}

// withPlaces calls fn with the place map, building it first if needed.
func (v *Vault) withPlaces(fn func(*placeMap)) error {
	v.placeMu.Lock()
	defer v.placeMu.Unlock()
	if v.places == nil {
		pm := &placeMap{byID: map[string][]Place{}, streams: map[stream][]posRef{}, now: map[stream]int{}}
		err := v.view(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).ForEach(func(k, raw []byte) error {
				var m struct {
					Place
					Created time.Time `json:"created"`
					Also    []Place   `json:"also"`
				}
				if err := json.Unmarshal(raw, &m); err != nil {
					return fmt.Errorf("%w: block %s: metadata: %v", ErrCorrupt, k, err)
				}
				id := string(k)
				pm.add(placedAt{id: id, place: m.Place, created: m.Created})
				for _, pl := range m.Also {
					pm.add(placedAt{id: id, place: pl})
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		v.places = pm
	}
	if err := v.view(v.places.readStats); err != nil {
		return err
	}
	fn(v.places)
	return nil
}

// readStats reads the stats events logged since the last call: each
// conversation is at least as long as the messages its last call sent.
func (pm *placeMap) readStats(tx *bolt.Tx) error {
	c := tx.Bucket(bucketStats).Cursor()
	k, raw := c.First()
	if pm.statsKey != nil {
		if k, raw = c.Seek(pm.statsKey); k != nil && bytes.Equal(k, pm.statsKey) {
			k, raw = c.Next()
		}
	}
	for ; k != nil; k, raw = c.Next() {
		var e struct {
			Time     time.Time `json:"time"`
			Agent    string    `json:"agent"`
			Session  string    `json:"session"`
			Messages int       `json:"messages"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("%w: stats entry: %v", ErrCorrupt, err)
		}
		s := stream{e.Agent, e.Session}
		pm.now[s] = max(pm.now[s], e.Messages)
		if e.Time.After(pm.newestAt) {
			pm.newest, pm.newestAt, pm.newestMsg = s, e.Time, e.Messages
		}
		pm.statsKey = append(pm.statsKey[:0], k...)
	}
	return nil
}
