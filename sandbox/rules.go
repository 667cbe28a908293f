package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// grants is the allow-list a policy becomes: Landlock only grants, so
// hiding a path means granting every sibling along the way down to it.
type grants struct {
	roDirs, roFiles, rwDirs, rwFiles []string
}

// planner turns a policy into grants.
type planner struct {
	hidden []string // resolved, absolute
	g      grants
}

// plan computes the grants of p: read everything but p.Hidden, write the
// workspace, the temp dir, p.Writable and the null devices.
func plan(p Policy) grants {
	pl := &planner{}
	for _, h := range p.Hidden {
		if h != "" {
			pl.hidden = append(pl.hidden, resolve(h))
		}
	}
	pl.grant("/", false, false)
	// The workspace and the temp dir are granted even inside a hidden
	// dir (tests put both in temp dirs); hidden paths below them are
	// still left out.
	for _, root := range []string{p.Workspace, p.Temp} {
		if root != "" {
			pl.grant(resolve(root), true, true)
		}
	}
	for _, w := range p.Writable {
		if w != "" {
			pl.grant(resolve(w), true, false)
		}
	}
	pl.g.rwFiles = append(pl.g.rwFiles, "/dev/null", "/dev/zero", "/dev/full")
	return pl.g
}

// grant allows root's tree minus the hidden paths in it, read-only or
// read-write. With exempt set, root itself is granted even when it lies
// inside a hidden path; the hidden paths below it are still left out.
func (pl *planner) grant(root string, write, exempt bool) {
	hidden := pl.hidden
	if exempt {
		hidden = nil
		for _, h := range pl.hidden {
			if !within(root, h) {
				hidden = append(hidden, h)
			}
		}
	} else if covered(hidden, root) {
		return
	}
	pl.walk(root, write, hidden)
}

// walk grants root's tree minus the given hidden paths.
func (pl *planner) walk(root string, write bool, hidden []string) {
	fi, err := os.Stat(root)
	if err != nil {
		return
	}
	if !fi.IsDir() || !holdsHidden(hidden, root) {
		pl.add(root, fi.IsDir(), write)
		return
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if e.Type()&os.ModeSymlink == 0 {
			if !covered(hidden, p) {
				pl.walk(p, write, hidden)
			}
			continue
		}
		// A rule follows a symlink to its target. Never for writing
		// (the target lies outside the granted tree), and for reading
		// only when the target neither is nor holds a hidden path.
		if write {
			continue
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil || covered(pl.hidden, target) || holdsHidden(pl.hidden, target) {
			continue
		}
		if tfi, err := os.Stat(target); err == nil {
			pl.add(target, tfi.IsDir(), false)
		}
	}
}

// add records one rule.
func (pl *planner) add(path string, dir, write bool) {
	switch {
	case dir && write:
		pl.g.rwDirs = append(pl.g.rwDirs, path)
	case dir:
		pl.g.roDirs = append(pl.g.roDirs, path)
	case write:
		pl.g.rwFiles = append(pl.g.rwFiles, path)
	default:
		pl.g.roFiles = append(pl.g.roFiles, path)
	}
}

// covered reports whether path is one of hidden or lies inside one.
func covered(hidden []string, path string) bool {
	for _, h := range hidden {
		if within(path, h) {
			return true
		}
	}
	return false
}

// holdsHidden reports whether one of hidden lies strictly inside dir.
func holdsHidden(hidden []string, dir string) bool {
	for _, h := range hidden {
		if h != dir && within(h, dir) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// resolve makes path absolute and resolves the symlinks of its longest
// existing prefix, so a hidden path that does not exist yet is still
// compared by where it would be created.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == "/" {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
