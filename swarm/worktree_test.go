package swarm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo returns a new git repository with one commit of README.md.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.email=kws@example.com", "-c", "user.name=kws"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "README.md")
	run("commit", "-q", "-m", "first")
	return repo
}

func TestAddWorktreeDiffReuseRemove(t *testing.T) {
	repo := gitRepo(t)
	dir, branch, err := AddWorktree(repo, "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(repo, ".kws", "worktrees", "agent-1"); dir != want || branch != "kws/agent-1" {
		t.Fatalf("AddWorktree = %s, %s; want %s, kws/agent-1", dir, branch, want)
	}
	if head, err := git(dir, "symbolic-ref", "--short", "HEAD"); err != nil || strings.TrimSpace(head) != branch {
		t.Fatalf("the worktree is on %q (%v), want %s", head, err, branch)
	}
	if diff, err := WorktreeDiff(dir); err != nil || diff != "" {
		t.Fatalf("a fresh worktree's diff = %q, %v; want none", diff, err)
	}

	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "new.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, err := WorktreeDiff(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+world", "README.md", "untracked files:\n  pkg/new.go\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "README.md")); string(data) != "hello\n" {
		t.Errorf("the main checkout changed: %q", data)
	}
	if status, err := git(repo, "status", "--porcelain"); err != nil || status != "" {
		t.Errorf("the main checkout's status shows the worktrees: %q %v", status, err)
	}

	again, _, err := AddWorktree(repo, "agent-1")
	if err != nil || again != dir {
		t.Fatalf("reuse: %s, %v; want %s", again, err, dir)
	}
	if diff2, _ := WorktreeDiff(again); diff2 != diff {
		t.Errorf("the reused worktree lost its changes:\n%s", diff2)
	}

	if err := RemoveWorktree(repo, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the worktree directory is still there: %v", err)
	}
	// The branch stays, and a new worktree of that name checks it out.
	again, branch, err = AddWorktree(repo, "agent-1")
	if err != nil || again != dir || branch != "kws/agent-1" {
		t.Fatalf("re-add after remove: %s, %s, %v", again, branch, err)
	}
}

func TestAddWorktreeNeedsARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	_, _, err := AddWorktree(t.TempDir(), "agent-1")
	if !errors.Is(err, ErrNotARepo) || !strings.Contains(err.Error(), "--worktree needs the workspace to be a git repository") {
		t.Fatalf("err = %v, want ErrNotARepo", err)
	}
	if _, _, err := AddWorktree(gitRepo(t), "../escape"); err == nil {
		t.Fatal("a name with a path separator was accepted")
	}
}
