package swarm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/sandbox"
)

// ErrNotARepo is returned by AddWorktree when the workspace is not inside
// a git repository.
var ErrNotARepo = errors.New("--worktree needs the workspace to be a git repository")

// WorktreeDir is where AddWorktree puts the worktrees, relative to the
// repository.
const WorktreeDir = ".kws/worktrees"

// Git runs kws's own git commands on the repositories agents work in:
// always with the git configuration that runs no program the repository
// names (sandbox.GitEnv), and confined by Policy when it is set, since
// agents write those repositories.
type Git struct {
	Policy *sandbox.Policy
}

// AddWorktree gives name its own git worktree of repo, at
// <repo>/.kws/worktrees/<name> on the new branch kws/<name>, and returns
// the worktree's directory and branch. A worktree already at that
// directory is reused, and so is an existing branch of that name, so an
// agent restarted under the same name finds its work again.
func (g Git) AddWorktree(repo, name string) (dir, branch string, err error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return "", "", fmt.Errorf("worktree name %q: want one path element", name)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", errors.New("--worktree needs git, which is not on the PATH")
	}
	if _, err := g.run(repo, "rev-parse", "--git-dir"); err != nil {
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
	if _, err := g.run(repo, "worktree", "prune"); err != nil {
		return "", "", err
	}
	args := []string{"worktree", "add", dir, "-b", branch}
	if _, err := g.run(repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		args = []string{"worktree", "add", dir, branch}
	}
	if _, err := g.run(repo, args...); err != nil {
		return "", "", err
	}
	g.excludeWorktrees(repo)
	return dir, branch, nil
}

// excludeWorktrees keeps the agents' worktrees out of the main checkout's
// git status by listing them in .git/info/exclude (once). Failing to is
// harmless, so it is not reported.
func (g Git) excludeWorktrees(repo string) {
	gitDir, err := g.run(repo, "rev-parse", "--git-common-dir")
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

// WorktreeDiff returns what changed in repo's worktree at dir against its
// HEAD: the diff of tracked files, then the untracked files by name. It
// returns "" when nothing changed. It refuses a worktree whose .git file
// (which its agent can write) no longer points into repo's git dir.
func (g Git) WorktreeDiff(repo, dir string) (string, error) {
	if err := g.checkWorktree(repo, dir); err != nil {
		return "", err
	}
	diff, err := g.run(dir, "diff", "HEAD")
	if err != nil {
		return "", err
	}
	status, err := g.run(dir, "status", "--porcelain", "--untracked-files=all")
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
func (g Git) RemoveWorktree(repo, dir string) error {
	_, err := g.run(repo, "worktree", "remove", "--force", dir)
	return err
}

// checkWorktree refuses dir unless its .git is a file naming a worktree
// admin dir of repo's git dir, whose commondir names that git dir back:
// an agent that repointed either would have kws's git read a config of
// its choosing.
func (g Git) checkWorktree(repo, dir string) error {
	out, err := g.run(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	common, err := filepath.EvalSymlinks(strings.TrimSpace(out))
	if err != nil {
		return fmt.Errorf("git dir of %s: %w", repo, err)
	}
	bad := func(why string) error {
		return fmt.Errorf("refusing to run git in %s: %s", dir, why)
	}
	dotgit := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.Mode().IsRegular() {
		return bad(".git is not the file a worktree has")
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return bad(err.Error())
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	admin = strings.TrimSpace(admin)
	if !ok || !filepath.IsAbs(admin) {
		return bad(".git does not name an absolute gitdir")
	}
	admin, err = filepath.EvalSymlinks(admin)
	if err != nil || filepath.Dir(admin) != filepath.Join(common, "worktrees") {
		return bad(".git points outside the repository's git dir")
	}
	back, err := os.ReadFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return bad("its admin dir has no commondir")
	}
	cd := strings.TrimSpace(string(back))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(admin, cd)
	}
	if cd, err = filepath.EvalSymlinks(cd); err != nil || cd != common {
		return bad("its admin dir's commondir points outside the repository's git dir")
	}
	return nil
}

// git runs git in dir, unconfined, with the reset configuration.
func git(dir string, args ...string) (string, error) { return Git{}.run(dir, args...) }

// run runs git in dir and returns its output; a failure's error carries
// git's own message.
func (g Git) run(dir string, args ...string) (string, error) {
	argv := append([]string{"git", "-C", dir}, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	start := cmd.Start
	if g.Policy != nil {
		p := *g.Policy
		p.Workspace = dir
		var err error
		if cmd, err = sandbox.Command(context.Background(), p, argv...); err != nil {
			return "", err
		}
		start = func() error { return sandbox.Start(cmd, p) }
	}
	cmd.Env = append(cmd.Environ(), sandbox.GitEnv(cmd.Environ())...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := start()
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
