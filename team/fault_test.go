package team

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// faultLease is the boards' lease in the fault test: short, so that a
// killed member's claims run out within the test.
const faultLease = time.Second

// faultMember is a member of the fault test with its board, blocks and
// vault; down while its node is stopped.
type faultMember struct {
	*testMember
	v      *vault.Vault
	board  *Board
	blocks *Blocks
	down   bool
}

func (m *faultMember) open(t *testing.T) {
	t.Helper()
	eventually(t, m.cfg.Member+": open the board", teamWait, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		m.board, err = OpenBoard(ctx, m.node.JetStream(), BoardConfig{Replicas: 3, Lease: faultLease, Member: m.cfg.Member})
		return err
	})
	m.blocks = shareBlocks(t, m.testMember, m.v, 3)
}

// kill stops the member at once: its board stops renewing (no claim is
// released), its blocks stop, its node shuts down.
func (m *faultMember) kill() {
	_ = m.board.Close()
	_ = m.blocks.Close()
	m.stop()
	m.down = true
}

func (m *faultMember) restart(t *testing.T) {
	t.Helper()
	m.start(t)
	m.ready(t)
	m.open(t)
	m.down = false
}

// TestRandomClaimsKillsRestarts runs 1,000 random steps on a team of
// three: agents claim, finish and release tasks, blocks are stored, and
// a member is stopped and restarted now and then (one at a time, so a
// majority stays). A task is never claimed from a holder whose lease
// still runs: when a claim succeeds over a live holder, that holder can
// no longer finish the task. A finished task is never claimed again, and
// at the end every member holds every block stored anywhere.
// KWS_FAULT_SEED replays a run.
// boardOf is the board of member name.
func boardOf(ms []*faultMember, name string) *Board {
	for _, m := range ms {
		if m.cfg.Member == name {
			return m.board
		}
	}
	return nil
}

func TestRandomClaimsKillsRestarts(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("KWS_FAULT_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (KWS_FAULT_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	tms := startTeam(t, 3)
	var ms []*faultMember
	for _, tm := range tms {
		m := &faultMember{testMember: tm, v: vaulttest.MustOpen(t)}
		m.open(t)
		t.Cleanup(func() {
			if !m.down {
				_ = m.board.Close()
				_ = m.blocks.Close()
			}
		})
		ms = append(ms, m)
	}
	var tasks []string
	for i := range 100 {
		task, err := ms[0].board.AddTask(fmt.Sprintf("task %d", i), "", "")
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task.ID)
	}
	// holder is who holds each task by this test's account: member and
	// agent; done tasks are finished.
	type who struct{ member, agent string }
	holder := map[string]who{}
	done := map[string]bool{}
	var blocks []string
	live := func() []*faultMember {
		var out []*faultMember
		for _, m := range ms {
			if !m.down {
				out = append(out, m)
			}
		}
		return out
	}
	var claims, refused, failed, kills, lapsed int
	for step := range 1000 {
		up := live()
		m := up[rng.IntN(len(up))]
		agent := "agent-" + strconv.Itoa(rng.IntN(10))
		id := tasks[rng.IntN(len(tasks))]
		switch r := rng.IntN(100); {
		case r < 2 && len(up) == 3:
			m.kill()
			kills++
			// What the killed member held is no longer held by a live
			// agent: its lease runs out.
			for task, h := range holder {
				if h.member == m.cfg.Member {
					delete(holder, task)
				}
			}
		case r < 5 && len(up) < 3:
			for _, d := range ms {
				if d.down {
					d.restart(t)
				}
			}
		case r < 65:
			asked := time.Now()
			_, err := m.board.ClaimTask(id, agent)
			h, held := holder[id]
			switch {
			case err == nil:
				claims++
				if done[id] {
					t.Fatalf("step %d: %s@%s claimed the finished task %s", step, agent, m.cfg.Member, id)
				}
				holder[id] = who{m.cfg.Member, agent}
				if !held || h == holder[id] {
					break
				}
				// The holder's lease ran out: its member could not renew
				// it while the team moved a leader (the lease is 1 s, an
				// election takes seconds). The board may give the task
				// away then, but the old holder must no longer act as its
				// owner while the new claim lives: a lease from when it
				// was asked for.
				old := boardOf(ms, h.member)
				_, err := old.DoneTask(id, h.agent)
				switch {
				case errors.Is(err, vault.ErrClaimed):
					lapsed++
				case err == nil && time.Since(asked) >= faultLease:
					// The new claim ran out too before the old holder
					// finished: nobody held the task.
					lapsed++
					done[id] = true
					delete(holder, id)
				case err == nil:
					t.Fatalf("step %d: %s@%s claimed %s, and %s@%s still finishes it", step, agent, m.cfg.Member, id, h.agent, h.member)
				default:
					failed++ // a leader moving after a kill
				}
			case errors.Is(err, vault.ErrClaimed), errors.Is(err, vault.ErrTaskDone):
				refused++
			default:
				failed++ // a leader moving after a kill: not a claim
			}
		case r < 75:
			h, held := holder[id]
			if !held || h.member != m.cfg.Member {
				continue
			}
			if _, err := m.board.DoneTask(id, h.agent); err == nil {
				done[id] = true
				delete(holder, id)
			}
		case r < 82:
			h, held := holder[id]
			if !held || h.member != m.cfg.Member {
				continue
			}
			if _, err := m.board.UpdateTask(id, h.agent, "", vault.TaskOpen); err == nil {
				delete(holder, id)
			}
		default:
			bid, err := m.v.Put(fmt.Appendf(nil, "block of step %d from %s (%d)", step, m.cfg.Member, seed), vault.Meta{Kind: "tool"})
			if err != nil {
				t.Fatal(err)
			}
			blocks = append(blocks, bid)
		}
	}
	for _, d := range ms {
		if d.down {
			d.restart(t)
		}
	}
	t.Logf("%d claims (%d after the holder's lease ran out), %d refused, %d failed during leader moves, %d tasks done, %d kills, %d blocks",
		claims, lapsed, refused, failed, len(done), kills, len(blocks))
	for _, m := range ms {
		eventually(t, m.cfg.Member+" holds every block", teamWait, func() error {
			for _, id := range blocks {
				if !m.v.Has(id) {
					return fmt.Errorf("%s lacks %s", m.cfg.Member, id)
				}
			}
			return nil
		})
	}
	// The board agrees with the test's account of finished tasks.
	list, err := ms[0].board.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range list {
		if (task.Status == vault.TaskDone) != done[task.ID] {
			t.Errorf("%s: the board says %s, the test finished it: %v", task.ID, task.Status, done[task.ID])
		}
	}
}
