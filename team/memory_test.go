package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/memory"
)

// memProject is the project scope the memory tests share.
var memProject = memory.ProjectScope("/home/dev/src/kws")

// memWait is how long a test waits for a state before it fails.
const memWait = teamWait

// memChanges records the changes a store's OnChange hears.
type memChanges struct {
	mu  sync.Mutex
	got []memory.Change
}

func (c *memChanges) hear(ch memory.Change) {
	c.mu.Lock()
	c.got = append(c.got, ch)
	c.mu.Unlock()
}

// list returns what was heard so far, as "op id" with "applied " before
// the changes made by Apply.
func (c *memChanges) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, ch := range c.got {
		s := string(ch.Op) + " " + ch.Memory.ID
		if ch.Applied {
			s = "applied " + s
		}
		out = append(out, s)
	}
	return out
}

// openTestMemoryStore opens a memory store on a temp dir, with the
// default hashing embedder, and records the changes it hears.
func openTestMemoryStore(tb testing.TB) (*memory.Store, *memChanges) {
	tb.Helper()
	s, err := memory.Open(tb.TempDir(), memory.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	log := new(memChanges)
	s.OnChange(log.hear)
	return s, log
}

// memJetStream connects to ns in process (a member's own connection).
func memJetStream(tb testing.TB, ns *natsserver.Server) jetstream.JetStream {
	tb.Helper()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	return js
}

// openTestMemory shares store as member through js.
func openTestMemory(tb testing.TB, js jetstream.JetStream, store MemoryStore, cfg MemoryConfig) *MemorySync {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ms, err := OpenMemory(ctx, js, store, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ms.Close() })
	return ms
}

// memWaitFor polls cond until it holds, failing the test after memWait.
func memWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually(t, what, memWait, func() error {
		if cond() {
			return nil
		}
		return errors.New("not yet")
	})
}

// memCaughtUp waits until member's consumer has acked everything the
// stream holds.
func memCaughtUp(t *testing.T, js jetstream.JetStream, member string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), memWait)
	defer cancel()
	memWaitFor(t, member+" to ack the whole stream", func() bool {
		c, err := js.Consumer(ctx, memoryDefaultStream, member)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
}

// memHas reports whether s holds memory id with text.
func memHas(s *memory.Store, id, text string) bool {
	m, err := s.Get(id)
	return err == nil && m.Text == text
}

// memGone reports whether s no longer holds memory id.
func memGone(s *memory.Store, id string) bool {
	_, err := s.Get(id)
	return errors.Is(err, memory.ErrNotFound)
}

// memStream returns the changes the stream holds, as "subject op id".
func memStream(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), memWait)
	defer cancel()
	st, err := js.Stream(ctx, memoryDefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		raw, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		var m memoryMsg
		if err := json.Unmarshal(raw.Data, &m); err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		if !memory.IsProject(m.Memory.Scope) {
			t.Errorf("message %d carries a memory of scope %s", seq, m.Memory.Scope)
		}
		if raw.Subject != memorySubjectPrefix+m.Member {
			t.Errorf("message %d of %s on %s", seq, m.Member, raw.Subject)
		}
		out = append(out, raw.Subject+" "+string(m.Op)+" "+m.Memory.ID)
	}
	return out
}

// TestMemorySharedAcrossMembers has two members with their own stores:
// project memories saved, changed and deleted on one follow on the other
// with their ids and texts, a global one stays home, and nothing comes
// back to the member that made a change.
func TestMemorySharedAcrossMembers(t *testing.T) {
	ctx := context.Background()
	ns := boardServer(t)
	js1, js2 := memJetStream(t, ns), memJetStream(t, ns)
	s1, log1 := openTestMemoryStore(t)
	s2, log2 := openTestMemoryStore(t)
	openTestMemory(t, js1, s1, MemoryConfig{Member: "m1"})
	openTestMemory(t, js2, s2, MemoryConfig{Member: "m2"})

	m, err := s1.Add(ctx, memory.Memory{Text: "the API server listens on port 8080", Kind: "path", Scope: memProject})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s1.Add(ctx, memory.Memory{Text: "I prefer table-driven tests", Kind: "preference", Scope: memory.GlobalScope})
	if err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "m2 to get the project memory", func() bool { return memHas(s2, m.ID, m.Text) })
	got, err := s2.Get(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != m.ID || got.Text != m.Text || got.Scope != m.Scope || got.Kind != m.Kind ||
		!got.Created.Equal(m.Created) || !got.Updated.Equal(m.Updated) {
		t.Fatalf("m2 holds %+v, want %+v", got, m)
	}
	if hits, err := s2.Search(ctx, "which port does the API server listen on", []string{memProject}, 1); err != nil || len(hits) != 1 || hits[0].ID != m.ID {
		t.Fatalf("m2 searching for it finds %+v, %v", hits, err)
	}

	m.Text = "the API server listens on port 9090"
	if _, err := s1.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "m2 to get the change", func() bool { return memHas(s2, m.ID, m.Text) })
	if err := s1.Delete(m.ID); err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "m2 to delete the memory", func() bool { return memGone(s2, m.ID) })

	// The other way: m2's project memory reaches m1.
	back, err := s2.Add(ctx, memory.Memory{Text: "releases are tagged vX.Y.Z", Kind: "decision", Scope: memProject})
	if err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "m1 to get m2's memory", func() bool { return memHas(s1, back.ID, back.Text) })

	memCaughtUp(t, js1, "m1")
	memCaughtUp(t, js2, "m2")
	if !memGone(s2, g.ID) || s2.Count(memory.GlobalScope) != 0 {
		t.Fatalf("the global memory reached m2")
	}
	if n := s2.Count(); n != 1 {
		t.Fatalf("m2 holds %d memories, want 1", n)
	}
	// Each change is published once, by the member that made it.
	wantStream := []string{
		"kws.memory.m1 save " + m.ID,
		"kws.memory.m1 save " + m.ID,
		"kws.memory.m1 delete " + m.ID,
		"kws.memory.m2 save " + back.ID,
	}
	if got := memStream(t, js1); strings.Join(got, "\n") != strings.Join(wantStream, "\n") {
		t.Fatalf("the stream holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantStream, "\n"))
	}
	// Each store hears its own changes once and the other's once, applied.
	want1 := []string{"save " + m.ID, "save " + g.ID, "save " + m.ID, "delete " + m.ID, "applied save " + back.ID}
	want2 := []string{"applied save " + m.ID, "applied save " + m.ID, "applied delete " + m.ID, "save " + back.ID}
	if got := log1.list(); strings.Join(got, ",") != strings.Join(want1, ",") {
		t.Errorf("m1 heard %v, want %v", got, want1)
	}
	if got := log2.list(); strings.Join(got, ",") != strings.Join(want2, ",") {
		t.Errorf("m2 heard %v, want %v", got, want2)
	}
}

// TestMemoryCatchUp closes one member's sync while the other changes
// memories: reopened under the same name, it applies what it missed, and
// only that.
func TestMemoryCatchUp(t *testing.T) {
	ctx := context.Background()
	ns := boardServer(t)
	js1, js2 := memJetStream(t, ns), memJetStream(t, ns)
	s1, _ := openTestMemoryStore(t)
	s2, log2 := openTestMemoryStore(t)
	openTestMemory(t, js1, s1, MemoryConfig{Member: "m1"})
	sync2 := openTestMemory(t, js2, s2, MemoryConfig{Member: "m2"})

	early, err := s1.Add(ctx, memory.Memory{Text: "the CI runs on every push", Scope: memProject})
	if err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "m2 to get the first memory", func() bool { return memHas(s2, early.ID, early.Text) })
	memCaughtUp(t, js2, "m2")
	if err := sync2.Close(); err != nil {
		t.Fatal(err)
	}
	before := len(log2.list())

	var saved []memory.Memory
	for _, text := range []string{"the docs live in docs/", "tests use the race detector", "the linter is golangci-lint"} {
		m, err := s1.Add(ctx, memory.Memory{Text: text, Scope: memProject})
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, m)
	}
	if err := s1.Delete(saved[1].ID); err != nil {
		t.Fatal(err)
	}
	// m1 has published them all while m2 was away.
	memWaitFor(t, "the stream to hold the 5 changes", func() bool { return len(memStream(t, js1)) == 5 })
	if got := log2.list(); len(got) != before {
		t.Fatalf("m2 heard %v while closed", got[before:])
	}

	openTestMemory(t, js2, s2, MemoryConfig{Member: "m2"})
	memWaitFor(t, "m2 to catch up", func() bool {
		return memHas(s2, saved[0].ID, saved[0].Text) && memHas(s2, saved[2].ID, saved[2].Text) && memGone(s2, saved[1].ID)
	})
	memCaughtUp(t, js2, "m2")
	if n := s2.Count(memProject); n != 3 {
		t.Fatalf("m2 holds %d project memories, want the first and the 2 remaining", n)
	}
	// The reopened consumer resumed: the first memory was not applied
	// again.
	want := []string{"applied save " + saved[0].ID, "applied save " + saved[1].ID,
		"applied save " + saved[2].ID, "applied delete " + saved[1].ID}
	if got := log2.list()[before:]; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("after reopening m2 heard %v, want %v", got, want)
	}
}

// memLog is a slog handler that keeps the messages logged.
type memLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *memLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *memLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(&l.buf, r.Message)
	return nil
}

func (l *memLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *memLog) WithGroup(string) slog.Handler      { return l }

func (l *memLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

// TestMemoryOutboxWhileUnreachable saves a project memory while the
// team's server is down: it waits in the outbox and reaches the other
// member once the server is back.
func TestMemoryOutboxWhileUnreachable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := &natsserver.Options{ServerName: "t", JetStream: true, StoreDir: dir,
		Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, NoSigs: true, NoLog: true}
	start := func() *natsserver.Server {
		t.Helper()
		ns, err := natsserver.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		ns.Start()
		if !ns.ReadyForConnections(10 * time.Second) {
			t.Fatal("nats server not ready")
		}
		return ns
	}
	ns := start()
	// The server comes back on the same port.
	opts.Port = ns.Addr().(*net.TCPAddr).Port
	url := ns.ClientURL()
	connect := func() jetstream.JetStream {
		t.Helper()
		nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond),
			nats.ReconnectBufSize(-1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	js1, js2 := connect(), connect()
	s1, _ := openTestMemoryStore(t)
	s2, _ := openTestMemoryStore(t)
	log1 := new(memLog)
	sync1 := openTestMemory(t, js1, s1, MemoryConfig{Member: "m1", Log: slog.New(log1)})
	openTestMemory(t, js2, s2, MemoryConfig{Member: "m2"})

	ns.Shutdown()
	ns.WaitForShutdown()
	m, err := s1.Add(ctx, memory.Memory{Text: "saved while the team was away", Scope: memProject})
	if err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "a failed publish", func() bool { return log1.has("cannot publish a memory change") })
	if n := sync1.Pending(); n != 1 {
		t.Fatalf("the outbox holds %d changes, want 1", n)
	}

	ns = start()
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	memWaitFor(t, "m2 to get the memory", func() bool { return memHas(s2, m.ID, m.Text) })
	if n := sync1.Pending(); n != 0 {
		t.Fatalf("the outbox still holds %d changes", n)
	}
}

// TestMemoryClose checks OpenMemory's refusals and that Close leaves no
// goroutine behind.
func TestMemoryClose(t *testing.T) {
	js := memJetStream(t, boardServer(t))
	s, _ := openTestMemoryStore(t)
	for _, cfg := range []MemoryConfig{{}, {Member: "a.b"}, {Member: "m>"}} {
		if ms, err := OpenMemory(context.Background(), js, s, cfg); err == nil {
			_ = ms.Close()
			t.Errorf("OpenMemory(%+v) succeeded", cfg)
		}
	}
	// The first MemorySync creates the stream and the durable consumer,
	// whose goroutines the server runs.
	first := openTestMemory(t, js, s, MemoryConfig{Member: "m1"})
	_ = first.Close()
	before := runtime.NumGoroutine()
	ms := openTestMemory(t, js, s, MemoryConfig{Member: "m1"})
	if _, err := s.Add(context.Background(), memory.Memory{Text: "closing soon", Scope: memProject}); err != nil {
		t.Fatal(err)
	}
	memWaitFor(t, "the outbox to empty", func() bool { return ms.Pending() == 0 })
	if err := ms.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ms.Close(); err != nil {
		t.Fatal(err)
	}
	// Changes after Close are not queued.
	if _, err := s.Add(context.Background(), memory.Memory{Text: "after close", Scope: memProject}); err != nil {
		t.Fatal(err)
	}
	if n := ms.Pending(); n != 0 {
		t.Fatalf("%d changes queued after Close", n)
	}
	waitGoroutines(t, before)
}
