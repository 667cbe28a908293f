package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// Why an action is kept unless Apply is told to overwrite (Action.Conflict).
const (
	// ConflictChanged: the path changed since the agent's last checkpoint,
	// by you or another agent.
	ConflictChanged = "changed since the agent's last checkpoint"
	// ConflictInTheWay: something the tracker does not track (a binary or
	// too large file, an ignored one, a symbolic link) is at the path or
	// stands for one of its directories.
	ConflictInTheWay = "an untracked file or link is in the way"
	// ConflictStale: the path changed between the preview and Apply;
	// kept even when overwriting, since nobody saw the change.
	ConflictStale = "changed since the preview"
	// ConflictNotEmpty: a directory to remove still holds untracked files.
	ConflictNotEmpty = "directory not empty"
)

// maxDiff bounds one file's diff in a preview.
const maxDiff = 64 << 10

// Action is what restoring does to one path.
type Action struct {
	// Change says what restoring does (Op) and the lines it adds and
	// deletes; for a sensitive file only the name is shown.
	Change
	// Dir: the path is a directory now or once restored.
	Dir bool
	// Diff is the unified diff from the file now to the file restored,
	// safe to print; "" for a directory, a change of mode only, or a
	// sensitive file, whose content is never shown.
	Diff string
	// Conflict says why the path is kept unless Apply overwrites; "" when
	// restoring it destroys nothing the agent did not write.
	Conflict string

	now, want entry
}

// Plan is the preview of a rewind: what Apply would do.
type Plan struct {
	Session string
	// Target is the checkpoint restored.
	Target uint64
	// Turn is the turn Target starts and MsgIndex the index of that
	// turn's first message in the transcript (where the caller forks the
	// conversation); 0 and -1 when Target is not a turn's start.
	Turn, MsgIndex int
	// Actions are in path order; none means the files already are as
	// they were.
	Actions []Action
}

// Conflicts counts the actions Apply keeps unless told to overwrite.
func (p *Plan) Conflicts() int {
	n := 0
	for _, a := range p.Actions {
		if a.Conflict != "" {
			n++
		}
	}
	return n
}

// Plan previews returning the files to just before turn's first change
// (turns count from 1). For a turn that recorded no checkpoint (it made no
// change) it restores the next recorded turn's start; past the last turn,
// the session's newest checkpoint. Plan.Turn and Plan.MsgIndex say which
// turn's start it restores.
func (t *Tracker) Plan(turn int) (*Plan, error) {
	if turn < 1 {
		return nil, fmt.Errorf("%w: turn %d (turns count from 1)", ErrNoTurn, turn)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	recs, err := t.store.Checkpoints(t.session)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: session %s has none", ErrNoCheckpoints, Name(t.session))
	}
	turns, _, err := history(recs)
	if err != nil {
		return nil, err
	}
	target := recs[len(recs)-1].Seq
	if i := slices.IndexFunc(turns, func(ts *turnSpan) bool { return ts.N >= turn }); i >= 0 {
		target = turns[i].Start
	}
	return t.plan(recs, target)
}

// PlanCheckpoint previews returning the files to checkpoint seq, any of
// the session's: Rewind.Undo to undo a rewind.
func (t *Tracker) PlanCheckpoint(seq uint64) (*Plan, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	recs, err := t.store.Checkpoints(t.session)
	if err != nil {
		return nil, err
	}
	return t.plan(recs, seq)
}

// plan builds the preview of restoring checkpoint seq of recs.
func (t *Tracker) plan(recs []vault.Checkpoint, seq uint64) (*Plan, error) {
	if err := t.sync(); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(recs, func(c vault.Checkpoint) bool { return c.Seq == seq })
	if i < 0 {
		return nil, fmt.Errorf("%w: session %s has no checkpoint %d", ErrNoCheckpoints, Name(t.session), seq)
	}
	want, err := replay(recs, seq)
	if err != nil {
		return nil, err
	}
	now, pending, err := t.scanNow()
	if err == nil {
		err = t.storeBlobs(pending)
	}
	if err != nil {
		return nil, err
	}
	p := &Plan{Session: t.session, Target: seq, MsgIndex: -1}
	if c := recs[i]; c.Reason == ReasonTurn {
		p.Turn, p.MsgIndex = c.Turn, c.MsgIndex
	}
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close()
	paths := slices.Sorted(maps.Keys(diff(now, want)))
	for _, rel := range paths {
		a, err := t.action(root, rel, now[rel], want[rel])
		if err != nil {
			return nil, err
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

// action previews restoring path rel from now to want.
func (t *Tracker) action(root *os.Root, rel string, now, want entry) (Action, error) {
	op, _ := opOf(now, want)
	a := Action{
		Change: Change{Path: rel, Name: Name(rel), Op: op, Sensitive: secrets.SensitivePath(rel)},
		Dir:    now.kind == kindDir && want.kind != kindFile || want.kind == kindDir,
		now:    now, want: want,
	}
	a.Conflict = t.conflict(root, rel, now, want)
	if a.Sensitive || now.hash == want.hash {
		return a, nil
	}
	x, y, err := contents(t.store, now, want)
	if err != nil {
		return a, err
	}
	from, to := "a/"+a.Name, "b/"+a.Name
	if now.kind != kindFile {
		from = "/dev/null"
	}
	if want.kind != kindFile {
		to = "/dev/null"
	}
	d, added, deleted := tools.UnifiedDiff(from, to, x, y)
	a.Diff, a.Added, a.Deleted = cutDiff(termsafe.Strip(d)), added, deleted
	return a, nil
}

// conflict says why restoring rel from now to want could destroy work
// that is not the agent's: the path is not as the agent last left it (a
// change since its last checkpoint, or one an earlier rewind kept), or
// something untracked is where the restore writes. A file deleted since
// is no conflict: recreating it destroys nothing.
func (t *Tracker) conflict(root *os.Root, rel string, now, want entry) string {
	switch {
	case now.kind != kindNone && now != t.st.mine(rel):
		return ConflictChanged
	case want.kind != kindNone && inTheWay(root, rel, now.kind == kindNone) != nil:
		return ConflictInTheWay
	}
	return ""
}

// errInTheWay is returned for a path whose place, or one of whose
// directories' places, holds something else.
var errInTheWay = errors.New("something untracked is in the way")

// inTheWay reports errInTheWay when one of rel's directories is not a
// directory (a symbolic link, a file), or, when self, when anything is at
// rel itself.
func inTheWay(root *os.Root, rel string, self bool) error {
	dir := ""
	for part := range strings.SplitSeq(path.Dir(rel), "/") {
		if part == "." {
			break
		}
		dir = path.Join(dir, part)
		fi, err := root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil || !fi.IsDir() {
			return fmt.Errorf("%w at %s", errInTheWay, Name(dir))
		}
	}
	if !self {
		return nil
	}
	if _, err := root.Lstat(rel); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w at %s", errInTheWay, Name(rel))
	}
	return nil
}

// cutDiff bounds d to maxDiff bytes, cut at a line's end.
func cutDiff(d string) string {
	if len(d) <= maxDiff {
		return d
	}
	cut := strings.LastIndexByte(d[:maxDiff], '\n') + 1
	return d[:cut] + fmt.Sprintf("… diff cut at %d KiB of %d KiB\n", maxDiff>>10, len(d)>>10)
}
