package swarm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/sandbox"
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
	dir, branch, err := Git{}.AddWorktree(repo, "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(repo, ".kws", "worktrees", "agent-1"); dir != want || branch != "kws/agent-1" {
		t.Fatalf("AddWorktree = %s, %s; want %s, kws/agent-1", dir, branch, want)
	}
	if head, err := git(dir, "symbolic-ref", "--short", "HEAD"); err != nil || strings.TrimSpace(head) != branch {
		t.Fatalf("the worktree is on %q (%v), want %s", head, err, branch)
	}
	if diff, err := (Git{}).WorktreeDiff(repo, dir); err != nil || diff != "" {
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
	diff, err := Git{}.WorktreeDiff(repo, dir)
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

	again, _, err := Git{}.AddWorktree(repo, "agent-1")
	if err != nil || again != dir {
		t.Fatalf("reuse: %s, %v; want %s", again, err, dir)
	}
	if diff2, _ := (Git{}).WorktreeDiff(repo, again); diff2 != diff {
		t.Errorf("the reused worktree lost its changes:\n%s", diff2)
	}

	if err := (Git{}).RemoveWorktree(repo, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the worktree directory is still there: %v", err)
	}
	// The branch stays, and a new worktree of that name checks it out.
	again, branch, err = Git{}.AddWorktree(repo, "agent-1")
	if err != nil || again != dir || branch != "kws/agent-1" {
		t.Fatalf("re-add after remove: %s, %s, %v", again, branch, err)
	}
}

func TestAddWorktreeNeedsARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	_, _, err := Git{}.AddWorktree(t.TempDir(), "agent-1")
	if !errors.Is(err, ErrNotARepo) || !strings.Contains(err.Error(), "--worktree needs the workspace to be a git repository") {
		t.Fatalf("err = %v, want ErrNotARepo", err)
	}
	if _, _, err := (Git{}).AddWorktree(gitRepo(t), "../escape"); err == nil {
		t.Fatal("a name with a path separator was accepted")
	}
}

// TestKwsGitRunsNothingTheRepositoryNames plants what red-team trial 8
// planted: a config naming core.fsmonitor in the repository, then a
// worktree .git file repointed at a git dir of the agent's making. kws's
// own git (Ctrl-g's diff) runs neither, and refuses the repointed
// worktree.
func TestKwsGitRunsNothingTheRepositoryNames(t *testing.T) {
	repo := gitRepo(t)
	var g Git
	if _, err := sandbox.Available(); err == nil {
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		g.Policy = &sandbox.Policy{}
	}
	dir, _, err := g.AddWorktree(repo, "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	if _, err := git(repo, "config", "core.fsmonitor", "touch "+pwned+"; false"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed\n"), 0o644)
	if diff, err := g.WorktreeDiff(repo, dir); err != nil || !strings.Contains(diff, "changed") {
		t.Fatalf("diff = %q, %v", diff, err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("kws's git ran the repository's core.fsmonitor")
	}

	fake := filepath.Join(dir, "fg")
	if out, err := exec.Command("cp", "-r", filepath.Join(repo, ".git"), fake).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+fake+"\n"), 0o644)
	if _, err := g.WorktreeDiff(repo, dir); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("a worktree repointed at its own git dir: %v", err)
	}
}
