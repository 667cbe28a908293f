package diet

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kwsdev/kws/vault"
)

// reIntent matches a user turn that asks for concrete evidence.
var reIntent = regexp.MustCompile(`(?i)\b(exact(ly)?|show|verbatim|full|debug|fix|failing|failure|fails?|failed|error|errors|traceback|stack ?trace|why|what went wrong|crash(ed|es)?|broken|log)\b`)

// minOverlap is how many of a ref's topics and file names the user turn
// must mention before its block is restored.
const minOverlap = 2

// restoreBelowConfidence: a block is auto-restored only when its summary
// is unreliable (confidence below this) or its priority is high; a
// summary that already covers the block is left as a ref.
const restoreBelowConfidence = 0.5

// restorable reports whether block description d may be auto-restored.
func restorable(d *Description) bool {
	return d != nil && !d.Sensitive && (d.Confidence < restoreBelowConfidence || d.Priority == "high")
}

type restoreResult struct {
	index    int
	id       string
	text     string
	extraTok int
}

// HasRetrievalIntent reports whether a user turn asks for exact evidence.
func HasRetrievalIntent(turn string) bool { return reIntent.MatchString(turn) }

// stickyRestore is the auto-restore decision of one human turn and epoch.
// A restore rewrites a message in the middle of the prompt, so starting,
// switching or ending one between calls would break the provider's cached
// prefix at that message each time. The decision is made when the human
// turn changes or an epoch rewrites the prompt anyway, and holds until
// then.
type stickyRestore struct {
	turn  int // entry index of the human turn the decision belongs to
	cut   int // the session's cut when it was made
	index int // the restored entry, or -1 for none
	text  string
	extra int
}

// autoRestore picks at most one externalized, non-sensitive block of low
// confidence or high priority whose topics overlap the current user turn
// (which must show retrieval intent) and that holds one of the turn's
// specific terms (a file, a symbol, an error's name: generic words alone
// never restore), and returns its ref followed by a
// bounded exact excerpt, if the trigger budget has room for it. The
// choice holds for the turn until the next epoch (see stickyRestore).
func (s *State) autoRestore(cur int) (restoreResult, bool) {
	st := &s.restore
	if st.turn != cur || st.cut != s.cut {
		*st = stickyRestore{turn: cur, cut: s.cut, index: -1}
		if r, ok := s.chooseRestore(cur); ok {
			st.index, st.text, st.extra = r.index, r.text, r.extraTok
		}
	}
	if st.index < 0 {
		return restoreResult{}, false
	}
	return restoreResult{index: st.index, id: s.entries[st.index].id, text: st.text, extraTok: st.extra}, true
}

// chooseRestore makes the auto-restore decision for human turn cur.
func (s *State) chooseRestore(cur int) (restoreResult, bool) {
	if cur < 0 || !HasRetrievalIntent(s.entries[cur].msg.Content) {
		return restoreResult{}, false
	}
	turn := s.entries[cur].msg.Content
	spec := specificTerms(turn)
	if len(spec) == 0 {
		return restoreResult{}, false
	}
	want := map[string]bool{}
	for _, t := range vault.Terms(turn) {
		if !stopwords[t] {
			want[t] = true
		}
	}
	best := s.pickRestore(want, spec)
	if best < 0 {
		return restoreResult{}, false
	}
	return s.restoreOf(best, spec)
}

// pickRestore returns the restorable ref that holds the most of the
// specific terms spec (each counting as minOverlap) plus topics and files
// of want, the higher priority on a tie, or -1; a block that holds none
// of spec is never picked, whatever its topics share with want. A block folded into a run counts too
// (not a run's first message: its ref opens the run); a page-in answer
// never does (the model asked for it; a search's answer is refs).
func (s *State) pickRestore(want map[string]bool, spec []string) int {
	best, bestScore := -1, 0
	for i, e := range s.entries {
		if e.form != formRef && e.form != formFolded || e.pageIn || !restorable(e.desc) {
			continue
		}
		held := holds(e.msg.Content, spec)
		if held == 0 {
			continue
		}
		score := overlap(want, e.desc) + minOverlap*held
		if score >= minOverlap && (score > bestScore ||
			score == bestScore && rankPriority(e.desc.Priority) >= rankPriority(s.entries[best].desc.Priority)) {
			best, bestScore = i, score
		}
	}
	return best
}

// restoreOf renders entry best's restore, if its excerpt fits the budget.
func (s *State) restoreOf(best int, spec []string) (restoreResult, bool) {
	e := s.entries[best]
	excerpt, span := Excerpt(e.msg.Content, spec, s.p.RestoreChars)
	if excerpt == "" {
		return restoreResult{}, false
	}
	text := s.ref(e, true).String() + fmt.Sprintf("\n<ctx_excerpt id=%q lines=%q>\n%s\n</ctx_excerpt>", e.id, span, excerpt)
	extra := s.tok.Count(text).Tokens + MsgOverheadTokens - e.sentTok
	if s.promptTokens()+extra > s.p.TriggerTokens {
		return restoreResult{}, false
	}
	return restoreResult{index: best, id: e.id, text: text, extraTok: extra}, true
}

// reSpecific matches what names one thing in a user turn, unlike words
// such as build, token, parser or test: a file name or path, an
// identifier with an underscore, a digit or an inner capital, an error's
// name, or text in backquotes.
var reSpecific = regexp.MustCompile("`[^`\n]{3,}`|[\\w./-]*\\w\\.[A-Za-z][A-Za-z0-9]{0,5}\\b|\\b[A-Za-z_]\\w*(?:_\\w|[a-z][A-Z]|[A-Za-z][0-9])\\w*|\\b[A-Z]\\w*(?:Error|Exception)\\b")

// specificTerms are the specific terms of a user turn (reSpecific), at
// least four bytes long, without backquotes.
func specificTerms(turn string) []string {
	var out []string
	for _, m := range reSpecific.FindAllString(turn, -1) {
		if m = strings.Trim(m, "`"); len(m) >= 4 {
			out = append(out, m)
		}
	}
	return out
}

// holds counts the terms that text contains.
func holds(text string, terms []string) int {
	n := 0
	for _, t := range terms {
		if strings.Contains(text, t) {
			n++
		}
	}
	return n
}

func rankPriority(p string) int {
	switch p {
	case "high":
		return 2
	case "normal":
		return 1
	}
	return 0
}

func overlap(want map[string]bool, d *Description) int {
	n := 0
	for _, t := range d.Topics {
		if want[t] {
			n++
		}
	}
	for _, f := range d.Files {
		base := strings.ToLower(f[strings.LastIndexByte(f, '/')+1:])
		if want[base] || want[strings.ToLower(f)] {
			n++
		}
	}
	return n
}

// Excerpt returns up to budget bytes of whole lines of text around the
// lines that hold one of the specific terms spec or report an error, with
// their 1-based line ranges (e.g. "12-14,40-41").
func Excerpt(text string, spec []string, budget int) (string, string) {
	lines := strings.Split(text, "\n")
	keep := make([]bool, len(lines))
	hit := false
	for i, l := range lines {
		if isErrorLine(l) || holds(l, spec) > 0 {
			hit = true
			for j := max(0, i-1); j <= min(len(lines)-1, i+1); j++ {
				keep[j] = true
			}
		}
	}
	if !hit {
		return "", ""
	}
	var b strings.Builder
	var spans []string
	spanStart, spanEnd := -1, -1
	for i, l := range lines {
		if !keep[i] {
			continue
		}
		if b.Len()+len(l)+1 > budget {
			break
		}
		if spanStart < 0 {
			if b.Len() > 0 {
				b.WriteString("[…]\n")
			}
			spanStart = i
		}
		b.WriteString(Redact(l) + "\n")
		spanEnd = i
		if i+1 >= len(lines) || !keep[i+1] {
			spans = append(spans, fmt.Sprintf("%d-%d", spanStart+1, spanEnd+1))
			spanStart = -1
		}
	}
	if spanStart >= 0 {
		spans = append(spans, fmt.Sprintf("%d-%d", spanStart+1, spanEnd+1))
	}
	return strings.TrimSuffix(b.String(), "\n"), strings.Join(spans, ",")
}
