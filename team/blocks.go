package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/vault"
)

// BlocksConfig configures the sharing of a vault's blocks.
type BlocksConfig struct {
	// Bucket is the team's object store; "KWS_VAULT" when empty.
	Bucket string
	// Replicas is how many members keep each block; 1 when 0.
	Replicas int
	// Since is when this member joined: blocks stored before are its own
	// and are not published by the first sync.
	Since time.Time
}

// blockQueue bounds the blocks waiting to be published; past it they
// wait for the next sync.
const blockQueue = 256

// fetchTimeout bounds one fetch of a block from the team.
const fetchTimeout = 30 * time.Second

// Blocks shares a member's vault with the team through an object store
// named by block id: blocks stored here are published (sensitive ones
// never), blocks published by others are kept here as they arrive, and
// the vault fetches a block it lacks from the store (vault.Remote). Each
// block is checked against its hash before the vault keeps it.
type Blocks struct {
	store jetstream.ObjectStore
	v     *vault.Vault
	cfg   BlocksConfig
	log   *slog.Logger

	queue chan string
	// resync is set when the queue overflowed: the publisher then walks
	// the vault for what the team lacks.
	resync chan struct{}
	// kept holds the ids of blocks taken from the team, which the vault
	// then announces as stored: they are not published back.
	kept sync.Map

	stopStored func()
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	ready      chan struct{}
}

// OpenBlocks creates or binds the team's object store and starts sharing
// v through it: the vault fetches from it from now on; a first sync
// publishes the blocks stored since cfg.Since that the team lacks and
// keeps those of the team this vault lacks (Synced tells when).
func OpenBlocks(ctx context.Context, js jetstream.JetStream, v *vault.Vault, cfg BlocksConfig, log *slog.Logger) (*Blocks, error) {
	if cfg.Bucket == "" {
		cfg.Bucket = "KWS_VAULT"
	}
	store, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      cfg.Bucket,
		Description: "kws: the team's vault blocks, by id",
		Replicas:    max(1, cfg.Replicas),
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("team: the blocks' store: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	b := &Blocks{store: store, v: v, cfg: cfg, log: log, queue: make(chan string, blockQueue),
		resync: make(chan struct{}, 1), cancel: cancel, ready: make(chan struct{})}
	b.stopStored = v.OnStored(b.stored)
	v.SetRemote(b)
	b.resync <- struct{}{}
	b.wg.Add(2)
	go b.publish(runCtx)
	go b.receive(runCtx)
	return b, nil
}

// Synced is closed once the store's list has been gone through the first
// time; a block that could not be kept yet is tried again after.
func (b *Blocks) Synced() <-chan struct{} { return b.ready }

// Close stops sharing: the vault no longer fetches from the team and new
// blocks are no longer published.
func (b *Blocks) Close() error {
	b.v.SetRemote(nil)
	b.stopStored()
	b.cancel()
	b.wg.Wait()
	return nil
}

// stored hears the vault store a block.
func (b *Blocks) stored(_ []byte, m vault.Meta) {
	if m.Sensitive {
		return
	}
	if _, ok := b.kept.LoadAndDelete(m.ID); ok {
		return
	}
	select {
	case b.queue <- m.ID:
	default:
		select {
		case b.resync <- struct{}{}:
		default:
		}
	}
}

// publish puts queued blocks in the team's store, and on a resync every
// block since cfg.Since that it lacks. A block that could not be put (no
// majority of the members answered) is put by a resync after a pause.
func (b *Blocks) publish(ctx context.Context) {
	defer b.wg.Done()
	var retry <-chan time.Time
	pause := time.Second
	failed := func(err error) {
		if err == nil {
			pause = time.Second
			return
		}
		if retry == nil {
			retry = time.After(pause)
			pause = min(2*pause, 30*time.Second)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-b.queue:
			failed(b.put(ctx, id))
		case <-b.resync:
			failed(b.sync(ctx))
		case <-retry:
			retry = nil
			failed(b.sync(ctx))
		}
	}
}

// sync publishes the vault's blocks since cfg.Since that the team lacks,
// and returns the first error.
func (b *Blocks) sync(ctx context.Context) error {
	var ids []string
	err := b.v.List(func(m vault.Meta) error {
		if !m.Sensitive && !m.Created.Before(b.cfg.Since) {
			ids = append(ids, m.ID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("team: list the vault: %w", err)
	}
	var first error
	for _, id := range ids {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := b.put(ctx, id); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// put publishes block id unless the team has it or it is sensitive.
func (b *Blocks) put(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	if _, err := b.store.GetInfo(ctx, id); err == nil {
		return nil
	}
	m, err := b.v.Meta(id)
	if err != nil || m.Sensitive {
		return nil
	}
	if err := b.publishBlock(ctx, m, ""); err != nil {
		b.log.Warn("team: publish a block; it is tried again", "id", id, "error", err)
		return err
	}
	return nil
}

// publishBlock puts the vault's block m.ID in the team's store; sharedBy,
// when set, marks a sensitive block the user chose to share.
func (b *Blocks) publishBlock(ctx context.Context, m vault.Meta, sharedBy string) error {
	data, err := b.v.Get(m.ID)
	if err != nil {
		return err
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	md := map[string]string{"meta": string(meta)}
	if sharedBy != "" {
		md["shared"] = sharedBy
	}
	_, err = b.store.Put(ctx, jetstream.ObjectMeta{Name: m.ID, Metadata: md}, bytes.NewReader(data))
	return err
}

// Share publishes block id even when it is sensitive: the user said the
// team may have it. The other members keep it marked sensitive, so it
// shows only to the workspaces that stored it.
func (b *Blocks) Share(ctx context.Context, id, member string) error {
	m, err := b.v.Meta(id)
	if err != nil {
		return err
	}
	if err := b.publishBlock(ctx, m, member); err != nil {
		return fmt.Errorf("team: share %s: %w", m.ID, err)
	}
	return nil
}

// receive keeps each block the team has and this vault lacks: those
// already there when it starts, then each as it is published. When the
// watch ends, it watches again after a pause: the store's whole list
// comes first, so nothing missed stays missing.
func (b *Blocks) receive(ctx context.Context) {
	defer b.wg.Done()
	var once sync.Once
	synced := func() { once.Do(func() { close(b.ready) }) }
	defer synced()
	for pause := time.Second; ctx.Err() == nil; pause = min(2*pause, 30*time.Second) {
		if err := b.watch(ctx, synced); err != nil && ctx.Err() == nil {
			b.log.Warn("team: receive blocks; watching again", "in", pause, "error", err)
		} else {
			pause = time.Second
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

// keepTries bounds the tries to keep one block a watch announced: a
// replica may answer before it has the object, for a moment.
const keepTries = 60

// watch keeps the blocks of one watch of the store until the watch ends
// or ctx does; synced runs at the end of the store's list. A block that
// cannot be kept yet is tried again every second, keepTries times.
func (b *Blocks) watch(ctx context.Context, synced func()) error {
	w, err := b.store.Watch(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	failed := map[string]int{}
	keep := func(id string) {
		if b.v.Has(id) {
			delete(failed, id)
			return
		}
		kctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		_, _, err := b.keep(kctx, id)
		cancel()
		switch {
		case err == nil:
			delete(failed, id)
		case failed[id]+1 >= keepTries:
			delete(failed, id)
			b.log.Warn("team: a block the team announced could not be kept; the next start tries again", "id", id, "error", err)
		default:
			failed[id]++
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			for id := range failed {
				keep(id)
			}
		case info, ok := <-w.Updates():
			if !ok {
				return errors.New("the watch ended")
			}
			if info == nil {
				synced()
				continue
			}
			if !info.Deleted {
				keep(info.Name)
			}
		}
	}
}

// Fetch returns block id from the team's store (vault.Remote); the vault
// checks and keeps it.
func (b *Blocks) Fetch(id string) ([]byte, vault.Meta, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	var data []byte
	var m vault.Meta
	var err error
	// A replica that has not caught up may answer "no such object" for
	// a block just published: a miss is asked again twice.
	for try := range 3 {
		if data, m, err = b.get(ctx, id); !errors.Is(err, vault.ErrNotFound) || try == 2 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err == nil {
		b.kept.Store(vault.IDFor(data), true)
	}
	return data, m, err
}

// keep fetches block id and stores it in the vault.
func (b *Blocks) keep(ctx context.Context, id string) ([]byte, vault.Meta, error) {
	data, m, err := b.get(ctx, id)
	if err != nil {
		return nil, m, err
	}
	if err := vault.CheckBlock(id, data); err != nil {
		return nil, m, err
	}
	b.kept.Store(vault.IDFor(data), true)
	m.ID = ""
	if _, err := b.v.Put(data, m); err != nil {
		b.kept.Delete(vault.IDFor(data))
		return nil, m, err
	}
	return data, m, nil
}

// get reads block id and its metadata from the team's store.
func (b *Blocks) get(ctx context.Context, id string) ([]byte, vault.Meta, error) {
	var m vault.Meta
	info, err := b.store.GetInfo(ctx, id)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, m, fmt.Errorf("%w: %s (not in the team's store either)", vault.ErrNotFound, id)
	}
	if err != nil {
		return nil, m, err
	}
	if raw := info.Metadata["meta"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, m, fmt.Errorf("team: block %s: its metadata: %w", id, err)
		}
	}
	if m.Sensitive && info.Metadata["shared"] == "" {
		return nil, m, fmt.Errorf("%w: %s", vault.ErrNotFound, id)
	}
	data, err := b.store.GetBytes(ctx, id)
	if err != nil {
		return nil, m, err
	}
	return data, m, nil
}
