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

type restoreResult struct {
	index    int
	id       string
	text     string
	extraTok int
}

// HasRetrievalIntent reports whether a user turn asks for exact evidence.
func HasRetrievalIntent(turn string) bool { return reIntent.MatchString(turn) }

// autoRestore picks at most one externalized, non-sensitive block whose
// topics overlap the current user turn (which must show retrieval intent)
// and returns its ref followed by a bounded exact excerpt, if the trigger
// budget has room for it.
func (s *Session) autoRestore(cur int) (restoreResult, bool) {
	if cur < 0 || !HasRetrievalIntent(s.entries[cur].msg.Content) {
		return restoreResult{}, false
	}
	want := map[string]bool{}
	for _, t := range vault.Terms(s.entries[cur].msg.Content) {
		if !stopwords[t] {
			want[t] = true
		}
	}
	best, bestScore := -1, 0
	for i, e := range s.entries {
		if e.form != formRef || e.desc == nil || e.desc.Sensitive {
			continue
		}
		score := overlap(want, e.desc)
		if score >= minOverlap && (score > bestScore ||
			score == bestScore && rankPriority(e.desc.Priority) >= rankPriority(s.entries[best].desc.Priority)) {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return restoreResult{}, false
	}
	e := s.entries[best]
	excerpt, span := Excerpt(e.msg.Content, want, s.p.RestoreChars)
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
// lines that mention a wanted term or an error, with their 1-based line
// ranges (e.g. "12-14,40-41").
func Excerpt(text string, want map[string]bool, budget int) (string, string) {
	lines := strings.Split(text, "\n")
	keep := make([]bool, len(lines))
	hit := false
	for i, l := range lines {
		match := isErrorLine(l)
		if !match {
			for _, t := range vault.Terms(l) {
				if want[t] {
					match = true
					break
				}
			}
		}
		if match {
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
