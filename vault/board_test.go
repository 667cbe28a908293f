package vault_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

func TestBoardLifecycle(t *testing.T) {
	v := vaulttest.MustOpen(t)
	if ts, err := v.ListTasks(); err != nil || len(ts) != 0 {
		t.Fatalf("empty board: %v %v", ts, err)
	}
	t1, err := v.AddTask("  write the parser ", "see issue 6", "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if t1.ID != "t1" || t1.Title != "write the parser" || t1.Status != vault.TaskOpen || t1.Owner != "" ||
		t1.CreatedBy != "agent-1" || t1.Created.IsZero() || !t1.Updated.Equal(t1.Created) {
		t.Fatalf("AddTask = %+v", t1)
	}
	if t2, err := v.AddTask("test it", "", ""); err != nil || t2.ID != "t2" {
		t.Fatalf("second task = %+v, %v", t2, err)
	}
	if _, err := v.AddTask(" ", "", ""); !errors.Is(err, vault.ErrBadTask) {
		t.Errorf("empty title: %v", err)
	}

	c, err := v.ClaimTask("t1", "agent-2")
	if err != nil || c.Status != vault.TaskClaimed || c.Owner != "agent-2" {
		t.Fatalf("claim = %+v, %v", c, err)
	}
	if _, err := v.ClaimTask("T1", "agent-2"); err != nil {
		t.Errorf("claiming your own task again: %v", err)
	}
	_, err = v.ClaimTask("t1", "agent-3")
	if !errors.Is(err, vault.ErrClaimed) || !strings.Contains(err.Error(), "agent-2") {
		t.Errorf("claim held by another: %v (want ErrClaimed naming agent-2)", err)
	}
	if _, err := v.ClaimTask("t2", ""); !errors.Is(err, vault.ErrBadTask) {
		t.Errorf("the user claiming: %v", err)
	}

	if _, err := v.UpdateTask("t1", "agent-3", "mine now", ""); !errors.Is(err, vault.ErrClaimed) {
		t.Errorf("update by a non-owner: %v", err)
	}
	if _, err := v.UpdateTask("t2", "agent-3", "x", ""); !errors.Is(err, vault.ErrNotOwner) {
		t.Errorf("update of an open task by an agent: %v", err)
	}
	if _, err := v.UpdateTask("t1", "agent-2", "", "frozen"); !errors.Is(err, vault.ErrBadTask) {
		t.Errorf("unknown status: %v", err)
	}
	u, err := v.UpdateTask("t1", "agent-2", "lexer done, parser next", "")
	if err != nil || u.Detail != "lexer done, parser next" || u.Status != vault.TaskClaimed || u.Updated.Before(c.Updated) {
		t.Fatalf("update by the owner = %+v, %v", u, err)
	}
	if u, err := v.UpdateTask("t1", "", "", vault.TaskOpen); err != nil || u.Owner != "" || u.Status != vault.TaskOpen {
		t.Fatalf("the user releasing = %+v, %v", u, err)
	}
	if _, err := v.UpdateTask("t1", "", "", vault.TaskClaimed); !errors.Is(err, vault.ErrBadTask) {
		t.Errorf("the user setting claimed: %v", err)
	}

	d, err := v.DoneTask("t2", "agent-3")
	if err != nil || d.Status != vault.TaskDone || d.Owner != "agent-3" {
		t.Fatalf("done on an open task = %+v, %v", d, err)
	}
	if _, err := v.ClaimTask("t2", "agent-3"); !errors.Is(err, vault.ErrTaskDone) {
		t.Errorf("claiming a done task: %v", err)
	}
	if _, err := v.ClaimTask("t1", "agent-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.DoneTask("t1", "agent-2"); !errors.Is(err, vault.ErrClaimed) {
		t.Errorf("done by a non-owner: %v", err)
	}
	if d, err := v.DoneTask("t1", ""); err != nil || d.Owner != "agent-1" || d.Status != vault.TaskDone {
		t.Errorf("the user finishing = %+v, %v", d, err)
	}

	for _, id := range []string{"t9", "x", "t0", ""} {
		if _, err := v.ClaimTask(id, "agent-1"); !errors.Is(err, vault.ErrNoTask) {
			t.Errorf("ClaimTask(%q) = %v, want ErrNoTask", id, err)
		}
	}
	ts, err := v.ListTasks()
	if err != nil || len(ts) != 2 || ts[0].ID != "t1" || ts[1].ID != "t2" || ts[0].Detail != "lexer done, parser next" {
		t.Fatalf("ListTasks = %+v, %v", ts, err)
	}
}

func TestBoardEmptyVaultChanges(t *testing.T) {
	v := vaulttest.MustOpen(t)
	if _, err := v.DoneTask("t1", ""); !errors.Is(err, vault.ErrNoTask) {
		t.Errorf("DoneTask on an empty board: %v", err)
	}
}

func TestBoardClaimRace(t *testing.T) {
	v := vaulttest.MustOpen(t)
	const tasks, agents = 5, 16
	for i := range tasks {
		if _, err := v.AddTask(fmt.Sprintf("task %d", i), "", ""); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	winners := map[string][]string{}
	var wg sync.WaitGroup
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("agent-%d", a)
			for i := 1; i <= tasks; i++ {
				id := fmt.Sprintf("t%d", i)
				_, err := v.ClaimTask(id, name)
				switch {
				case err == nil:
					mu.Lock()
					winners[id] = append(winners[id], name)
					mu.Unlock()
				case !errors.Is(err, vault.ErrClaimed):
					t.Errorf("%s claiming %s: %v", name, id, err)
				}
			}
		}()
	}
	wg.Wait()
	ts, err := v.ListTasks()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range ts {
		w := winners[task.ID]
		if len(w) != 1 || task.Owner != w[0] {
			t.Errorf("%s: winners %v, owner %q; want exactly one", task.ID, w, task.Owner)
		}
	}
}
