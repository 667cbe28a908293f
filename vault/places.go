package vault

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// placeMap knows where every block was put from, for recency: each
// conversation's blocks by message index, its length, and which
// conversation stored the newest block. It is built from the metadata on
// the first recency query and kept current by every Put after that.
type placeMap struct {
	byID      map[string][]Place
	streams   map[stream][]posRef
	now       map[stream]int
	newest    stream
	newestAt  time.Time
	newestMsg int
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
	fn(v.places)
	return nil
}
