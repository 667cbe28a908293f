package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrEscape is wrapped by Resolve's error for a path that lies outside the
// workspace, lexically or through a symlink.
var ErrEscape = errors.New("path escapes the workspace")

// ErrHidden is wrapped by a file tool's error for a path in Env.Hidden.
var ErrHidden = errors.New("kws's own data and config are not open to agents")

// ErrNoWorkspace is returned when a file tool runs without a workspace.
var ErrNoWorkspace = errors.New("no workspace is set")

// Resolve returns the absolute, symlink-resolved path of rel inside
// workspace. rel may be relative to the workspace or absolute inside it.
// It rejects ".." escapes, absolute paths elsewhere, and symlinks anywhere
// along the path that lead outside; for a path that does not exist yet
// (a file about to be created) it resolves the deepest existing ancestor.
func Resolve(workspace, rel string) (string, error) {
	_, abs, err := resolveIn(workspace, rel)
	return abs, err
}

// resolveIn is Resolve that also returns the resolved workspace root.
func resolveIn(workspace, rel string) (root, abs string, err error) {
	if workspace == "" {
		return "", "", ErrNoWorkspace
	}
	root, err = filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", "", fmt.Errorf("workspace %s: %w", workspace, err)
	}
	if strings.ContainsRune(rel, 0) {
		return "", "", fmt.Errorf("path %q contains a NUL byte", rel)
	}
	var p string
	switch {
	case !filepath.IsAbs(rel):
		p = filepath.Join(root, rel)
	case within(root, filepath.Clean(rel)):
		p = filepath.Clean(rel)
	case within(filepath.Clean(workspace), filepath.Clean(rel)):
		// An absolute path spelled through the unresolved workspace.
		sub, _ := filepath.Rel(filepath.Clean(workspace), filepath.Clean(rel))
		p = filepath.Join(root, sub)
	default:
		return "", "", fmt.Errorf("%w: %s", ErrEscape, rel)
	}
	if !within(root, p) {
		return "", "", fmt.Errorf("%w: %s", ErrEscape, rel)
	}
	real, err := resolveExisting(p)
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", rel, err)
	}
	if !within(root, real) {
		return "", "", fmt.Errorf("%w: %s (through a symlink)", ErrEscape, rel)
	}
	return root, real, nil
}

// resolveExisting evaluates the symlinks of the deepest existing ancestor
// of p and appends the rest. A dangling symlink on the way is refused:
// following it could create a file anywhere.
func resolveExisting(p string) (string, error) {
	existing := p
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if fi, lerr := os.Lstat(existing); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a dangling symlink", filepath.Base(existing))
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", err
		}
		rest = append([]string{filepath.Base(existing)}, rest...)
		existing = parent
	}
}

// within reports whether p is root or lies below it; both are clean.
func within(root, p string) bool {
	if root == string(filepath.Separator) {
		return filepath.IsAbs(p)
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// resolve maps a model-supplied path to its absolute location and its
// slash-separated path relative to the workspace ("." for the root).
func (e *Env) resolve(p string) (abs, rel string, err error) {
	if e == nil {
		return "", "", ErrNoWorkspace
	}
	if p == "" {
		p = "."
	}
	root, abs, err := resolveIn(e.Workspace, p)
	if err != nil {
		return "", "", err
	}
	if e.hides(abs) {
		return "", "", fmt.Errorf("%w: %s", ErrHidden, p)
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return "", "", fmt.Errorf("relative path of %s: %w", abs, err)
	}
	return abs, filepath.ToSlash(r), nil
}

// resolveRead is resolve for a path to read: an absolute path outside the
// workspace may also lie in one of ReadRoots, and is then shown as it is.
func (e *Env) resolveRead(p string) (abs, rel string, err error) {
	abs, rel, err = e.resolve(p)
	if !errors.Is(err, ErrEscape) || !filepath.IsAbs(p) {
		return abs, rel, err
	}
	for _, root := range e.ReadRoots {
		if a, rerr := Resolve(root, p); rerr == nil {
			return a, p, nil
		}
	}
	return abs, rel, err
}

// hides says whether abs (resolved) is or lies in one of e.Hidden, or
// holds one: a walk from it must skip them (walkTree does).
func (e *Env) hides(abs string) bool {
	return e != nil && hiddenIn(e.hidden(), abs)
}

// hidden is e.Hidden resolved: symlinks evaluated where they exist.
func (e *Env) hidden() []string {
	out := make([]string, 0, len(e.Hidden))
	for _, h := range e.Hidden {
		if h == "" {
			continue
		}
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		if real, err := filepath.EvalSymlinks(h); err == nil {
			h = real
		}
		out = append(out, filepath.Clean(h))
	}
	return out
}

// hiddenIn reports whether p is one of hidden or lies inside one.
func hiddenIn(hidden []string, p string) bool {
	for _, h := range hidden {
		if within(h, p) {
			return true
		}
	}
	return false
}

// root returns the resolved workspace root.
func (e *Env) root() (string, error) {
	root, _, err := resolveIn(e.workspace(), ".")
	return root, err
}

func (e *Env) workspace() string {
	if e == nil {
		return ""
	}
	return e.Workspace
}

// pathError turns a resolution or file-system error into a result the
// model can act on, or reports it as an infrastructure failure.
func pathError(rel string, err error) (Result, error) {
	switch {
	case errors.Is(err, ErrNoWorkspace):
		return Result{}, err
	case errors.Is(err, ErrHidden):
		return errResult("%s is kws's own data or config (vault, transcripts, API key): file tools do not open it", rel), nil
	case errors.Is(err, fs.ErrNotExist):
		return errResult("no such file or directory: %s", rel), nil
	case errors.Is(err, fs.ErrPermission):
		return errResult("permission denied: %s", rel), nil
	}
	return errResult("%v", err), nil
}
