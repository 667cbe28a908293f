package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/memory"
)

// Memory sharing defaults and limits.
const (
	memoryDefaultStream = "KWS_MEMORY"
	// memorySubjects are the stream's subjects; each member publishes on
	// memorySubjectPrefix and its name.
	memorySubjects      = "kws.memory.>"
	memorySubjectPrefix = "kws.memory."
	memoryDefaultOutbox = 1024
	// memoryCallTimeout bounds one publish and one (re)binding of the
	// stream and the consumer.
	memoryCallTimeout = 5 * time.Second
	// memoryFlushTimeout bounds how long Close tries to publish what the
	// outbox still holds.
	memoryFlushTimeout = 2 * time.Second
	// memoryAckWait is how long the stream waits for the ack of a change
	// delivered to a member before it delivers it again.
	memoryAckWait = 30 * time.Second
	// memoryRetryMin and memoryRetryMax bound the wait between retries of
	// a publish, an apply or a binding that failed.
	memoryRetryMin = 100 * time.Millisecond
	memoryRetryMax = 5 * time.Second
)

// MemoryStore is the memory store a MemorySync shares; *memory.Store
// implements it.
type MemoryStore interface {
	// OnChange registers fn to hear each memory the store saves or
	// deletes, in order, and returns the function that unregisters it.
	OnChange(fn func(memory.Change)) (cancel func())
	// Apply makes a change that another member made, keeping the
	// memory's id and content, and reports whether it changed anything.
	// Its listeners hear the change with Applied set.
	Apply(ctx context.Context, c memory.Change) (bool, error)
}

// MemoryConfig configures the sharing of project memories opened with
// OpenMemory.
type MemoryConfig struct {
	// Stream is the name of the JetStream stream that carries the
	// changes; "KWS_MEMORY" when empty.
	Stream string
	// Replicas is the number of the stream's replicas; 1 when 0.
	Replicas int
	// Member is this kws server's member name in the team (see
	// CheckMember). It names the subject this member publishes on and
	// its durable consumer, so that a member that restarts under the same
	// name resumes where it stopped.
	Member string
	// Outbox bounds the local changes waiting to be published while the
	// stream cannot be reached; 1024 when 0. Past it the oldest is
	// dropped.
	Outbox int
	// Log receives warnings (changes dropped or refused, the stream
	// unreachable); nil discards them.
	Log *slog.Logger
}

// MemorySync shares the project memories of a member's store with the
// team through a JetStream stream.
//
// Each project memory the store saves or deletes is published on
// "kws.memory.<member>" as JSON {op, member, memory}; global memories,
// which are personal, never leave the host. A durable consumer named
// after the member reads the whole stream, first from its beginning, then,
// after a restart, from where the member stopped; it skips the member's
// own changes and applies the others to the store (memory.Store.Apply),
// acking each once it is applied, in the stream's order. The change a
// store makes through Apply is heard with Applied set and is not published
// again, so nothing echoes. When two members change one memory, the
// change with the later Updated time wins on every member.
//
// Local changes wait in a bounded outbox until the stream takes them,
// retried in the background while the team cannot be reached; the outbox
// lives in memory only and is lost if the process ends before the team
// is reached again. Memories saved while no MemorySync runs are not
// published. A MemorySync is safe for many goroutines.
type MemorySync struct {
	js      jetstream.JetStream
	store   MemoryStore
	cfg     MemoryConfig
	subject string
	log     *slog.Logger
	// boot tells this MemorySync's message ids from those of earlier
	// runs, for the stream's duplicate detection.
	boot string

	stopListen func()

	mu      sync.Mutex
	outbox  []memoryOut // oldest first, one per memory
	nextSeq uint64
	wake    chan struct{}

	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	closing   chan struct{} // closed by Close: the publisher flushes and ends
	wg        sync.WaitGroup
	closeOnce sync.Once

	// Owned by the receiving goroutine.
	cons    jetstream.Consumer
	applied uint64 // stream sequence of the last change handled
}

// memoryOut is a local change waiting to be published.
type memoryOut struct {
	seq uint64
	key string // scope and id of the memory
	msg memoryMsg
}

// memoryMsg is the message of one change on the stream.
type memoryMsg struct {
	Op     memory.ChangeOp `json:"op"`
	Member string          `json:"member"`
	Memory memory.Memory   `json:"memory"`
}

// OpenMemory creates the team's memory stream in js, or binds to it when
// it exists, binds this member's durable consumer (creating it to read
// from the stream's beginning) and starts sharing store's project
// memories: publishing its changes and applying those of the other
// members. Close the MemorySync to stop.
func OpenMemory(ctx context.Context, js jetstream.JetStream, store MemoryStore, cfg MemoryConfig) (*MemorySync, error) {
	if err := CheckMember(cfg.Member); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, errors.New("team: memory sync needs a store")
	}
	if cfg.Stream == "" {
		cfg.Stream = memoryDefaultStream
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Outbox <= 0 {
		cfg.Outbox = memoryDefaultOutbox
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	var boot [4]byte
	rand.Read(boot[:]) // never fails: crypto/rand crashes the program instead
	s := &MemorySync{
		js:      js,
		store:   store,
		cfg:     cfg,
		subject: memorySubjectPrefix + cfg.Member,
		log:     cfg.Log,
		boot:    hex.EncodeToString(boot[:]),
		wake:    make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	cons, err := s.bind(ctx)
	if err != nil {
		return nil, err
	}
	s.cons = cons
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.stopListen = store.OnChange(s.heard)
	s.wg.Add(2)
	go s.publishLoop()
	go s.receiveLoop()
	return s, nil
}

// Close stops publishing and applying. It first tries, for a short
// while, to publish what the outbox holds; what it could not publish is
// lost. It waits for the MemorySync's goroutines and may be called more
// than once.
func (s *MemorySync) Close() error {
	s.closeOnce.Do(func() {
		s.stopListen()
		s.cancel()
		close(s.closing)
		s.wg.Wait()
	})
	return nil
}

// Pending returns how many local changes wait in the outbox to be
// published.
func (s *MemorySync) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.outbox)
}

// bind creates or updates the stream and this member's durable consumer.
func (s *MemorySync) bind(ctx context.Context) (jetstream.Consumer, error) {
	stream, err := s.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        s.cfg.Stream,
		Description: "kws: the team's project memories, saved and deleted",
		Subjects:    []string{memorySubjects},
		Storage:     jetstream.FileStorage,
		Replicas:    s.cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("team: open memory stream %s: %w", s.cfg.Stream, err)
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       s.cfg.Member,
		Description:   "kws: the memories member " + s.cfg.Member + " applies",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       memoryAckWait,
		// One change at a time: the next is delivered once this one is
		// acked, so changes apply in the stream's order, after a
		// redelivery too.
		MaxAckPending: 1,
		FilterSubject: memorySubjects,
	})
	if err != nil {
		return nil, fmt.Errorf("team: memory consumer %s: %w", s.cfg.Member, err)
	}
	return cons, nil
}

// heard takes a change of the store into the outbox. It runs while the
// store is locked, so it only queues.
func (s *MemorySync) heard(c memory.Change) {
	if c.Applied || !memory.IsProject(c.Memory.Scope) {
		return
	}
	key := c.Memory.Scope + "\x00" + c.Memory.ID
	s.mu.Lock()
	// A later change of a memory replaces the one still waiting: the
	// team only needs the last.
	for i, o := range s.outbox {
		if o.key == key {
			s.outbox = append(s.outbox[:i], s.outbox[i+1:]...)
			break
		}
	}
	s.nextSeq++
	s.outbox = append(s.outbox, memoryOut{seq: s.nextSeq, key: key,
		msg: memoryMsg{Op: c.Op, Member: s.cfg.Member, Memory: c.Memory}})
	var dropped memoryOut
	full := len(s.outbox) > s.cfg.Outbox
	if full {
		dropped = s.outbox[0]
		s.outbox = s.outbox[1:]
	}
	s.mu.Unlock()
	if full {
		s.log.Warn("team: memory outbox full; a change is not shared",
			"op", dropped.msg.Op, "id", dropped.msg.Memory.ID, "limit", s.cfg.Outbox)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// head returns the oldest change in the outbox.
func (s *MemorySync) head() (memoryOut, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.outbox) == 0 {
		return memoryOut{}, false
	}
	return s.outbox[0], true
}

// sent takes the change seq out of the outbox, unless a later change of
// its memory replaced it meanwhile.
func (s *MemorySync) sent(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.outbox {
		if o.seq == seq {
			s.outbox = append(s.outbox[:i], s.outbox[i+1:]...)
			return
		}
	}
}

// publishLoop publishes the outbox in order, retrying with a growing
// wait while the stream cannot be reached, until Close, which it answers
// with a last flush.
func (s *MemorySync) publishLoop() {
	defer s.wg.Done()
	retry := time.Duration(0)
	for {
		o, ok := s.head()
		if !ok {
			select {
			case <-s.closing:
				return
			case <-s.wake:
			}
			continue
		}
		err := s.publish(s.ctx, o)
		if err == nil {
			s.sent(o.seq)
			if retry > 0 {
				s.log.Info("team: memory stream reachable again; outbox flowing")
			}
			retry = 0
			continue
		}
		if s.ctx.Err() != nil {
			s.flush()
			return
		}
		if retry == 0 {
			s.log.Warn("team: cannot publish a memory change; retrying", "error", err)
		}
		retry = min(max(2*retry, memoryRetryMin), memoryRetryMax)
		t := time.NewTimer(retry)
		select {
		case <-s.closing:
			t.Stop()
			s.flush()
			return
		case <-t.C:
		}
	}
}

// flush tries for a short while to publish what the outbox holds.
func (s *MemorySync) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), memoryFlushTimeout)
	defer cancel()
	for ctx.Err() == nil {
		o, ok := s.head()
		if !ok {
			return
		}
		if err := s.publish(ctx, o); err != nil {
			break
		}
		s.sent(o.seq)
	}
	if n := s.Pending(); n > 0 {
		s.log.Warn("team: memory changes not shared before close", "count", n)
	}
}

// publish puts change o on the stream.
func (s *MemorySync) publish(ctx context.Context, o memoryOut) error {
	data, err := json.Marshal(o.msg)
	if err != nil {
		return fmt.Errorf("team: encode memory change: %w", err)
	}
	msg := nats.NewMsg(s.subject)
	msg.Data = data
	ctx, cancel := context.WithTimeout(ctx, memoryCallTimeout)
	defer cancel()
	_, err = s.js.PublishMsg(ctx, msg, jetstream.WithExpectStream(s.cfg.Stream),
		jetstream.WithMsgID(s.cfg.Member+"-"+s.boot+"-"+strconv.FormatUint(o.seq, 10)))
	if err != nil {
		return fmt.Errorf("team: publish memory change %s: %w", o.msg.Memory.ID, err)
	}
	return nil
}

// receiveLoop applies the changes the consumer delivers until Close,
// binding the consumer again whenever its delivery ends.
func (s *MemorySync) receiveLoop() {
	defer s.wg.Done()
	retry := time.Duration(0)
	for s.ctx.Err() == nil {
		if s.cons == nil {
			ctx, cancel := context.WithTimeout(s.ctx, memoryCallTimeout)
			cons, err := s.bind(ctx)
			cancel()
			if err != nil {
				retry = min(max(2*retry, memoryRetryMin), memoryRetryMax)
				if retry == memoryRetryMin {
					s.log.Warn("team: cannot bind the memory consumer; retrying", "error", err)
				}
				if !memorySleep(s.ctx, retry) {
					return
				}
				continue
			}
			s.cons = cons
		}
		it, err := s.cons.Messages()
		if err != nil {
			s.log.Warn("team: read the memory stream", "error", err)
			s.cons = nil
			continue
		}
		if s.drain(it) > 0 {
			retry = 0
		}
		memoryStopIter(it)
		s.cons = nil
		if s.ctx.Err() == nil {
			retry = min(max(2*retry, memoryRetryMin), memoryRetryMax)
			if !memorySleep(s.ctx, retry) {
				return
			}
		}
	}
}

// drain handles what it delivers until it ends or Close, and returns
// how many changes it handled.
func (s *MemorySync) drain(it jetstream.MessagesContext) int {
	for n := 0; ; n++ {
		msg, err := it.Next(jetstream.NextContext(s.ctx))
		if err != nil {
			if s.ctx.Err() == nil {
				s.log.Warn("team: the memory stream's delivery ended; binding again", "error", err)
			}
			return n
		}
		if !s.handle(msg) {
			return n
		}
	}
}

// handle applies one delivered change, then acks it. Its own changes and
// those delivered again are acked at once; a change that can never apply
// is logged and terminated. A change that fails otherwise is retried
// until it applies or Close, which leaves it to be delivered again; it
// reports false then.
func (s *MemorySync) handle(msg jetstream.Msg) bool {
	var seq uint64
	if md, err := msg.Metadata(); err == nil {
		seq = md.Sequence.Stream
		if seq <= s.applied {
			_ = msg.Ack()
			return true
		}
	}
	var m memoryMsg
	if err := json.Unmarshal(msg.Data(), &m); err != nil {
		s.refuse(msg, seq, fmt.Errorf("team: decode memory change: %w", err))
		return true
	}
	if m.Member == s.cfg.Member || msg.Subject() == s.subject {
		s.done(msg, seq)
		return true
	}
	switch {
	case m.Op != memory.ChangeSave && m.Op != memory.ChangeDelete:
		s.refuse(msg, seq, fmt.Errorf("team: memory change from %s: unknown op %q", m.Member, m.Op))
		return true
	case !memory.IsProject(m.Memory.Scope):
		s.refuse(msg, seq, fmt.Errorf("team: memory change from %s: %s is no project memory", m.Member, m.Memory.ID))
		return true
	}
	retry := time.Duration(0)
	for {
		_, err := s.store.Apply(s.ctx, memory.Change{Op: m.Op, Memory: m.Memory})
		if err == nil {
			s.done(msg, seq)
			return true
		}
		if memoryPermanent(err) {
			s.refuse(msg, seq, fmt.Errorf("team: memory change from %s: %w", m.Member, err))
			return true
		}
		if s.ctx.Err() != nil {
			return false
		}
		if retry == 0 {
			s.log.Warn("team: cannot apply a memory change; retrying", "id", m.Memory.ID, "from", m.Member, "error", err)
		}
		_ = msg.InProgress()
		retry = min(max(2*retry, memoryRetryMin), memoryRetryMax)
		if !memorySleep(s.ctx, retry) {
			return false
		}
	}
}

// done acks a handled change.
func (s *MemorySync) done(msg jetstream.Msg, seq uint64) {
	_ = msg.Ack()
	if seq > s.applied {
		s.applied = seq
	}
}

// refuse logs a change that can never apply and tells the stream not to
// deliver it again.
func (s *MemorySync) refuse(msg jetstream.Msg, seq uint64, err error) {
	s.log.Warn("team: memory change refused", "error", err)
	_ = msg.Term()
	if seq > s.applied {
		s.applied = seq
	}
}

// memoryPermanent reports whether Apply's err will recur however often
// the change is tried.
func memoryPermanent(err error) bool {
	for _, e := range []error{memory.ErrBadID, memory.ErrBadScope, memory.ErrBadKind, memory.ErrEmpty, memory.ErrSensitive} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// memoryStopIter stops it and waits a little for it to unsubscribe. The
// channel of Closed closes only if the subscription already ended when
// it is called, so it is asked again until then.
func memoryStopIter(it jetstream.MessagesContext) {
	it.Stop()
	c, ok := it.(interface{ Closed() <-chan struct{} })
	if !ok {
		return
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		select {
		case <-c.Closed():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// memorySleep waits for d; it reports false if ctx ended first.
func memorySleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
