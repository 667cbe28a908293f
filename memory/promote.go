package memory

import (
	"context"
	"strings"
	"unicode"
)

// Action is what promoting a candidate did.
type Action string

// Promotion actions.
const (
	// ActionAdd stored a new memory.
	ActionAdd Action = "add"
	// ActionUpdate changed an existing memory.
	ActionUpdate Action = "update"
	// ActionDelete removed the memory the candidate said to forget.
	ActionDelete Action = "delete"
	// ActionNoop changed nothing: a duplicate, too little confidence, a
	// secret, or nothing to forget.
	ActionNoop Action = "noop"
	// ActionPending queued the candidate for the user's approval.
	ActionPending Action = "pending"
)

// Promote decides what a candidate does to the memories of scope and does
// it, recording prov as the provenance:
//
//   - blank text or a secret: noop;
//   - confidence below Options.MinConfidence: noop, or pending when
//     Options.Review is set and the confidence reaches Options.ReviewFloor
//     (the returned Memory then carries the pending id);
//   - forget: delete the most similar memory if it reaches
//     Options.DeleteSimilarity, else noop;
//   - rename ("OLD was renamed to NEW"): rewrite every memory of the scope
//     that names OLD and update the most recent of them; with none, noop
//     when the same rename is remembered, else add. A rename memory keeps
//     its own old name: it records what happened;
//   - a near-duplicate (Options.DuplicateSimilarity, and the same words:
//     see duplicate): update it when the candidate is more confident,
//     else noop;
//   - a correction, or a rename that does not read as OLD and NEW, similar
//     to a memory (Options.UpdateSimilarity): update that memory's text;
//   - otherwise add.
//
// The returned Memory is the one added, updated, deleted or duplicated. A
// kind that is not one of Kinds or KindForget is ErrBadKind.
func (s *Store) Promote(ctx context.Context, cand Candidate, scope string, prov Provenance) (Action, Memory, error) {
	if err := checkCandidate(cand, scope); err != nil {
		return "", Memory{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cand.Confidence < s.opts.MinConfidence {
		if !s.opts.Review || cand.Confidence < s.opts.ReviewFloor || !s.acceptable(cand.Text) {
			return ActionNoop, Memory{}, nil
		}
		p, err := s.queue(cand, scope, prov)
		return ActionPending, p.memory(), err
	}
	return s.promote(ctx, cand, scope, prov)
}

// checkCandidate returns ErrBadScope or ErrBadKind for a candidate that
// could never be stored in scope; a blank kind means note.
func checkCandidate(cand Candidate, scope string) error {
	if err := checkScope(scope); err != nil {
		return err
	}
	if cand.Kind == "" {
		return nil
	}
	return checkKind(cand.Kind, true)
}

// acceptable reports whether text may become a memory: not blank and no
// secret.
func (s *Store) acceptable(text string) bool {
	return strings.TrimSpace(text) != "" && !s.opts.Sensitive(text)
}

// promote is Promote after the threshold, with s.mu held.
func (s *Store) promote(ctx context.Context, cand Candidate, scope string, prov Provenance) (Action, Memory, error) {
	cand.Text = strings.Join(strings.Fields(cand.Text), " ")
	if !s.acceptable(cand.Text) {
		return ActionNoop, Memory{}, nil
	}
	hits, err := s.search(ctx, cand.Text, []string{scope}, duplicateCandidates)
	if err != nil {
		return "", Memory{}, err
	}
	var best Hit
	if len(hits) > 0 {
		best = hits[0]
	}
	dup := s.firstDuplicate(cand.Text, hits)
	fresh := Memory{Text: cand.Text, Kind: cand.Kind, Scope: scope, Confidence: cand.Confidence, Provenance: prov}
	switch {
	case cand.Kind == KindForget:
		if best.ID == "" || best.Score < s.opts.DeleteSimilarity {
			return ActionNoop, Memory{}, nil
		}
		return ActionDelete, best.Memory, s.delete(best.Memory)
	case cand.Kind == KindRename:
		if old, repl, ok := parseRename(cand.Text); ok {
			return s.promoteRename(ctx, fresh, old, repl)
		}
	}
	switch {
	case dup.ID != "":
		if cand.Confidence <= dup.Confidence {
			return ActionNoop, dup.Memory, nil
		}
		fresh.ID, fresh.Kind = dup.ID, dup.Kind
	case best.ID != "" && best.Score >= s.opts.UpdateSimilarity &&
		(cand.Kind == KindCorrection || cand.Kind == KindRename):
		fresh.ID = best.ID
		if cand.Kind == KindCorrection {
			fresh.Kind = best.Kind
		}
	default:
		m, err := s.add(ctx, fresh)
		return ActionAdd, m, err
	}
	m, err := s.update(ctx, fresh)
	return ActionUpdate, m, err
}

// promoteRename promotes fresh, the rename of old to repl: the memories
// of its scope that name old are rewritten (see rewrite) and the most
// recent of them returned; with none, the same rename remembered already
// is a no-op (an update when fresh is more confident), and otherwise
// fresh is added. Renames are matched by their names, not by similarity,
// which cannot tell "a was renamed to b" from "b was renamed to a".
func (s *Store) promoteRename(ctx context.Context, fresh Memory, old, repl string) (Action, Memory, error) {
	all, err := s.list(ctx, fresh.Scope)
	if err != nil {
		return "", Memory{}, err
	}
	m, n, err := s.rewrite(ctx, all, old, repl, fresh.Confidence, fresh.Provenance)
	if err != nil || n > 0 {
		return ActionUpdate, m, err
	}
	for _, m := range all {
		if from, to, ok := parseRename(m.Text); ok && m.Kind == KindRename && from == old && to == repl {
			if fresh.Confidence <= m.Confidence {
				return ActionNoop, m, nil
			}
			fresh.ID = m.ID
			u, err := s.update(ctx, fresh)
			return ActionUpdate, u, err
		}
	}
	m, err = s.add(ctx, fresh)
	return ActionAdd, m, err
}

// rewrite replaces the name old by repl in every memory of all that
// names it, and returns the most recently updated of them and how many
// there were. A rename memory is a record of what happened and keeps its
// old name: one that renamed old itself (the same rename said again, or
// an earlier one) is left alone, as is one the rewrite would make rename
// a name to itself.
func (s *Store) rewrite(ctx context.Context, all []Memory, old, repl string, conf float64, prov Provenance) (Memory, int, error) {
	var first Memory
	n := 0
	for _, m := range all {
		text, k := replaceName(m.Text, old, repl)
		if k == 0 || m.Kind == KindRename && !renameFollows(m.Text, text, old) {
			continue
		}
		m.Text = text
		m.Confidence = min(m.Confidence, conf)
		m.Provenance = prov
		u, err := s.update(ctx, m)
		if err != nil {
			return Memory{}, n, err
		}
		if n == 0 {
			first = u
		}
		n++
	}
	return first, n, nil
}

// renameFollows reports whether the rename memory text, rewritten for a
// rename of old, may become rewritten: its own old name is not old, and
// the rewrite does not leave it renaming a name to itself.
func renameFollows(text, rewritten, old string) bool {
	if from, _, ok := parseRename(text); ok && from == old {
		return false
	}
	from, to, ok := parseRename(rewritten)
	return !ok || from != to
}

// parseRename returns the old and new names of a rename sentence, without
// backticks.
func parseRename(text string) (old, repl string, ok bool) {
	for _, ru := range rules() {
		if ru.kind != KindRename {
			continue
		}
		if m := ru.re.FindStringSubmatch(strings.TrimRight(text, ". ")); m != nil {
			return strings.Trim(m[1], "`"), strings.Trim(m[2], "`"), true
		}
	}
	return "", "", false
}

// replaceName replaces every whole occurrence of name in text with repl
// (case-sensitive) and counts them. A name that looks like a path (it
// holds a / or a .) must not touch other path characters either, so that
// renaming main.go leaves cmd/main.go and main.go.bak alone; a sentence's
// full stop after it still ends it, and a path inside a renamed directory
// is renamed with it.
func replaceName(text, name, repl string) (string, int) {
	pathLike := strings.ContainsAny(name, "/.")
	isWord := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
	}
	joinsBefore := func(b byte) bool { return isWord(b) || pathLike && (b == '/' || b == '.' || b == '-') }
	joinsAfter := func(i int) bool {
		b := text[i]
		if b == '.' && pathLike {
			return i+1 < len(text) && isWord(text[i+1])
		}
		return isWord(b) || pathLike && b == '-' // a / goes on into a renamed directory
	}
	var out strings.Builder
	n, from := 0, 0
	for i := 0; i <= len(text)-len(name); {
		k := strings.Index(text[i:], name)
		if k < 0 {
			break
		}
		at, end := i+k, i+k+len(name)
		joined := at > 0 && (pathLike || isWord(name[0])) && joinsBefore(text[at-1]) ||
			end < len(text) && (pathLike || isWord(name[len(name)-1])) && joinsAfter(end)
		if joined {
			i = at + 1
			continue
		}
		out.WriteString(text[from:at])
		out.WriteString(repl)
		from, i = end, end
		n++
	}
	if n == 0 {
		return text, 0
	}
	out.WriteString(text[from:])
	return out.String(), n
}

// duplicateCandidates is how many of the most similar memories a
// candidate is compared with for a duplicate: with an embedder that finds
// many texts alike, the nearest is not always the one with the same
// words.
const duplicateCandidates = 5

// firstDuplicate returns the first of hits that text duplicates: its
// vector is at least Options.DuplicateSimilarity alike, and so are the
// words (sameWords). Similarity alone would merge "do not use pnpm" into
// "use pnpm", and, with an embedding model that finds all short sentences
// alike, unrelated facts. With none, the Hit is zero.
func (s *Store) firstDuplicate(text string, hits []Hit) Hit {
	for _, h := range hits {
		if h.Score >= s.opts.DuplicateSimilarity && sameWords(text, h.Text) {
			return h
		}
	}
	return Hit{}
}

// sameWordsMin is the least share of their distinct words two texts must
// have in common to count as one.
const sameWordsMin = 0.8

// negations turn a statement around; a text with one is never the same as
// a text without.
var negations = map[string]bool{"not": true, "no": true, "never": true, "nor": true, "cannot": true, "without": true,
	"don": true, "doesn": true, "didn": true, "isn": true, "aren": true, "wasn": true, "weren": true, "won": true,
	"shouldn": true, "mustn": true}

// sameWords reports whether a and b have nearly the same distinct words
// (lowercase letters and digits; their Jaccard index at least
// sameWordsMin) and both or neither negate.
func sameWords(a, b string) bool {
	split := func(t string) (map[string]bool, bool) {
		set, neg := map[string]bool{}, false
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			set[w] = true
			neg = neg || negations[w]
		}
		return set, neg
	}
	wa, na := split(a)
	wb, nb := split(b)
	if na != nb {
		return false
	}
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	union := len(wa) + len(wb) - both
	return union == 0 || float64(both)/float64(union) >= sameWordsMin
}
