package diet

import (
	"bytes"
	"fmt"
	"math"

	"github.com/kwsdev/kws/vault"
)

// Eliding. Folding leaves every old message in the prompt, as a run's ref
// or FoldMarker, and that floor (a marker and its frame, some 7 tokens a
// message, plus a ref per run) grows with the session: past a few
// thousand messages the old history alone exceeds the trigger. So when,
// at an epoch, the history behind the cut costs more than elideAbovePct
// of the trigger, its oldest messages are folded again into runs whose
// other messages are not sent at all: the run's block holds, for each
// message the prompt still sent, that text (a run's ref with its markers,
// an earlier such run's ref, a ref, a small exact message), and the run's
// ref stands in the prompt for all of them. A run may open with an
// earlier one, so the history folds into a hierarchy and the prompt stays
// bounded at any length. Every message still resolves exactly: through
// the runs' blocks, one level at a time.
//
// An elided run rewrites the prompt from its first message, so the
// provider's cached prefix ends there; it brings the history down to
// elideToPct so that the next one is far off.

// Shares of the trigger that the history behind the cut may cost: above
// elideAbovePct an epoch elides, down to elideToPct; but never below
// elideMinTokens, so a short session (or a tiny trigger) keeps its runs.
// Measured on the fixtures' tune half replayed as one multi-agent session
// (TestPageFaultsReachTheModel, TestBoundedAtAnyLength): at 25/10 the
// prompt stays bounded but only 26 % of the questions' evidence is one
// fault away (runs of runs hide it); at 50/25, 92 % (with the run
// handles), and the bound still holds at 10,000 messages.
const (
	elideAbovePct  = 50
	elideToPct     = 25
	elideMinTokens = 1000
)

// elideAbove and elideTo are the history's bounds in tokens.
func (s *State) elideAbove() int {
	return max(elideMinTokens, s.p.TriggerTokens*elideAbovePct/100)
}

func (s *State) elideTo() int {
	return max(elideMinTokens/2, s.p.TriggerTokens*elideToPct/100)
}

// historyTokens is what the messages before end send, pinned ones aside
// (they are never folded).
func (s *State) historyTokens(end int) int {
	n := 0
	for i := 0; i < end && i < len(s.entries); i++ {
		if e := s.entries[i]; !e.msg.Pinned {
			n += e.sentTok
		}
	}
	return n
}

// elideSavings estimates what eliding would save at an epoch that moves
// the cut to end, given that the epoch's refs and folds save folded.
func (s *State) elideSavings(end, folded int) int {
	if !s.p.Fold {
		return 0
	}
	left := s.historyTokens(end) - folded
	if left <= s.elideAbove() {
		return 0
	}
	return left - s.elideTo()
}

// elidable reports whether entry i may join an elided run: sent, old, not
// pinned, not the current human turn nor one held back.
func (s *State) elidable(i, cur int) bool {
	e := s.entries[i]
	if e.form == formElided || e.planned || i == cur || e.msg.Pinned {
		return false
	}
	for _, d := range s.deferred {
		if d == i {
			return false
		}
	}
	return true
}

// opensRange reports whether an elided run may start at entry i, or end
// just before it: not a message folded into the run before it, nor one
// elided into it, nor a tool result, whose call must stay with it.
func (s *State) opensRange(i int) bool {
	e := s.entries[i]
	return e.form != formFolded && e.form != formElided && e.msg.Role != "tool"
}

// elide folds the oldest history before end into elided runs while it
// costs more than the share of the trigger elideAbovePct allows. Runs of
// messages that hold no elided run do not depend on one another, so all
// those an epoch needs are planned first and stored in one vault write
// (one commit, not one per run); runs of runs, which hold the ref of a
// run made just before, go one at a time.
func (s *State) elide(end, cur int) error {
	if !s.p.Fold || s.historyTokens(end) <= s.elideAbove() {
		return nil
	}
	for s.historyTokens(end) > s.elideTo() {
		ranges := s.planRanges(end, cur)
		if len(ranges) == 0 {
			if a, b := s.elideRange(end, cur, true); b > a {
				ranges = [][2]int{{a, b}}
			}
		}
		if len(ranges) == 0 {
			return nil
		}
		if err := s.elideRuns(ranges); err != nil {
			return err
		}
	}
	return nil
}

// planRanges is the oldest ranges of messages holding no elided run that
// bring the history before end down to elideTo, or as far as they go.
func (s *State) planRanges(end, cur int) [][2]int {
	var out [][2]int
	left := s.historyTokens(end)
	for left > s.elideTo() {
		a, b := s.elideRange(end, cur, false)
		if b == a {
			break
		}
		out = append(out, [2]int{a, b})
		for i := a; i < b; i++ {
			if e := s.entries[i]; !e.msg.Pinned {
				left -= e.sentTok
			}
			s.entries[i].planned = true
		}
		left += refTokensEstimate + elidedHandles*handleBytes/4
	}
	for _, r := range out {
		for i := r[0]; i < r[1]; i++ {
			s.entries[i].planned = false
		}
	}
	return out
}

// elideRange is the oldest range [a, b) of messages before end that one
// elided run can hold: at least two messages it sends, every message in
// it elidable (or elided into a run in it), the block of the texts it
// sends at most foldRunBytes, and both ends where opensRange allows.
// Unless nest is set, the range holds no elided run: runs fold into runs
// only once no range of other messages is left, and then only runs of the
// lowest level sent, so the hierarchy grows as a balanced tree and an old
// message is few faults deep.
func (s *State) elideRange(end, cur int, nest bool) (int, int) {
	top := 0
	if nest {
		top = math.MaxInt
		for j := 0; j < end; j++ {
			if e := s.entries[j]; e.level > 0 && e.form != formElided && s.elidable(j, cur) {
				top = min(top, e.level)
			}
		}
	}
	joins := func(j int) bool { return s.elidable(j, cur) && s.entries[j].level <= top }
	for a := 0; a < end; a++ {
		if !joins(a) || !s.opensRange(a) {
			continue
		}
		best, size, sent := a, 0, 0
		for j := a; ; j++ {
			if sent >= 2 && size <= foldRunBytes && (j == len(s.entries) || s.opensRange(j)) {
				best = j
			}
			if j >= end || size > foldRunBytes {
				break
			}
			if e := s.entries[j]; e.form != formElided {
				if !joins(j) {
					break
				}
				size += len(e.sent) + foldHeaderBytes
				sent++
			}
		}
		if best > a {
			return a, best
		}
	}
	return 0, 0
}

// elideRuns folds each range [a, b) into one elided run, their blocks
// stored in one write: a block holds each sent message's text, message a
// sends the run's ref and the others nothing.
func (s *State) elideRuns(ranges [][2]int) error {
	blocks := make([]vault.Block, len(ranges))
	handles := make([]string, len(ranges))
	for k, r := range ranges {
		blocks[k], handles[k] = s.elidedBlock(r[0], r[1])
	}
	ids, err := s.store.PutMany(blocks)
	if err != nil {
		return fmt.Errorf("diet: vault put run: %w", err)
	}
	for k, r := range ranges {
		if s.p.Verify {
			got, err := s.store.Get(ids[k])
			if err != nil {
				return fmt.Errorf("diet: verify run %s: %w", ids[k], err)
			}
			if !bytes.Equal(got, blocks[k].Data) {
				return fmt.Errorf("diet: verify run %s: vault bytes differ from the messages", ids[k])
			}
		}
		s.applyElided(r[0], r[1], ids[k], blocks[k], handles[k])
	}
	return nil
}

// elidedBlock is the block of an elided run over [a, b) and the handles
// its ref names.
func (s *State) elidedBlock(a, b int) (vault.Block, string) {
	var parts []FoldPart
	idx := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		idx = append(idx, i)
		if e := s.entries[i]; e.form != formElided {
			parts = append(parts, FoldPart{Index: i, Role: e.msg.Role, Text: e.sent})
		}
	}
	data := EncodeFold(parts)
	d := s.describeRun(idx)
	m := d.Meta(KindRun, a, s.runTokens(idx), true)
	m.Agent, m.Session, m.Turn = s.agent, s.session, s.entries[a].turn
	hs := s.handles(idx, d.Sensitive, elidedHandles*handleBytes)
	m.Summary = withHandles(runSummary([]int{a, b - 1}, d, 400), hs)
	return vault.Block{Data: data, Meta: m}, hs
}

// applyElided makes message a send the ref of the elided run id over
// [a, b), stored as block, and the others nothing.
func (s *State) applyElided(a, b int, id string, block vault.Block, hs string) {
	m := block.Meta
	sd := Description{Command: m.Command, Files: m.Files, Sensitive: m.Sensitive}
	idx := make([]int, 0, b-a)
	level := 0
	for i := a; i < b; i++ {
		idx = append(idx, i)
		if e := s.entries[i]; e.form != formElided {
			level = max(level, e.level)
		}
	}
	summary := runSummary([]int{a, b - 1}, sd, max(minSummary, min(maxSummary, len(block.Data)/s.p.RefDivisor)))
	ref := vault.Ref{Tag: vault.TagCtx, Kind: KindRun, ID: id, Chars: len(block.Data), Sensitive: sd.Sensitive,
		Priority: s.runPriority(idx), Summary: withHandles(summary, hs)}
	s.setSent(s.entries[a], formFold, ref.String())
	s.entries[a].level = level + 1
	for i := a + 1; i < b; i++ {
		if e := s.entries[i]; e.form != formElided {
			s.sentTok -= e.sentTok
			s.sentChars -= len(e.sent)
			e.form, e.sent, e.sentTok = formElided, "", 0
		}
	}
}
