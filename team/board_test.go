package team

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/kwsdev/kws/vault"
)

// boardServer starts an embedded JetStream server for one test.
func boardServer(tb testing.TB) *natsserver.Server {
	tb.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{
		ServerName: "t", JetStream: true, StoreDir: tb.TempDir(),
		DontListen: true, NoSigs: true, NoLog: true,
	})
	if err != nil {
		tb.Fatal(err)
	}
	ns.Start()
	tb.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	if !ns.ReadyForConnections(10 * time.Second) {
		tb.Fatal("nats server not ready")
	}
	return ns
}

// openTestBoard opens the board of member on its own connection to ns.
func openTestBoard(tb testing.TB, ns *natsserver.Server, member string, lease time.Duration) *Board {
	tb.Helper()
	js := memJetStream(tb, ns)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := OpenBoard(ctx, js, BoardConfig{Member: member, Lease: lease})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = b.Close() })
	return b
}

// boardStep is one call on a board, run on the vault and the team board
// alike.
type boardStep struct {
	op     string // add, claim, update, done
	id     string
	agent  string
	text   string // title for add, detail for update
	status vault.TaskStatus
	err    error // the vault error wanted, nil for success
	// want is the task's "status owner" after a successful step.
	want string
}

// TestBoardMatchesVault runs the same calls on a vault and on a Board and
// wants the same answers: the board keeps the vault's semantics.
func TestBoardMatchesVault(t *testing.T) {
	v, err := vault.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	b := openTestBoard(t, boardServer(t), "m1", 0)

	steps := []boardStep{
		{op: "add", text: "write docs", want: "open "},
		{op: "add", text: "fix bug", agent: "alice", want: "open "},
		{op: "add", text: "  ", err: vault.ErrBadTask},
		{op: "claim", id: "t1", agent: "alice", want: "claimed alice"},
		{op: "claim", id: "T1", agent: "alice", want: "claimed alice"},
		{op: "claim", id: "t1", agent: "bob", err: vault.ErrClaimed},
		{op: "claim", id: "t1", agent: "", err: vault.ErrBadTask},
		{op: "update", id: "t1", agent: "bob", text: "mine", err: vault.ErrClaimed},
		{op: "done", id: "t1", agent: "bob", err: vault.ErrClaimed},
		{op: "update", id: "t2", agent: "bob", text: "x", err: vault.ErrNotOwner},
		{op: "update", id: "t1", agent: "alice", text: "half way", want: "claimed alice"},
		{op: "update", id: "t1", agent: "alice", status: vault.TaskOpen, want: "open "},
		{op: "update", id: "t1", agent: "alice", text: "again", err: vault.ErrNotOwner},
		{op: "claim", id: "1", agent: "bob", want: "claimed bob"},
		{op: "done", id: "t1", agent: "bob", want: "done bob"},
		{op: "claim", id: "t1", agent: "alice", err: vault.ErrTaskDone},
		{op: "claim", id: "t1", agent: "bob", err: vault.ErrTaskDone},
		{op: "update", id: "t1", agent: "alice", text: "x", err: vault.ErrClaimed},
		{op: "update", id: "t2", agent: "", status: vault.TaskClaimed, err: vault.ErrBadTask},
		{op: "update", id: "t2", agent: "", text: "by the user", want: "open "},
		{op: "update", id: "t2", agent: "", status: "wip", err: vault.ErrBadTask},
		{op: "claim", id: "t2", agent: "carol", want: "claimed carol"},
		{op: "update", id: "t2", agent: "", text: "user note", want: "claimed carol"},
		{op: "update", id: "t2", agent: "", status: vault.TaskOpen, want: "open "},
		{op: "claim", id: "t2", agent: "dave", want: "claimed dave"},
		{op: "update", id: "t2", agent: "dave", status: vault.TaskDone, want: "done dave"},
		{op: "update", id: "t2", agent: "dave", status: vault.TaskClaimed, want: "claimed dave"},
		{op: "claim", id: "t2", agent: "erin", err: vault.ErrClaimed},
		{op: "done", id: "t2", agent: "", want: "done dave"},
		{op: "add", text: "open then done", want: "open "},
		{op: "done", id: "t3", agent: "frank", want: "done frank"},
		{op: "add", text: "user finishes", want: "open "},
		{op: "done", id: "t4", agent: "", want: "done "},
		{op: "done", id: "t4", agent: "gina", want: "done gina"},
		{op: "claim", id: "t99", agent: "alice", err: vault.ErrNoTask},
		{op: "update", id: "t99", agent: "", text: "x", err: vault.ErrNoTask},
		{op: "done", id: "t99", agent: "", err: vault.ErrNoTask},
		{op: "claim", id: "x", agent: "alice", err: vault.ErrNoTask},
		{op: "done", id: "t0", agent: "alice", err: vault.ErrNoTask},
		{op: "update", id: "t1", agent: "bob", status: "finished", err: vault.ErrBadTask},
	}
	stores := []struct {
		name string
		s    interface {
			AddTask(title, detail, createdBy string) (vault.Task, error)
			ClaimTask(id, agent string) (vault.Task, error)
			UpdateTask(id, agent, detail string, status vault.TaskStatus) (vault.Task, error)
			DoneTask(id, agent string) (vault.Task, error)
			ListTasks() ([]vault.Task, error)
		}
	}{{"vault", v}, {"board", b}}
	for i, st := range steps {
		var got [2]vault.Task
		for j, s := range stores {
			var task vault.Task
			var err error
			switch st.op {
			case "add":
				task, err = s.s.AddTask(st.text, "", st.agent)
			case "claim":
				task, err = s.s.ClaimTask(st.id, st.agent)
			case "update":
				task, err = s.s.UpdateTask(st.id, st.agent, st.text, st.status)
			case "done":
				task, err = s.s.DoneTask(st.id, st.agent)
			}
			name := fmt.Sprintf("step %d %s %s %s by %q (%s)", i, st.op, st.id, st.status, st.agent, s.name)
			switch {
			case st.err != nil && !errors.Is(err, st.err):
				t.Fatalf("%s: err %v, want %v", name, err, st.err)
			case st.err == nil && err != nil:
				t.Fatalf("%s: %v", name, err)
			case st.err == nil && string(task.Status)+" "+task.Owner != st.want:
				t.Fatalf("%s: got %q, want %q", name, string(task.Status)+" "+task.Owner, st.want)
			}
			if errors.Is(st.err, vault.ErrClaimed) && !strings.Contains(err.Error(), "claimed by ") {
				t.Fatalf("%s: %v does not name the owner", name, err)
			}
			got[j] = task
		}
		if a, b := boardComparable(got[0]), boardComparable(got[1]); a != b {
			t.Fatalf("step %d: vault %+v, board %+v", i, a, b)
		}
	}
	vl, err := v.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	bl, err := b.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(vl) != len(bl) {
		t.Fatalf("vault lists %d tasks, board %d", len(vl), len(bl))
	}
	for i := range vl {
		if a, b := boardComparable(vl[i]), boardComparable(bl[i]); a != b {
			t.Errorf("list %d: vault %+v, board %+v", i, a, b)
		}
	}
}

// boardComparable is a task without its times.
func boardComparable(t vault.Task) vault.Task {
	t.Created, t.Updated = time.Time{}, time.Time{}
	return t
}

// TestBoardAcrossMembers checks owner names and claims between members
// and that Changed hears the other member's changes.
func TestBoardAcrossMembers(t *testing.T) {
	ns := boardServer(t)
	m1 := openTestBoard(t, ns, "m1", 0)
	m2 := openTestBoard(t, ns, "m2", 3*time.Second) // renews every second

	task, err := m1.AddTask("shared", "", "alice")
	if err != nil {
		t.Fatal(err)
	}
	waitBoardChanged(t, m2)
	if _, err := m2.ClaimTask(task.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	waitBoardChanged(t, m1)
	list, err := m1.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Status != vault.TaskClaimed || list[0].Owner != "alice@m2" || list[0].CreatedBy != "alice" {
		t.Fatalf("m1 sees %+v, want claimed by alice@m2, created by alice", list)
	}
	// alice on m1 is not alice on m2.
	if _, err := m1.ClaimTask(task.ID, "alice"); !errors.Is(err, vault.ErrClaimed) || !strings.Contains(err.Error(), "alice@m2") {
		t.Fatalf("claim by alice on m1: %v, want ErrClaimed by alice@m2", err)
	}
	if _, err := m1.DoneTask(task.ID, "alice"); !errors.Is(err, vault.ErrClaimed) {
		t.Fatalf("done by alice on m1: %v, want ErrClaimed", err)
	}
	if _, err := m1.UpdateTask(task.ID, "alice", "x", ""); !errors.Is(err, vault.ErrClaimed) {
		t.Fatalf("update by alice on m1: %v, want ErrClaimed", err)
	}
	// The user on m1 finishes it; the finisher stays alice of m2.
	done, err := m1.DoneTask(task.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != vault.TaskDone || done.Owner != "alice@m2" {
		t.Fatalf("done by the user: %+v", done)
	}
	list, err = m2.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	if list[0].Status != vault.TaskDone || list[0].Owner != "alice" || list[0].CreatedBy != "alice@m1" {
		t.Fatalf("m2 sees %+v, want done by alice, created by alice@m1", list[0])
	}
	// m2 stops renewing the claim the user's done removed at its next
	// renewal.
	eventually(t, "m2 to stop renewing", teamWait, func() error {
		m2.mu.Lock()
		defer m2.mu.Unlock()
		if n := len(m2.held); n > 0 {
			return fmt.Errorf("m2 still renews %d claims", n)
		}
		return nil
	})
}

// waitBoardChanged waits for a signal on b.Changed.
func waitBoardChanged(t *testing.T, b *Board) {
	t.Helper()
	select {
	case _, ok := <-b.Changed():
		if !ok {
			t.Fatal("Changed closed")
		}
	case <-time.After(teamWait):
		t.Fatal("no change signalled")
	}
}

// TestBoardClose checks that Close ends the Board once and for all and
// leaves no goroutine behind.
func TestBoardClose(t *testing.T) {
	nc, err := nats.Connect("", nats.InProcessServer(boardServer(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []BoardConfig{{}, {Member: "a@b"}, {Member: "m", Lease: 500 * time.Millisecond}} {
		if b, err := OpenBoard(context.Background(), js, cfg); err == nil {
			_ = b.Close()
			t.Errorf("OpenBoard(%+v) succeeded", cfg)
		}
	}
	// The first Board creates the bucket, whose stream the server runs.
	first, err := OpenBoard(context.Background(), js, BoardConfig{Member: "m0", Lease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	before := runtime.NumGoroutine()
	b, err := OpenBoard(context.Background(), js, BoardConfig{Member: "m1", Lease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddTask("x", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ClaimTask("t1", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ListTasks(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range b.Changed() { // drains a pending signal, then sees the close
	}
	if _, err := b.ListTasks(); !errors.Is(err, ErrBoardClosed) {
		t.Fatalf("list after close: %v", err)
	}
	if _, err := b.ClaimTask("t1", "alice"); !errors.Is(err, ErrBoardClosed) {
		t.Fatalf("claim after close: %v", err)
	}
	waitGoroutines(t, before)
}

// TestBoardRace has 30 agents on 3 members, each with its own node of a
// three-node cluster keeping the board (R3), race for 100 tasks: each is
// claimed exactly once and ends done.
func TestBoardRace(t *testing.T) {
	const (
		members  = 3
		agents   = 10
		tasks    = 100
		maxLoops = 500
	)
	ms := startTeam(t, members)
	boards := make([]*Board, members)
	for i := range boards {
		eventually(t, "open the board", teamWait, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var err error
			boards[i], err = OpenBoard(ctx, ms[i].node.JetStream(), BoardConfig{Replicas: members, Member: ms[i].cfg.Member})
			return err
		})
		t.Cleanup(func() { _ = boards[i].Close() })
	}
	ids := make(map[string]int, tasks)
	for i := range tasks {
		task, err := boards[i%members].AddTask(fmt.Sprintf("task %d", i), "", "")
		if err != nil {
			t.Fatal(err)
		}
		ids[task.ID] = i
	}
	var claims [tasks]atomic.Int32
	var dups, lost atomic.Int32
	var wg sync.WaitGroup
	deadline := time.Now().Add(2 * time.Minute)
	for m, b := range boards {
		for a := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := fmt.Sprintf("agent%d", a)
				for range maxLoops {
					if time.Now().After(deadline) {
						t.Errorf("%s on m%d: out of time", agent, m+1)
						return
					}
					list, err := b.ListTasks()
					if err != nil {
						t.Errorf("%s on m%d: list: %v", agent, m+1, err)
						return
					}
					var open []vault.Task
					for _, task := range list {
						if task.Status == vault.TaskOpen {
							open = append(open, task)
						}
					}
					if len(open) == 0 {
						return
					}
					rand.Shuffle(len(open), func(i, j int) { open[i], open[j] = open[j], open[i] })
					for _, task := range open[:min(len(open), 5)] {
						got, err := b.ClaimTask(task.ID, agent)
						if errors.Is(err, vault.ErrClaimed) || errors.Is(err, vault.ErrTaskDone) {
							lost.Add(1)
							continue
						}
						if err != nil {
							t.Errorf("%s on m%d: claim %s: %v", agent, m+1, task.ID, err)
							return
						}
						if got.Status != vault.TaskClaimed || got.Owner != agent {
							t.Errorf("%s on m%d: claim %s gave %+v", agent, m+1, task.ID, got)
						}
						if claims[ids[task.ID]].Add(1) > 1 {
							dups.Add(1)
						}
						if _, err := b.DoneTask(task.ID, agent); err != nil {
							t.Errorf("%s on m%d: done %s: %v", agent, m+1, task.ID, err)
						}
					}
				}
				t.Errorf("%s on m%d: still open tasks after %d rounds", agent, m+1, maxLoops)
			}()
		}
	}
	wg.Wait()
	t.Logf("%d claims lost to another agent", lost.Load())
	if n := dups.Load(); n != 0 {
		t.Errorf("%d duplicate claims", n)
	}
	for i := range claims {
		if n := claims[i].Load(); n != 1 {
			t.Errorf("task %d claimed %d times, want 1", i, n)
		}
	}
	list, err := boards[0].ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != tasks {
		t.Fatalf("%d tasks listed, want %d", len(list), tasks)
	}
	for _, task := range list {
		if task.Status != vault.TaskDone || task.Owner == "" {
			t.Errorf("task %s: %s by %q, want done", task.ID, task.Status, task.Owner)
		}
	}
}

// TestBoardLeaseExpiry checks that a dead member's claims expire and a
// live member's claims do not. The lease is 3 s, renewed every second: a
// renewal may come 2 s late, as one did with a 1 s lease on a loaded
// machine under the race detector, before the claim lapses.
func TestBoardLeaseExpiry(t *testing.T) {
	const lease = 3 * time.Second
	ns := boardServer(t)
	m1 := openTestBoard(t, ns, "m1", lease)
	m2 := openTestBoard(t, ns, "m2", lease)
	var ids []string
	for i := range 5 {
		task, err := m1.AddTask(fmt.Sprintf("task %d", i), "", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m2.ClaimTask(task.ID, "bob"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	// Claiming again renews the claims, so they are fresh when m2 dies.
	for _, id := range ids {
		if _, err := m2.ClaimTask(id, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	if err := m2.Close(); err != nil {
		t.Fatal(err)
	}
	closed := time.Now()
	for _, id := range ids {
		if _, err := m1.ClaimTask(id, "bob"); !errors.Is(err, vault.ErrClaimed) || !strings.Contains(err.Error(), "bob@m2") {
			t.Fatalf("claim %s right after m2 died: %v, want ErrClaimed by bob@m2", id, err)
		}
	}
	for _, id := range ids {
		eventually(t, "the dead member's claim on "+id+" to expire", teamWait-time.Since(closed), func() error {
			task, err := m1.ClaimTask(id, "bob")
			switch {
			case errors.Is(err, vault.ErrClaimed):
				return err
			case err != nil:
				t.Fatal(err)
			case task.Owner != "bob":
				t.Fatalf("claim %s: owner %q", id, task.Owner)
			}
			return nil
		})
	}
	t.Logf("dead member's claims expired %v after it closed", time.Since(closed).Round(time.Millisecond))

	// m1 lives: its claims outlast several leases.
	task, err := m1.AddTask("long job", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.ClaimTask(task.ID, "carol"); err != nil {
		t.Fatal(err)
	}
	m3 := openTestBoard(t, ns, "m3", lease)
	// Another member's list may show a claim a moment late; once it shows
	// it, nine renewals are three leases and it must show the whole time.
	claimed := func() (vault.Task, bool) {
		list, err := m3.ListTasks()
		if err != nil {
			t.Fatal(err)
		}
		got := list[len(list)-1]
		return got, got.ID == task.ID && got.Status == vault.TaskClaimed && got.Owner == "carol@m1"
	}
	eventually(t, "m3 to see carol's claim", teamWait, func() error {
		if got, ok := claimed(); !ok {
			return fmt.Errorf("m3 lists %+v", got)
		}
		return nil
	})
	n, err := boardSeq(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	renewal := func() uint64 {
		m1.mu.Lock()
		h := m1.held[n]
		m1.mu.Unlock()
		if h == nil {
			t.Fatal("m1 no longer renews its claim")
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.rev
	}
	start, last, renewals, checks := time.Now(), renewal(), 0, 0
	eventually(t, "nine renewals", teamWait, func() error {
		if got, ok := claimed(); !ok {
			t.Fatalf("after %d renewals: %+v, want claimed by carol@m1", renewals, got)
		}
		checks++
		if rev := renewal(); rev != last {
			last, renewals = rev, renewals+1
		}
		if renewals < 9 {
			return fmt.Errorf("only %d renewals", renewals)
		}
		return nil
	})
	if _, err := m3.ClaimTask(task.ID, "carol"); !errors.Is(err, vault.ErrClaimed) {
		t.Fatalf("claim of a renewed task: %v, want ErrClaimed", err)
	}
	t.Logf("claim held for %v over %d checks", time.Since(start).Round(time.Millisecond), checks)
}
