package checkpoint

import (
	"slices"
	"time"

	"github.com/kwsdev/kws/vault"
)

// Turn is one user turn as its checkpoints saw it.
type Turn struct {
	// N counts the session's user turns from 1.
	N int
	// MsgIndex is the index in the transcript of the turn's first
	// message: where a rewind of the conversation to this turn forks it.
	MsgIndex int
	// Start is the checkpoint of the state just before the turn's first
	// change, which Plan(N) restores; End is the turn's last checkpoint
	// (Start when no tool call changed a file).
	Start, End uint64
	Time       time.Time
	// Changes are the files the turn's tool calls changed, each from its
	// state at Start to its state after the last call that changed it.
	Changes        []Change
	Added, Deleted int
}

// Rewind is one Apply as its checkpoints saw it.
type Rewind struct {
	// Undo is the checkpoint of the state just before the rewind:
	// PlanCheckpoint(Undo) undoes it.
	Undo uint64
	// Seq is the checkpoint of the state the rewind left; 0 when it did
	// not finish (kws stopped midway).
	Seq uint64
	// Target is the checkpoint it restored.
	Target uint64
	// Turn is the session's newest turn at the time.
	Turn    int
	Time    time.Time
	Changes []Change
}

// span is a stretch of checkpoints and the files changed in it: before
// holds each path's entry as it was when the stretch began, after its
// entry once the stretch changed it.
type span struct {
	before, after manifest
}

// touch records that the stretch's checkpoint changed paths d, the state
// before it being cur; counted says whether the change is the stretch's
// own (a turn's tool call) rather than one seen along the way.
func (s *span) touch(d delta, cur manifest, counted bool) {
	for p, e := range d {
		if _, ok := s.before[p]; !ok {
			s.before[p] = cur[p]
		}
		if counted {
			s.after[p] = e
		}
	}
}

// changed returns the stretch's changed files.
func (s *span) changed(store Store) ([]Change, error) {
	before := manifest{}
	for p := range s.after {
		before[p] = s.before[p]
	}
	return changes(store, before, s.after)
}

// turnSpan and rewindSpan are a Turn and a Rewind being read.
type turnSpan struct {
	Turn
	span
}

type rewindSpan struct {
	Rewind
	span
}

// history reads the session's records, oldest first, into its turns
// (those the conversation still holds: a turn begun again drops the turns
// after it) and its rewinds.
func history(recs []vault.Checkpoint) ([]*turnSpan, []*rewindSpan, error) {
	var turns []*turnSpan
	var rewinds []*rewindSpan
	var open *turnSpan
	cur := manifest{}
	for _, c := range recs {
		d, err := decodeDelta(c.Manifest)
		if err != nil {
			return nil, nil, err
		}
		if open != nil {
			own := c.Reason == ReasonTool && c.Turn == open.N
			open.touch(d, cur, own)
			if own {
				open.End = c.Seq
			}
		}
		switch c.Reason {
		case ReasonTurn:
			turns = slices.DeleteFunc(turns, func(t *turnSpan) bool { return t.N >= c.Turn })
			open = &turnSpan{Turn: Turn{N: c.Turn, MsgIndex: c.MsgIndex, Start: c.Seq, End: c.Seq, Time: c.Time},
				span: span{before: manifest{}, after: manifest{}}}
			turns = append(turns, open)
		case ReasonRewind:
			rewinds = append(rewinds, &rewindSpan{Rewind: Rewind{Undo: c.Seq, Target: c.Target, Turn: c.Turn, Time: c.Time},
				span: span{before: manifest{}, after: manifest{}}})
		case ReasonRewound:
			if n := len(rewinds); n > 0 && rewinds[n-1].Seq == 0 {
				rewinds[n-1].Seq = c.Seq
				rewinds[n-1].touch(d, cur, true)
			}
		}
		cur.apply(d)
	}
	return turns, rewinds, nil
}

// Turns lists the session's turns that recorded a checkpoint, oldest
// first, with the files each changed and their line counts.
func (t *Tracker) Turns() ([]Turn, error) {
	turns, _, err := t.history()
	if err != nil {
		return nil, err
	}
	out := make([]Turn, len(turns))
	for i, ts := range turns {
		if ts.Changes, err = ts.changed(t.store); err != nil {
			return nil, err
		}
		for _, c := range ts.Changes {
			ts.Added += c.Added
			ts.Deleted += c.Deleted
		}
		out[i] = ts.Turn
	}
	return out, nil
}

// Rewinds lists the session's rewinds, oldest first, with the files each
// changed.
func (t *Tracker) Rewinds() ([]Rewind, error) {
	_, rewinds, err := t.history()
	if err != nil {
		return nil, err
	}
	out := make([]Rewind, len(rewinds))
	for i, rs := range rewinds {
		if rs.Changes, err = rs.changed(t.store); err != nil {
			return nil, err
		}
		out[i] = rs.Rewind
	}
	return out, nil
}

// history reads the session's turns and rewinds from the store.
func (t *Tracker) history() ([]*turnSpan, []*rewindSpan, error) {
	recs, err := t.store.Checkpoints(t.session)
	if err != nil {
		return nil, nil, err
	}
	return history(recs)
}
