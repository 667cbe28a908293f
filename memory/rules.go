package memory

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/kwsdev/kws/secrets"
)

// Candidate is a proposed memory, before promotion.
type Candidate struct {
	// Text is the memory in one sentence.
	Text string `json:"text"`
	// Kind is remember, preference, decision, correction, rename, path,
	// or forget (a request to delete the memory Text describes).
	Kind string `json:"kind"`
	// Confidence is between 0 and 1; promotion compares it with a
	// threshold.
	Confidence float64 `json:"confidence"`
}

// Candidate kinds with a meaning in promotion.
const (
	// KindCorrection replaces a similar memory.
	KindCorrection = "correction"
	// KindRename rewrites memories that name the old name.
	KindRename = "rename"
	// KindForget deletes the most similar memory.
	KindForget = "forget"
)

// Extractor proposes memory candidates from a user turn or tool activity:
// Rules, or the sidecar's model adapted by the caller.
type Extractor interface {
	Extract(ctx context.Context, text string) ([]Candidate, error)
}

// ExtractorFunc adapts a function to the Extractor interface.
type ExtractorFunc func(ctx context.Context, text string) ([]Candidate, error)

// Extract calls f.
func (f ExtractorFunc) Extract(ctx context.Context, text string) ([]Candidate, error) {
	return f(ctx, text)
}

// rule is one pattern of the Rules extractor: a sentence matching re
// becomes a candidate of kind with confidence conf, whose text is submatch
// group (0: the whole sentence). A rename's text is always "OLD was
// renamed to NEW", from submatches 1 and 2.
type rule struct {
	kind  string
	conf  float64
	group int
	re    *regexp.Regexp
}

// pathRE matches a file or directory path: a word with a slash, or a file
// name with a common source extension.
const pathRE = `(?:[~\w.@-]*/[\w.@/-]+|\b[\w-]+\.(?:go|py|ts|tsx|js|jsx|rs|c|h|cc|cpp|hpp|java|kt|rb|md|toml|ya?ml|json|sh|sql|proto|txt|cfg|ini|mod|env)\b)`

// ident matches a renamed name: a word with a dot, slash, underscore or
// dash, a CamelCase word, or anything in backticks.
const ident = "(`[^`]+`|[\\w.-]*[./_-][\\w./-]*|[A-Za-z]\\w*[A-Z]\\w*)"

// rules are tried in order; the first that matches a sentence wins. The
// rename rules also serve parseRename. They are compiled at first use:
// every kws process links this package, few extract memories.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		{KindForget, 0.9, 1, regexp.MustCompile(`(?i)^(?:please\s+)?forget\s+(?:that\s+|about\s+)?(.+)$`)},
		{KindForget, 0.8, 1, regexp.MustCompile(`(?i)^(?:it'?s|it\s+is)\s+no\s+longer\s+(?:true|the\s+case)\s+that\s+(.+)$`)},
		{KindForget, 0.8, 1, regexp.MustCompile(`(?i)^(.+?)\s+(?:is|are)\s+no\s+longer\s+(?:true|the\s+case|valid|correct)$`)},
		{"remember", 0.95, 1, regexp.MustCompile(`(?i)^(?:please\s+)?(?:remember|note|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget)(?:\s+that|\s+to)?\s*[:,]?\s+(.+)$`)},
		{KindCorrection, 0.8, 1, regexp.MustCompile(`(?i)^(?:no|nope|wrong|incorrect|correction|that'?s\s+(?:wrong|not\s+right|incorrect)|that\s+is\s+(?:wrong|not\s+right|incorrect))\s*[,:;.!—-]+\s*(.+)$`)},
		{KindCorrection, 0.75, 1, regexp.MustCompile(`(?i)^actually[,:]?\s+(.+)$`)},
		{KindRename, 0.85, 0, regexp.MustCompile(`(?i)\brenamed\s+` + ident + `\s+(?:to|as|into)\s+` + ident)},
		{KindRename, 0.85, 0, regexp.MustCompile(`(?i)` + ident + `\s+(?:was|has\s+been|got|is)\s+renamed\s+(?:to|as|into)\s+` + ident)},
		{KindRename, 0.7, 0, regexp.MustCompile(`^` + ident + `\s+is\s+now\s+(?:called\s+|named\s+)?` + ident + `$`)},
		{"decision", 0.85, 0, regexp.MustCompile(`(?i)^(?:so\s+|ok,?\s+)?(?:we|i)\s+(?:have\s+|just\s+)?(?:decided|agreed|chose|settled\s+on|went\s+with)\b`)},
		{"decision", 0.85, 0, regexp.MustCompile(`(?i)^(?:the\s+)?decision(?:\s+is)?\s*:\s+`)},
		{"decision", 0.7, 0, regexp.MustCompile(`(?i)^(?:ok,?\s+)?let'?s\s+(?:go\s+with|stick\s+(?:with|to)|settle\s+on|standardi[sz]e\s+on)\s+`)},
		{"preference", 0.85, 0, regexp.MustCompile(`(?i)\buse\s+\S+(?:\s+\S+)?\s+instead\s+of\s+\S+`)},
		{"preference", 0.85, 0, regexp.MustCompile(`(?i)^i\s+(?:really\s+|strongly\s+)?(?:prefer|always|never)\b`)},
		{"preference", 0.65, 0, regexp.MustCompile(`(?i)^i\s+(?:really\s+)?(?:like|hate|dislike|don'?t\s+like|do\s+not\s+like)\b`)},
		{"preference", 0.8, 0, regexp.MustCompile(`(?i)^(?:please\s+)?(?:always|never|don'?t\s+ever|do\s+not\s+ever)\s+`)},
		{"preference", 0.8, 0, regexp.MustCompile(`(?i)\bprefer\s+.+\s+(?:over|to)\s+\S`)},
		{"path", 0.7, 0, regexp.MustCompile(`(?i)\b(?:lives?|is|are|sits?|located|kept|stored|defined|found)\s+(?:in|at|under|inside)\s+(?:the\s+)?(?:\S+\s+)?` + pathRE)},
	}
})

// Rules is the deterministic, pure-Go extractor. It reads text sentence
// by sentence and proposes explicit requests to remember, preferences,
// decisions, corrections, renames, where things live, and requests to
// forget. Questions and sentences holding secrets are skipped. The zero
// value is ready to use.
type Rules struct {
	// Sensitive reports text holding a secret; nil means IsSensitive.
	Sensitive func(string) bool
}

// Extract returns the candidates in text, in order, each at most once.
func (r Rules) Extract(_ context.Context, text string) ([]Candidate, error) {
	sensitive := r.Sensitive
	if sensitive == nil {
		sensitive = IsSensitive
	}
	var out []Candidate
	seen := map[string]bool{}
	for _, s := range sentences(text) {
		if strings.HasSuffix(s, "?") || len(s) > 300 || sensitive(s) ||
			strings.HasPrefix(strings.ToLower(s), "never mind") {
			continue
		}
		s = strings.TrimRight(s, ".! ")
		for _, ru := range rules() {
			m := ru.re.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			body := s
			switch {
			case ru.kind == KindRename:
				body = m[1] + " was renamed to " + m[2]
			case ru.group > 0:
				body = m[ru.group]
			}
			body = strings.Trim(strings.TrimSpace(body), `"'`)
			if len(body) > 7 && strings.EqualFold(body[:7], "please ") {
				body = body[7:]
			}
			if len(strings.Fields(body)) < 2 {
				break
			}
			key := ru.kind + "\x00" + strings.ToLower(body)
			if !seen[key] {
				seen[key] = true
				out = append(out, Candidate{Text: body, Kind: ru.kind, Confidence: ru.conf})
			}
			break
		}
	}
	return out, nil
}

// sentences splits text into trimmed sentences: at line breaks, and after
// '.', '!' or '?' followed by a space. List markers and quote marks at the
// start of a line are dropped.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "-*>• ")
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ') {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// IsSensitive reports whether text holds a key, token, password or
// private key, as package secrets judges (gitleaks' rules and kws's). It
// is the default of Options.Sensitive and Rules.Sensitive.
func IsSensitive(text string) bool { return secrets.Contains(text) }
