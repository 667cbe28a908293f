package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/kwsdev/kws/agent/checkpoint"
)

func TestWhatIsTracked(t *testing.T) {
	_, tr, root := setup(t)
	tr.SetLimits(checkpoint.Limits{MaxFileSize: 1024})
	all := []string{
		"src/main.go", ".gitignore", ".kws/config.toml", // tracked
		".env",                       // ignored, but sensitive: tracked
		"build/out.txt", "debug.log", // ignored
		".git/config",                    // git's own
		".kws/worktrees/agent-2/main.go", // another agent's worktree
		"big.txt", "image.bin",           // too big, binary
		"node_modules/.gitignore",         // inside an ignored directory
		"sub/.gitignore", "sub/local.tmp", // a nested rule
		"sub/kept.txt",
	}
	for _, rel := range all {
		put(t, root, rel, "v1\n")
	}
	put(t, root, ".gitignore", "build/\n*.log\n.env\nnode_modules/\n")
	put(t, root, "sub/.gitignore", "*.tmp\n")
	put(t, root, "big.txt", strings.Repeat("x", 2048))
	put(t, root, "image.bin", "\x89PNG\x00\x01")
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	cov := tr.Coverage()
	if cov.TooBig != 1 || cov.Binary != 1 || cov.Truncated {
		t.Errorf("coverage = %+v, want one too big and one binary file", cov)
	}
	for _, rel := range all {
		if rel != ".gitignore" && rel != "sub/.gitignore" && rel != "image.bin" && rel != "big.txt" {
			put(t, root, rel, "v2\n")
		}
	}
	cs, err := tr.AfterTool(1, "c", "shell")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env", ".kws/config.toml", "src/main.go", "sub/kept.txt"}
	if got := changed(cs); !slices.Equal(got, want) {
		t.Fatalf("tracked changes = %v, want %v", got, want)
	}
}

func TestEntryLimitStopsTheWalk(t *testing.T) {
	_, tr, root := setup(t)
	generate(t, root, 30, false)
	tr.SetLimits(checkpoint.Limits{MaxEntries: 10})
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	if cov := tr.Coverage(); !cov.Truncated || cov.Files+cov.Dirs != 10 {
		t.Fatalf("coverage = %+v, want 10 entries and truncated", cov)
	}
}

// TestSameSizeRewritesAreSeen rewrites one file again and again with as
// many bytes, faster than the file system's clock moves: each rewrite
// must still be seen, though size and times may not change.
func TestSameSizeRewritesAreSeen(t *testing.T) {
	_, tr, root := setup(t)
	put(t, root, "f.txt", "content 00\n")
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		put(t, root, "f.txt", fmt.Sprintf("content %02d\n", i))
		cs, err := tr.AfterTool(1, fmt.Sprint(i), "write_file")
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 || cs[0].Added != 1 || cs[0].Deleted != 1 {
			t.Fatalf("rewrite %d: changes = %+v", i, cs)
		}
	}
}

func TestHostileNamesKeptExactShownEscaped(t *testing.T) {
	_, tr, root := setup(t)
	names := []string{"new\nline.txt", "esc\x1b]0;pwned\x07.txt", "bad\xffutf8.txt", "rtl\u202etxt.exe", `quote".txt`}
	for _, n := range names {
		put(t, root, n, "before\n")
	}
	start := readTree(t, root)
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		put(t, root, n, "after\n")
	}
	cs, err := tr.AfterTool(1, "c", "shell")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(names) {
		t.Fatalf("changes = %+v", cs)
	}
	p, err := tr.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range p.Actions {
		if !slices.Contains(names, a.Path) {
			t.Errorf("the plan's path %q is not a name on disk", a.Path)
		}
		shown := a.Name + a.Diff
		if strings.ContainsFunc(shown, func(r rune) bool { return r != '\n' && !unicode.IsGraphic(r) }) ||
			strings.Contains(a.Name, "\n") {
			t.Errorf("shown raw: %q", shown)
		}
	}
	if _, err := tr.Apply(p, false); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "hostile names", readTree(t, root), start)
}

func TestSymlinksAreNeverFollowed(t *testing.T) {
	_, tr, root := setup(t)
	outside := t.TempDir()
	put(t, outside, "secret.txt", "outside\n")
	put(t, root, "d/x.txt", "inside\n")
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "s.txt")); err != nil {
		t.Fatal(err)
	}
	if err := tr.BeginTurn(1, 0); err != nil {
		t.Fatal(err)
	}
	if cov := tr.Coverage(); cov.Files != 1 || cov.Dirs != 1 {
		t.Fatalf("coverage = %+v, want d and d/x.txt only", cov)
	}
	// A command replaces directory d with a link out of the workspace.
	sh(t, root, "rm -r d && ln -s "+outside+" d")
	if _, err := tr.AfterTool(1, "c", "shell"); err != nil {
		t.Fatal(err)
	}
	p, err := tr.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	if a := action(t, p, "d/x.txt"); a.Conflict != checkpoint.ConflictInTheWay {
		t.Fatalf("d/x.txt behind a link: %+v, want a conflict", a)
	}
	if res, err := tr.Apply(p, false); err != nil || len(res.Restored) != 0 {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	sameTree(t, "outside", readTree(t, outside), tree{"secret.txt": {perm: 0o644, data: []byte("outside\n")}})

	// Told to overwrite, the link goes and the directory comes back.
	p, err = tr.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := tr.Apply(p, true); err != nil || len(res.Restored) != 2 {
		t.Fatalf("Apply with overwrite = %+v, %v", res, err)
	}
	sameTree(t, "outside", readTree(t, outside), tree{"secret.txt": {perm: 0o644, data: []byte("outside\n")}})
	if fi, err := os.Lstat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("d = %v, %v", fi, err)
	}
	if data, err := os.ReadFile(filepath.Join(root, "d", "x.txt")); err != nil || string(data) != "inside\n" {
		t.Fatalf("d/x.txt = %q, %v", data, err)
	}
}
