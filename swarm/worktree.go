package swarm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotARepo is returned by AddWorktree when the workspace is not inside
// a git repository.
var ErrNotARepo = errors.New("--worktree needs the workspace to be a git repository")

// WorktreeDir is where AddWorktree puts the worktrees, relative to the
// repository.
const WorktreeDir = ".kws/worktrees"

// AddWorktree gives name its own git worktree of repo, at
// <repo>/.kws/worktrees/<name> on the new branch kws/<name>, and returns
// the worktree's directory and branch. A worktree already at that
// directory is reused, and so is an existing branch of that name, so an
// agent restarted under the same name finds its work again.
func AddWorktree(repo, name string) (dir, branch string, err error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return "", "", fmt.Errorf("worktree name %q: want one path element", name)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", errors.New("--worktree needs git, which is not on the PATH")
	}
	if _, err := git(repo, "rev-parse", "--git-dir"); err != nil {
		return "", "", ErrNotARepo
	}
	dir = filepath.Join(repo, filepath.FromSlash(WorktreeDir), name)
	branch = "kws/" + name
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return dir, branch, nil
	}
	if _, err := os.Stat(dir); err == nil {
		return "", "", fmt.Errorf("%s exists and is not a git worktree", dir)
	}
	// A worktree whose directory was deleted is still registered; pruning
	// lets its branch be checked out again.
	if _, err := git(repo, "worktree", "prune"); err != nil {
		return "", "", err
	}
	args := []string{"worktree", "add", dir, "-b", branch}
	if _, err := git(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		args = []string{"worktree", "add", dir, branch}
	}
	if _, err := git(repo, args...); err != nil {
		return "", "", err
	}
	excludeWorktrees(repo)
	return dir, branch, nil
}

// excludeWorktrees keeps the agents' worktrees out of the main checkout's
// git status by listing them in .git/info/exclude (once). Failing to is
// harmless, so it is not reported.
func excludeWorktrees(repo string) {
	gitDir, err := git(repo, "rev-parse", "--git-common-dir")
	if err != nil {
		return
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(repo, gitDir)
	}
	path := filepath.Join(gitDir, "info", "exclude")
	line := "/" + WorktreeDir + "/"
	old, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == line {
			return
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		line = "\n" + line
	}
	_, _ = f.WriteString(line + "\n")
}

// WorktreeDiff returns what changed in the worktree at dir against its
// HEAD: the diff of tracked files, then the untracked files by name. It
// returns "" when nothing changed.
func WorktreeDiff(dir string) (string, error) {
	diff, err := git(dir, "diff", "HEAD")
	if err != nil {
		return "", err
	}
	status, err := git(dir, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return "", err
	}
	var untracked []string
	for _, l := range strings.Split(status, "\n") {
		if path, ok := strings.CutPrefix(l, "?? "); ok {
			untracked = append(untracked, path)
		}
	}
	var b strings.Builder
	b.WriteString(diff)
	if len(untracked) > 0 {
		if b.Len() > 0 && !strings.HasSuffix(diff, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("untracked files:\n")
		for _, path := range untracked {
			b.WriteString("  " + path + "\n")
		}
	}
	return b.String(), nil
}

// RemoveWorktree removes the worktree at dir from repo, discarding its
// uncommitted changes; its branch stays.
func RemoveWorktree(repo, dir string) error {
	_, err := git(repo, "worktree", "remove", "--force", dir)
	return err
}

// git runs git in dir and returns its output; a failure's error carries
// git's own message.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
