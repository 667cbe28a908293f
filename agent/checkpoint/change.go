package checkpoint

import (
	"maps"
	"slices"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/secrets"
)

// Op is what happened to a path between two states: in a change, what a
// turn or a tool call did; in a rewind's plan, what restoring does.
type Op string

// Ops.
const (
	// OpCreate: the path did not exist (a rewind recreates a file
	// deleted since).
	OpCreate Op = "create"
	// OpModify: the file's bytes changed (a rewind rewrites it).
	OpModify Op = "modify"
	// OpDelete: the path was removed (a rewind deletes a file created
	// since, and a directory created since once it is empty).
	OpDelete Op = "delete"
	// OpMode: only the permission bits changed.
	OpMode Op = "mode"
)

// Change is one file that changed between two states. Directories are
// restored with the files but not listed as changes.
type Change struct {
	// Path is exact: relative to the root, slash-separated, any bytes
	// (a newline, an escape sequence). Never print it; print Name.
	Path string
	// Name is Path safe to show on a terminal (see Name).
	Name string
	Op   Op
	// Added and Deleted count the lines; both 0 for a sensitive file.
	Added, Deleted int
	// Sensitive: a credentials file (secrets.SensitivePath), whose
	// content and line counts are never shown.
	Sensitive bool
}

// opOf says what turns entry old into cur, and whether they differ.
func opOf(old, cur entry) (Op, bool) {
	switch {
	case old == cur:
		return "", false
	case old.kind == kindNone:
		return OpCreate, true
	case cur.kind == kindNone:
		return OpDelete, true
	case old.kind != cur.kind:
		// A file replaced by a directory, or the other way round: the
		// file is created or deleted, which is what a file's change says.
		if cur.kind == kindFile {
			return OpCreate, true
		}
		return OpDelete, true
	case old.hash != cur.hash:
		return OpModify, true
	}
	return OpMode, true
}

// changes lists the files that differ between old and cur, in path order,
// with line counts read from the store.
func changes(store Store, old, cur manifest) ([]Change, error) {
	d := diff(old, cur)
	var out []Change
	for _, p := range slices.Sorted(maps.Keys(d)) {
		o, c := old[p], cur[p]
		if o.kind != kindFile && c.kind != kindFile {
			continue
		}
		op, _ := opOf(o, c)
		ch := Change{Path: p, Name: Name(p), Op: op, Sensitive: secrets.SensitivePath(p)}
		if !ch.Sensitive && o.hash != c.hash {
			a, b, err := contents(store, o, c)
			if err != nil {
				return nil, err
			}
			_, ch.Added, ch.Deleted = tools.UnifiedDiff("", "", a, b)
		}
		out = append(out, ch)
	}
	return out, nil
}

// contents returns the bytes of the files a and b, "" for what is not a
// file.
func contents(store Store, a, b entry) (string, string, error) {
	x, err := content(store, a)
	if err != nil {
		return "", "", err
	}
	y, err := content(store, b)
	return x, y, err
}

// content returns the bytes of file e from the store, "" for what is not a
// file.
func content(store Store, e entry) (string, error) {
	if e.kind != kindFile {
		return "", nil
	}
	data, err := store.Blob(e.hash)
	return string(data), err
}
