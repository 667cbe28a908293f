package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/checkpoint"
)

// action returns p's action on rel, failing when there is none.
func action(t *testing.T, p *checkpoint.Plan, rel string) checkpoint.Action {
	t.Helper()
	i := slices.IndexFunc(p.Actions, func(a checkpoint.Action) bool { return a.Path == rel })
	if i < 0 {
		t.Fatalf("the plan has no action on %s: %+v", rel, p.Actions)
	}
	return p.Actions[i]
}

func TestConflictsAreKeptUnlessOverwritten(t *testing.T) {
	_, tr, root := setup(t)
	put(t, root, "a.txt", lines("a", 5))
	put(t, root, "b.txt", lines("b", 5))
	put(t, root, "keep.txt", "untouched\n")
	put(t, root, ".env", "SECRET=hunter2-before\n")
	start := readTree(t, root)
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", lines("a", 4)+"agent\n")
	put(t, root, "b.txt", lines("b", 5)+"agent\n")
	put(t, root, "c.txt", "created by the agent\n")
	put(t, root, ".env", "SECRET=hunter2-after\n")
	cs, err := tr.AfterTool(1, "call-1", "shell")
	if err != nil {
		t.Fatal(err)
	}
	if got := changed(cs); !slices.Equal(got, []string{".env", "a.txt", "b.txt", "c.txt"}) {
		t.Fatalf("AfterTool changes = %v", got)
	}
	if a := cs[1]; a.Op != checkpoint.OpModify || a.Added != 1 || a.Deleted != 1 {
		t.Errorf("a.txt change = %+v, want modify +1 -1", a)
	}
	if e := cs[0]; !e.Sensitive || e.Added != 0 || e.Deleted != 0 {
		t.Errorf(".env change = %+v, want sensitive without line counts", e)
	}

	// You change b.txt and delete a.txt after the agent's last checkpoint.
	put(t, root, "b.txt", "yours\n")
	if err := os.Remove(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	p, err := tr.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	if a := action(t, p, "a.txt"); a.Op != checkpoint.OpCreate || a.Conflict != "" {
		t.Errorf("a.txt, deleted since: %+v, want a recreate without conflict", a)
	}
	if a := action(t, p, "b.txt"); a.Op != checkpoint.OpModify || a.Conflict != checkpoint.ConflictChanged ||
		!strings.Contains(a.Diff, "-yours") {
		t.Errorf("b.txt, changed since: %+v, want a conflict", a)
	}
	if a := action(t, p, "c.txt"); a.Op != checkpoint.OpDelete || a.Conflict != "" || a.Deleted != 1 {
		t.Errorf("c.txt, created by the turn: %+v, want a delete", a)
	}
	if a := action(t, p, ".env"); !a.Sensitive || a.Diff != "" || a.Added+a.Deleted != 0 {
		t.Errorf(".env: %+v, want its name only", a)
	}
	if s := fmt.Sprintf("%+v", p); strings.Contains(s, "hunter2") {
		t.Errorf("the preview shows the secret: %s", s)
	}
	if p.Turn != 1 || p.MsgIndex != 0 || p.Conflicts() != 1 || len(p.Actions) != 4 {
		t.Errorf("plan = turn %d msg %d, %d conflicts, %d actions", p.Turn, p.MsgIndex, p.Conflicts(), len(p.Actions))
	}

	res, err := tr.Apply(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0].Path != "b.txt" || len(res.Restored) != 3 || len(res.Failed) != 0 {
		t.Fatalf("Apply kept %v, restored %v, failed %v", res.Kept, res.Restored, res.Failed)
	}
	got := readTree(t, root)
	if string(got["b.txt"].data) != "yours\n" {
		t.Fatalf("b.txt was overwritten: %q", got["b.txt"].data)
	}
	got["b.txt"] = start["b.txt"]
	sameTree(t, "rewound but for b.txt", got, start)

	// Rewinding again still protects b.txt, which the agent never wrote.
	p, err = tr.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	if a := action(t, p, "b.txt"); a.Conflict != checkpoint.ConflictChanged || len(p.Actions) != 1 {
		t.Fatalf("second plan = %+v, want only b.txt, in conflict", p.Actions)
	}
	res, err = tr.Apply(p, true)
	if err != nil || len(res.Restored) != 1 {
		t.Fatalf("Apply with overwrite = %+v, %v", res, err)
	}
	sameTree(t, "rewound with overwrite", readTree(t, root), start)
}

func TestChangeBetweenPreviewAndApplyIsKept(t *testing.T) {
	_, tr, root := setup(t)
	put(t, root, "a.txt", "one\n")
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "two\n")
	if _, err := tr.AfterTool(1, "c", "write_file"); err != nil {
		t.Fatal(err)
	}
	p, err := tr.Plan(1)
	if err != nil || p.Conflicts() != 0 {
		t.Fatalf("plan = %+v, %v", p, err)
	}
	put(t, root, "a.txt", "three, typed while you read the preview\n")
	res, err := tr.Apply(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0].Conflict != checkpoint.ConflictStale {
		t.Fatalf("kept = %+v, want a.txt as changed since the preview", res.Kept)
	}
	if got := readTree(t, root)["a.txt"]; !strings.HasPrefix(string(got.data), "three") {
		t.Fatalf("a.txt = %q", got.data)
	}
}

func TestRewindOverDeletedTree(t *testing.T) {
	_, tr, root := setup(t)
	generate(t, root, 40, false)
	start := readTree(t, root)
	if err := tr.BeginTurn(1, 3); err != nil {
		t.Fatal(err)
	}
	sh(t, root, "mkdir -p made/empty && echo x > made/x && chmod 600 pkg01/sub1/file0001.txt")
	if _, err := tr.AfterTool(1, "c", "shell"); err != nil {
		t.Fatal(err)
	}
	// Someone else then deletes whole directories.
	sh(t, root, "rm -r pkg02 pkg03/sub3")
	rewind(t, tr, 1, 0)
	sameTree(t, "rewound over deleted directories", readTree(t, root), start)
}
