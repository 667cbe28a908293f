package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/termsafe"
)

// RewindRequest is what /rewind and kws rewind ask: with no turn, the list
// of turns; with one, a preview of going back to just before it, and with
// Yes the rewind itself, of the files, the conversation or both.
type RewindRequest struct {
	// Turn counts the session's user turns from 1; 0 lists them.
	Turn int
	// Files and Conversation say what goes back; neither means both.
	Files, Conversation bool
	// Yes does it; without it the answer is the preview.
	Yes bool
	// Force overwrites files changed since the agent's last checkpoint
	// (by you or another agent), which are kept otherwise.
	Force bool
	// Undo goes back on the last rewind of the files (Turn is 0).
	Undo bool
}

// ParseRewind reads a /rewind line's words after the command:
// [N] [files|conversation|both] [--yes] [--force], or undo [--yes].
func ParseRewind(words []string) (RewindRequest, error) {
	var r RewindRequest
	for _, w := range words {
		switch w {
		case "files", "--files":
			r.Files = true
		case "conversation", "--conversation":
			r.Conversation = true
		case "both", "--both":
			r.Files, r.Conversation = true, true
		case "--yes", "-y":
			r.Yes = true
		case "--force":
			r.Force = true
		case "undo":
			r.Undo = true
		default:
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || r.Turn != 0 {
				return RewindRequest{}, fmt.Errorf("/rewind [N] [files|conversation|both] [--yes] [--force]: %q is not a turn number from 1", w)
			}
			r.Turn = n
		}
	}
	return r.Checked()
}

// Checked is r with its defaults (neither files nor conversation means
// both), or why it asks nothing that can be done.
func (r RewindRequest) Checked() (RewindRequest, error) {
	switch {
	case r.Turn < 0:
		return RewindRequest{}, errors.New("rewind: a turn number from 1")
	case r.Undo && (r.Turn != 0 || r.Conversation):
		return RewindRequest{}, errors.New("rewind undo: it undoes the last rewind of the files, and takes no turn")
	case r.Undo:
		r.Files = true
	case !r.Files && !r.Conversation:
		r.Files, r.Conversation = true, true
	}
	return r, nil
}

// rewinding is the part of a session a rewind works on: the checkpoints
// of its files and, for the conversation, its transcript and data dir.
type rewinding struct {
	tracker *checkpoint.Tracker
	sess    *transcript.Transcript
	dataDir string
}

// do answers r: the turns, a preview, or the rewind. A rewind of the
// conversation forks the transcript before the turn and returns the new
// session's id, which the agent (or kws run --resume) continues.
func (rw rewinding) do(r RewindRequest) (reply, fork string, err error) {
	if r.Turn == 0 && !r.Undo {
		return rw.list()
	}
	plan, err := rw.plan(r)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	if !r.Yes {
		writePreview(&b, plan, r)
		return b.String(), "", nil
	}
	if r.Files {
		res, err := rw.tracker.Apply(plan, r.Force)
		if err != nil {
			return "", "", err
		}
		writeResult(&b, res)
	}
	if r.Conversation {
		if plan.MsgIndex < 0 {
			return b.String(), "", errors.New("that checkpoint starts no turn: the conversation stays")
		}
		if fork, err = rw.sess.Fork(rw.dataDir, plan.MsgIndex); err != nil {
			return b.String(), "", err
		}
		fmt.Fprintf(&b, "the conversation goes back to before turn %d: session %s continues it; %s keeps all of it\n", r.Turn, fork, rw.sess.ID())
	}
	return b.String(), fork, nil
}

// plan is the preview of the rewind r asks: to before its turn, or back
// to where the last rewind started.
func (rw rewinding) plan(r RewindRequest) (*checkpoint.Plan, error) {
	if !r.Undo {
		return rw.tracker.Plan(r.Turn)
	}
	rewinds, err := rw.tracker.Rewinds()
	if err != nil {
		return nil, err
	}
	if len(rewinds) == 0 {
		return nil, errors.New("no rewind to undo")
	}
	return rw.tracker.PlanCheckpoint(rewinds[len(rewinds)-1].Undo)
}

// list is the turns with the files each changed and their lines.
func (rw rewinding) list() (string, string, error) {
	turns, err := rw.tracker.Turns()
	if err != nil {
		return "", "", err
	}
	if len(turns) == 0 {
		return "no turn has changed a file yet (checkpoints start at a turn's first change)\n", "", nil
	}
	var b strings.Builder
	for _, t := range turns {
		fmt.Fprintf(&b, "turn %d  %s  %d files  +%d −%d\n", t.N, t.Time.Local().Format("15:04:05"), len(t.Changes), t.Added, t.Deleted)
		for _, c := range t.Changes {
			fmt.Fprintf(&b, "  %s\n", changeLine(c))
		}
	}
	b.WriteString("/rewind N previews going back to just before turn N (files and conversation; add files or conversation for one), --yes does it\n")
	return b.String(), "", nil
}

// changeLine is one file of a change list: its op, name and lines (a
// sensitive file's name alone).
func changeLine(c checkpoint.Change) string {
	if c.Sensitive {
		return fmt.Sprintf("%-6s %s (sensitive: content not shown)", c.Op, c.Name)
	}
	return fmt.Sprintf("%-6s %s  +%d −%d", c.Op, c.Name, c.Added, c.Deleted)
}

// writePreview says what a rewind would do, file by file with its diff,
// and how to do it.
func writePreview(b *strings.Builder, plan *checkpoint.Plan, r RewindRequest) {
	if r.Undo {
		b.WriteString("undo the last rewind:\n")
	} else {
		fmt.Fprintf(b, "rewind to before turn %d:\n", r.Turn)
	}
	if r.Files {
		if len(plan.Actions) == 0 {
			b.WriteString("  the files already are as they were\n")
		}
		for _, a := range plan.Actions {
			line := "  " + changeLine(a.Change)
			if a.Conflict != "" {
				line += "  ! " + a.Conflict + " (kept; --force overwrites)"
			}
			b.WriteString(line + "\n")
		}
		for _, a := range plan.Actions {
			if a.Diff != "" {
				b.WriteString(a.Diff)
				if !strings.HasSuffix(a.Diff, "\n") {
					b.WriteByte('\n')
				}
			}
		}
	}
	if r.Conversation {
		fmt.Fprintf(b, "  the conversation continues from before turn %d, in a new session; this one stays saved\n", r.Turn)
	}
	words := []string{agent.CommandRewind, strconv.Itoa(r.Turn)}
	switch {
	case r.Undo:
		words[1] = "undo"
	case r.Files && !r.Conversation:
		words = append(words, "files")
	case r.Conversation && !r.Files:
		words = append(words, "conversation")
	}
	fmt.Fprintf(b, "%s --yes does it; it can be undone by rewinding again\n", strings.Join(words, " "))
}

// writeResult says what a rewind of the files did.
func writeResult(b *strings.Builder, res *checkpoint.Result) {
	fmt.Fprintf(b, "restored %d files", len(res.Restored))
	if len(res.Kept) > 0 {
		fmt.Fprintf(b, ", kept %d", len(res.Kept))
	}
	if len(res.Failed) > 0 {
		fmt.Fprintf(b, ", %d failed", len(res.Failed))
	}
	b.WriteString("\n")
	for _, a := range res.Kept {
		fmt.Fprintf(b, "  kept %s: %s\n", a.Name, a.Conflict)
	}
	for _, f := range res.Failed {
		fmt.Fprintf(b, "  failed %s: %s\n", f.Name, termsafe.OneLine(f.Err.Error()))
	}
}

// RewindSession answers r for a session no agent is running, as kws
// rewind does: its checkpoints from the vault and, for the conversation,
// its transcript from the data dir.
func RewindSession(store checkpoint.Store, dataDir, session string, r RewindRequest) (reply, fork string, err error) {
	rw := rewinding{dataDir: dataDir}
	if rw.tracker, err = checkpoint.Load(store, session); err != nil {
		return "", "", err
	}
	if r.Conversation && r.Yes {
		sess, _, err := transcript.Open(dataDir, session)
		if err != nil {
			return "", "", fmt.Errorf("the conversation of %s: %w (an agent running it rewinds with /rewind in its pane)", checkpoint.Name(session), err)
		}
		defer sess.Close()
		rw.sess = sess
	}
	return rw.do(r)
}
