package checkpoint_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/vault"
)

func TestTurnsListChangesWithLineCounts(t *testing.T) {
	_, tr, root := setup(t)
	put(t, root, "a.txt", lines("a", 10))
	put(t, root, "gone.txt", "one\ntwo\n")
	if _, err := tr.AfterTool(1, "c", "shell"); !errors.Is(err, checkpoint.ErrNoTurn) {
		t.Fatalf("AfterTool before BeginTurn: %v, want ErrNoTurn", err)
	}
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", lines("a", 8)+"new 1\nnew 2\nnew 3\n")
	if _, err := tr.AfterTool(1, "c1", "edit_file"); err != nil {
		t.Fatal(err)
	}
	sh(t, root, "rm gone.txt && printf 'x\\ny\\n' > made.txt")
	if _, err := tr.AfterTool(1, "c2", "shell"); err != nil {
		t.Fatal(err)
	}
	if cs, err := tr.AfterTool(1, "c3", "read_file"); err != nil || cs != nil {
		t.Fatalf("a call that changed nothing: %v, %v", cs, err)
	}
	if err := tr.BeginTurn(2, 4); err != nil {
		t.Fatal(err)
	}
	turns, err := tr.Turns()
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 {
		t.Fatalf("turns = %+v", turns)
	}
	t1 := turns[0]
	want := []checkpoint.Change{
		{Path: "a.txt", Name: "a.txt", Op: checkpoint.OpModify, Added: 3, Deleted: 2},
		{Path: "gone.txt", Name: "gone.txt", Op: checkpoint.OpDelete, Deleted: 2},
		{Path: "made.txt", Name: "made.txt", Op: checkpoint.OpCreate, Added: 2},
	}
	if !slices.Equal(t1.Changes, want) || t1.Added != 5 || t1.Deleted != 4 || t1.MsgIndex != 0 || t1.End == t1.Start {
		t.Fatalf("turn 1 = %+v", t1)
	}
	if t2 := turns[1]; t2.N != 2 || len(t2.Changes) != 0 || t2.MsgIndex != 4 {
		t.Fatalf("turn 2 = %+v", t2)
	}

	// The conversation is rewound to turn 2 and turn 2 starts again; a
	// turn 3 that came before it leaves the list.
	if err := tr.BeginTurn(3, 6); err != nil {
		t.Fatal(err)
	}
	if err := tr.BeginTurn(2, 4); err != nil {
		t.Fatal(err)
	}
	if turns, err = tr.Turns(); err != nil || len(turns) != 2 || turns[1].N != 2 {
		t.Fatalf("after the conversation's rewind: %+v, %v", turns, err)
	}
}

func TestLoadRewindsAStoppedSession(t *testing.T) {
	v, tr, root := setup(t)
	put(t, root, "a.txt", "one\n")
	start := readTree(t, root)
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "two\n")
	if _, err := tr.AfterTool(1, "c", "write_file"); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.Load(v, "no-such-session"); !errors.Is(err, checkpoint.ErrNoCheckpoints) {
		t.Fatalf("Load of an unknown session: %v", err)
	}
	later, err := checkpoint.Load(v, "session-1")
	if err != nil {
		t.Fatal(err)
	}
	if later.Root() != tr.Root() || later.Session() != "session-1" {
		t.Fatalf("loaded root %q, session %q", later.Root(), later.Session())
	}
	rewind(t, later, 1, 0)
	sameTree(t, "rewound by a loaded tracker", readTree(t, root), start)

	// The agent's own tracker goes on from the rewound state: writing
	// "two" again is a change from it.
	put(t, root, "a.txt", "two\n")
	cs, err := tr.AfterTool(1, "c2", "write_file")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Added != 1 || cs[0].Deleted != 1 {
		t.Fatalf("changes after another writer's rewind = %+v", cs)
	}
	rws, err := tr.Rewinds()
	if err != nil || len(rws) != 1 || rws[0].Seq == 0 || len(rws[0].Changes) != 1 {
		t.Fatalf("Rewinds = %+v, %v", rws, err)
	}
}

// TestTrackersRunSideBySide runs two agents' trackers on two roots of one
// vault at once, with a third goroutine listing one's turns meanwhile.
func TestTrackersRunSideBySide(t *testing.T) {
	v, err := vault.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var wg sync.WaitGroup
	trackers := make([]*checkpoint.Tracker, 2)
	roots := make([]string, 2)
	starts := make([]tree, 2)
	for i := range trackers {
		roots[i] = t.TempDir()
		generate(t, roots[i], 100, false)
		starts[i] = readTree(t, roots[i])
		if trackers[i], err = checkpoint.NewTracker(v, roots[i], fmt.Sprintf("agent-%d", i), fmt.Sprintf("s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 3)
	for i, tr := range trackers {
		wg.Go(func() { errs <- work(tr, roots[i]) })
	}
	done := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-done:
				errs <- nil
				return
			default:
			}
			if _, err := trackers[0].Turns(); err != nil {
				errs <- err
				return
			}
		}
	})
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	for i, tr := range trackers {
		rewind(t, tr, 1, 0)
		sameTree(t, fmt.Sprintf("root %d", i), readTree(t, roots[i]), starts[i])
	}
}

// work does ten turns of edits in root, one tool call each.
func work(tr *checkpoint.Tracker, root string) error {
	for k := 1; k <= 10; k++ {
		if err := tr.BeginTurn(k, k); err != nil {
			return err
		}
		cmd := fmt.Sprintf("printf 'turn %d\\n' >> pkg%02d/sub%d/file%04d.txt && mkdir -p t%d", k, k, k%4, k, k)
		if err := shErr(root, cmd); err != nil {
			return err
		}
		if cs, err := tr.AfterTool(k, "c", "shell"); err != nil || len(cs) != 1 {
			return fmt.Errorf("turn %d: %v, %v", k, cs, err)
		}
	}
	return nil
}
