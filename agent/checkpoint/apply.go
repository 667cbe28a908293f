package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"syscall"

	"github.com/kwsdev/kws/vault"
)

// Result is what Apply did.
type Result struct {
	// Undo is the checkpoint of the state just before the rewind:
	// PlanCheckpoint(Undo) then Apply undoes it.
	Undo uint64
	// Seq is the checkpoint of the state the rewind left.
	Seq uint64
	// Restored are the actions carried out.
	Restored []Action
	// Kept are the actions left undone, Conflict saying why: a conflict
	// without overwrite, a change since the preview, a directory that
	// is not empty.
	Kept []Action
	// Failed are the actions that failed, with the reason.
	Failed []Failure
}

// Failure is an action that failed.
type Failure struct {
	Action
	Err error
}

// Apply carries out plan: every action but those with a conflict, which
// overwrite carries out too. A path that changed since the preview is
// kept whatever overwrite says. Apply records the state just before
// (Result.Undo, a checkpoint with ReasonRewind) and after it (ReasonRewound),
// so the rewind can itself be rewound. Files are written whole under a
// temporary name and renamed into place, with the recorded permission bits;
// a file deleted since is recreated, a file created since deleted, and a
// directory created since removed once empty. It fails only when it cannot
// scan or record; a path it could not restore is in Result.Failed.
func (t *Tracker) Apply(plan *Plan, overwrite bool) (*Result, error) {
	if plan.Session != t.session {
		return nil, fmt.Errorf("checkpoint: the plan is for session %s, not %s", Name(plan.Session), Name(t.session))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.sync(); err != nil {
		return nil, err
	}
	now, pending, err := t.scanNow()
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	res := &Result{}
	todo := t.decide(root, plan, now, overwrite, res)
	before := vault.Checkpoint{Turn: t.turn, MsgIndex: -1, Reason: ReasonRewind, Target: plan.Target}
	if _, res.Undo, err = t.record(before, now, pending); err != nil {
		return nil, err
	}
	t.restore(root, todo, res)
	after, pending, err := t.scanNow()
	if err != nil {
		return res, err
	}
	rewound := vault.Checkpoint{Turn: t.turn, MsgIndex: -1, Reason: ReasonRewound, Target: plan.Target}
	if _, res.Seq, err = t.record(rewound, after, pending); err != nil {
		return res, err
	}
	return res, nil
}

// decide returns the actions of plan to carry out and puts the others in
// res.Kept: conflicts unless overwrite, and paths that changed since the
// preview (now is the state at hand).
func (t *Tracker) decide(root *os.Root, plan *Plan, now manifest, overwrite bool, res *Result) []Action {
	var todo []Action
	for _, a := range plan.Actions {
		stale := now[a.Path] != a.now ||
			a.Conflict == "" && a.want.kind != kindNone && inTheWay(root, a.Path, a.now.kind == kindNone) != nil
		switch {
		case stale:
			a.Conflict = ConflictStale
			res.Kept = append(res.Kept, a)
		case a.Conflict != "" && !overwrite:
			res.Kept = append(res.Kept, a)
		default:
			todo = append(todo, a)
		}
	}
	return todo
}

// restore carries out todo (in path order) in the order that lets every
// step succeed: files removed, then directories removed deepest first,
// directories made shallowest first, files written, modes set.
func (t *Tracker) restore(root *os.Root, todo []Action, res *Result) {
	steps := []struct {
		does func(Action) bool
		run  func(Action) error
	}{
		{func(a Action) bool { return a.now.kind == kindFile && a.want.kind != kindFile }, func(a Action) error { return root.Remove(a.Path) }},
		{func(a Action) bool { return a.now.kind == kindDir && a.want.kind != kindDir }, func(a Action) error { return root.Remove(a.Path) }},
		{func(a Action) bool { return a.want.kind == kindDir && a.now.kind != kindDir }, func(a Action) error { return makeDir(root, a.Path, a.want.perm) }},
		{func(a Action) bool { return a.want.kind == kindFile && a.now.hash != a.want.hash }, t.writer(root)},
		{func(a Action) bool { return a.want.kind == a.now.kind && a.want.hash == a.now.hash }, func(a Action) error { return root.Chmod(a.Path, a.want.perm) }},
	}
	errs := make([]error, len(todo))
	for i, s := range steps {
		for k := range todo {
			if i == 1 { // deepest first: a directory's paths sort after it
				k = len(todo) - 1 - k
			}
			if a := todo[k]; errs[k] == nil && s.does(a) {
				errs[k] = s.run(a)
			}
		}
	}
	for k, a := range todo {
		switch err := errs[k]; {
		case err == nil:
			res.Restored = append(res.Restored, a)
		case a.now.kind == kindDir && a.want.kind == kindNone && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)):
			a.Conflict = ConflictNotEmpty
			res.Kept = append(res.Kept, a)
		default:
			res.Failed = append(res.Failed, Failure{a, err})
		}
	}
}

// writer returns the step that writes a file's recorded bytes.
func (t *Tracker) writer(root *os.Root) func(Action) error {
	return func(a Action) error {
		data, err := t.store.Blob(a.want.hash)
		if err != nil {
			return err
		}
		return writeFile(root, a.Path, data, a.want.perm)
	}
}

// makeDir makes directory rel with permission bits perm, removing a link
// or a file in its place (a conflict the caller chose to overwrite).
func makeDir(root *os.Root, rel string, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if err := inTheWay(root, rel, false); err != nil {
		return err
	}
	if fi, err := root.Lstat(rel); err == nil && !fi.IsDir() {
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	if err := root.Mkdir(rel, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return root.Chmod(rel, perm)
}

// writeFile writes data to rel with permission bits perm: under a
// temporary name in the same directory, renamed into place, so that a
// reader never sees half a file and a link at rel is replaced, not
// followed. Its missing directories are made; one of them being a link or
// a file is an error (the link could lead elsewhere in the tree).
func writeFile(root *os.Root, rel string, data []byte, perm fs.FileMode) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if err := inTheWay(root, rel, false); err != nil {
		return err
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if fi, err := root.Lstat(rel); err == nil && fi.IsDir() {
		if err := root.Remove(rel); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, fmt.Sprintf(".kws-rewind-%016x", rand.Uint64()))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}
