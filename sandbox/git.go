package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// GitMetadata returns the git metadata in the repository rooted at dir
// that a jailed command must not change, because the user's own git would
// run what it names: readOnly holds the git dir's config, hooks and info
// (and those of its submodules and its linked worktrees' admin files), or,
// when dir/.git is a file (a linked worktree), that file and its admin
// dir's files; forbidden holds the files git would obey if they appeared
// (commondir, config.worktree), which a command may not create. Missing
// hooks and info dirs are created empty first, so that no command can
// create them.
func GitMetadata(dir string) (readOnly, forbidden []string) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return nil, nil
	case fi.Mode().IsRegular():
		readOnly = append(readOnly, dotgit)
		if admin := gitdirOf(dotgit, dir); admin != "" {
			ro, fb := adminFiles(admin)
			readOnly, forbidden = append(readOnly, ro...), append(forbidden, fb...)
		}
		return readOnly, forbidden
	case !fi.IsDir():
		return nil, nil
	}
	readOnly, forbidden = gitDirFiles(dotgit, 0)
	if entries, err := os.ReadDir(filepath.Join(dotgit, "worktrees")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				ro, fb := adminFiles(filepath.Join(dotgit, "worktrees", e.Name()))
				readOnly, forbidden = append(readOnly, ro...), append(forbidden, fb...)
			}
		}
	}
	return readOnly, forbidden
}

// gitDirFiles protects a repository's git dir and, below modules/, its
// submodules' git dirs, depth levels down.
func gitDirFiles(gitdir string, depth int) (readOnly, forbidden []string) {
	for _, d := range []string{"hooks", "info"} {
		os.Mkdir(filepath.Join(gitdir, d), 0o755)
	}
	for _, name := range []string{"config", "hooks", "info", "commondir", "config.worktree"} {
		p := filepath.Join(gitdir, name)
		if _, err := os.Lstat(p); err == nil {
			readOnly = append(readOnly, p)
		} else if name == "commondir" || name == "config.worktree" {
			forbidden = append(forbidden, p)
		}
	}
	if depth >= 3 {
		return readOnly, forbidden
	}
	filepath.WalkDir(filepath.Join(gitdir, "modules"), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if _, err := os.Stat(filepath.Join(path, "HEAD")); err == nil {
			ro, fb := gitDirFiles(path, depth+1)
			readOnly, forbidden = append(readOnly, ro...), append(forbidden, fb...)
			return filepath.SkipDir
		}
		return nil
	})
	return readOnly, forbidden
}

// adminFiles protects a linked worktree's admin dir (git-dir/worktrees/X).
func adminFiles(admin string) (readOnly, forbidden []string) {
	for _, name := range []string{"commondir", "gitdir", "config.worktree"} {
		p := filepath.Join(admin, name)
		if _, err := os.Lstat(p); err == nil {
			readOnly = append(readOnly, p)
		} else if name == "config.worktree" {
			forbidden = append(forbidden, p)
		}
	}
	return readOnly, forbidden
}

// gitdirOf is the git dir a .git file names, relative to the worktree
// root, or "" when it names none.
func gitdirOf(dotgit, root string) string {
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return filepath.Clean(dir)
}
