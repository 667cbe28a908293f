package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop walk")

// walkFunc receives the slash path relative to the workspace root of every
// non-directory entry a walk visits.
type walkFunc func(rel string, d fs.DirEntry) error

// walkTree visits the files under start (an absolute path inside the
// resolved root) in lexical order, honouring the .gitignore files from the
// root down (and .git/info/exclude), always skipping .git, never following
// symlinked directories. A start that is itself ignored is still walked:
// the model asked for it by name. Entries in hidden (resolved paths, see
// Env.Hidden), or symbolic links into them, are skipped. fn returning
// errStopWalk ends the walk quietly; unreadable directories are skipped.
func walkTree(ctx context.Context, root, start string, hidden []string, fn walkFunc) error {
	fi, err := os.Stat(start)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, start)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	if fi.IsDir() {
		err = walkDir(ctx, start, rel, ancestorIgnores(root, rel), hidden, fn)
	} else {
		err = fn(rel, fs.FileInfoToDirEntry(fi))
	}
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

// ignoreFileLimit bounds how much of one ignore file is read.
const ignoreFileLimit = 1 << 20

// ancestorIgnores loads .git/info/exclude and the .gitignore files of the
// directories strictly above rel; walkDir loads rel's own when it enters.
func ancestorIgnores(root, rel string) ignoreStack {
	var stack ignoreStack
	if data, _, err := ReadRegular(filepath.Join(root, ".git", "info", "exclude"), ignoreFileLimit); err == nil {
		stack = append(stack, parseIgnore("", data))
	}
	if rel == "" {
		return stack
	}
	var dirs []string // deepest first
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	stack = appendIgnore(stack, root, "")
	for i := len(dirs) - 1; i >= 0; i-- {
		stack = appendIgnore(stack, filepath.Join(root, filepath.FromSlash(dirs[i])), dirs[i])
	}
	return stack
}

// appendIgnore returns stack plus the .gitignore of directory abs (slash
// path rel), without touching stack's backing array.
func appendIgnore(stack ignoreStack, abs, rel string) ignoreStack {
	data, _, err := ReadRegular(filepath.Join(abs, ".gitignore"), ignoreFileLimit)
	if err != nil {
		return stack
	}
	return append(stack[:len(stack):len(stack)], parseIgnore(rel, data))
}

// hiddenEntry says whether the entry e at p is in hidden, or a symbolic
// link into it (or one that does not resolve).
func hiddenEntry(hidden []string, p string, e fs.DirEntry) bool {
	if len(hidden) == 0 {
		return false
	}
	if e.Type()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(p)
		return err != nil || hiddenIn(hidden, real)
	}
	return hiddenIn(hidden, p)
}

// walkDir visits directory abs (slash path rel) under the rules in stack.
func walkDir(ctx context.Context, abs, rel string, stack ignoreStack, hidden []string, fn walkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			stack = appendIgnore(stack, abs, rel)
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		if stack.ignored(child, e.IsDir()) || hiddenEntry(hidden, filepath.Join(abs, name), e) {
			continue
		}
		if e.IsDir() {
			err = walkDir(ctx, filepath.Join(abs, name), child, stack, hidden, fn)
		} else {
			err = fn(child, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
