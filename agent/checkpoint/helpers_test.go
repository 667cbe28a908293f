package checkpoint_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/vault"
)

// node is one path of a tree as a test remembers it.
type node struct {
	dir  bool
	perm fs.FileMode
	data []byte
}

// tree is a whole workspace, by slash path.
type tree map[string]node

// readTree returns every directory and regular file under root (and
// fails on anything else), for byte-comparing states.
func readTree(t testing.TB, root string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel] = node{dir: true, perm: fi.Mode().Perm()}
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = node{perm: fi.Mode().Perm(), data: data}
		default:
			return fmt.Errorf("unexpected %s (%v)", rel, d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails the test naming every path where got and want differ.
func sameTree(t testing.TB, what string, got, want tree) {
	t.Helper()
	var bad []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		w := want[p]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%q missing", p))
		case g.dir != w.dir || g.perm != w.perm || !bytes.Equal(g.data, w.data):
			bad = append(bad, fmt.Sprintf("%q differs (dir %v/%v, perm %v/%v, %d/%d bytes)", p, g.dir, w.dir, g.perm, w.perm, len(g.data), len(w.data)))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			bad = append(bad, fmt.Sprintf("%q should not exist", p))
		}
	}
	if len(bad) > 0 {
		if len(bad) > 20 {
			bad = append(bad[:20], fmt.Sprintf("… %d more", len(bad)-20))
		}
		t.Fatalf("%s: the tree is not as recorded:\n%s", what, strings.Join(bad, "\n"))
	}
}

// put writes data to root/rel, making its directories.
func put(t testing.TB, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sh runs script with sh -c in dir, as the shell tool would.
func sh(t testing.TB, dir, script string) {
	t.Helper()
	if err := shErr(dir, script); err != nil {
		t.Fatal(err)
	}
}

// shErr is sh for goroutines other than the test's.
func shErr(dir, script string) error {
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sh -c %q: %v\n%s", script, err, out)
	}
	return nil
}

// lines returns n numbered lines, the file's name in each.
func lines(name string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}

// generate fills root with n text files in nested directories (20 lines
// each) and returns their paths; old puts their times an hour back, as in
// a checkout made long before.
func generate(t testing.TB, root string, n int, old bool) []string {
	t.Helper()
	var paths []string
	for i := range n {
		rel := fmt.Sprintf("pkg%02d/sub%d/file%04d.txt", i%25, i%4, i)
		put(t, root, rel, lines(rel, 20))
		paths = append(paths, rel)
	}
	if old {
		back := time.Now().Add(-time.Hour)
		for _, rel := range paths {
			if err := os.Chtimes(filepath.Join(root, rel), back, back); err != nil {
				t.Fatal(err)
			}
		}
	}
	return paths
}

// setup returns a fresh vault and a tracker of a new directory.
func setup(t testing.TB) (*vault.Vault, *checkpoint.Tracker, string) {
	t.Helper()
	v, err := vault.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	root := t.TempDir()
	tr, err := checkpoint.NewTracker(v, root, "agent-1", "session-1")
	if err != nil {
		t.Fatal(err)
	}
	return v, tr, root
}

// rewind plans returning to turn (or, with turn 0, to checkpoint seq) and
// applies the plan, failing on any conflict or failure.
func rewind(t testing.TB, tr *checkpoint.Tracker, turn int, seq uint64) *checkpoint.Result {
	t.Helper()
	var p *checkpoint.Plan
	var err error
	if turn > 0 {
		p, err = tr.Plan(turn)
	} else {
		p, err = tr.PlanCheckpoint(seq)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Conflicts(); n > 0 {
		t.Fatalf("plan has %d conflicts: %+v", n, p.Actions)
	}
	res, err := tr.Apply(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept)+len(res.Failed) > 0 {
		t.Fatalf("rewind kept %v, failed %v", res.Kept, res.Failed)
	}
	return res
}

// changed returns the paths of cs.
func changed(cs []checkpoint.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

// rng is the tests' seeded randomness: the same edits each run.
func rng() *rand.Rand { return rand.New(rand.NewPCG(28, 1)) }
