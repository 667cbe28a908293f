package vault

import (
	"errors"
	"fmt"
)

// Remote is where a vault looks for a block it lacks: the store of a team
// of kws servers (package team). Fetch returns the block's exact bytes and
// its metadata, or an error wrapping ErrNotFound when the remote has none.
type Remote interface {
	Fetch(id string) ([]byte, Meta, error)
}

// SetRemote makes Get, WriteTo and Meta fetch a block this vault lacks
// from r, check it against its id (its hash) and keep it; nil looks
// nowhere else. Safe from any goroutine.
func (v *Vault) SetRemote(r Remote) {
	v.remoteMu.Lock()
	v.remote = r
	v.remoteMu.Unlock()
}

// OnStored registers fn to hear of each block stored for the first time
// (not a block put again), after its transaction committed, with its
// bytes; it returns the function that unregisters it. fn runs on the
// putting goroutine and must not block it for long.
func (v *Vault) OnStored(fn func(data []byte, m Meta)) (cancel func()) {
	return v.stored.Listen(func(b Block) { fn(b.Data, b.Meta) })
}

// fetched runs get and, when the block is not here and a remote is set,
// fetches it, keeps it and runs get again.
func fetched[T any](v *Vault, id string, get func() (T, error)) (T, error) {
	out, err := get()
	if !errors.Is(err, ErrNotFound) {
		return out, err
	}
	v.remoteMu.Lock()
	r := v.remote
	v.remoteMu.Unlock()
	if r == nil {
		return out, err
	}
	norm, nerr := NormalizeID(id)
	if nerr != nil {
		return out, err
	}
	data, m, ferr := r.Fetch(norm)
	if ferr != nil {
		if errors.Is(ferr, ErrNotFound) {
			return out, err
		}
		return out, fmt.Errorf("%w (and the team's store: %v)", err, ferr)
	}
	// The bytes must hash to the id asked for: a member cannot hand out
	// other bytes under a block's name.
	if err := verifyBlock(norm, data); err != nil {
		return out, fmt.Errorf("%w (a block fetched from the team)", err)
	}
	m.ID = ""
	if _, err := v.Put(data, m); err != nil {
		return out, err
	}
	return get()
}

// Has reports whether this vault itself holds block id; no remote is
// asked.
func (v *Vault) Has(id string) bool {
	_, err := v.meta(id)
	return err == nil
}

// CheckBlock returns ErrCorrupt unless data hashes to id: what a vault
// takes from elsewhere must be the block it was asked for.
func CheckBlock(id string, data []byte) error { return verifyBlock(id, data) }
