package secrets

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// rule is one detector: a gitleaks rule or a kws rule.
type rule struct {
	id string
	// re is the rule's regexp, compiled on the rule's first run: most
	// texts wake a few rules, and compiling all of them costs a process
	// tens of milliseconds.
	re       func() *regexp.Regexp
	group    int     // the secret's capture group; 0: the first non-empty group, or the match
	entropy  float64 // a secret with Shannon entropy at or below this is no secret; 0: no floor
	keywords []string
	allow    []*allowlist             // gitleaks' global allowlists, then the rule's own
	valid    func(secret string) bool // kws rules only: a last look at the value
	// lines is how many lines before and after a keyword's line the
	// regexp runs (the most newlines a match can hold, capped), or -1:
	// the whole text (it can hold any number).
	lines int
}

// allowlist is one of gitleaks' allowlists as it applies to a text with
// no path and no commit: its regexps (joined into one, tried on the
// secret, the match or the line) and its stop words (lowercase, looked
// for in the secret), either of which lets a finding go, or with and set
// both (those it has).
type allowlist struct {
	and       bool
	target    string // "", "match" or "line"
	regex     func() *regexp.Regexp
	stopwords func() *ahocorasick.Trie
}

// ruleSpec is a rule as gitleaks_rules.go lists it: allow holds indexes
// into gitleaksAllowlists.
type ruleSpec struct {
	id, re   string
	group    int
	entropy  float64
	keywords []string
	allow    []int
	lines    int
}

// allowSpec is an allowlist as gitleaks_rules.go lists it.
type allowSpec struct {
	and       bool
	target    string
	regexes   []string
	stopwords []string
}

// lazyRegexp compiles src on its first use.
func lazyRegexp(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// newAllowlist makes the allowlist a describes, compiled on first use.
func newAllowlist(a allowSpec) *allowlist {
	l := &allowlist{and: a.and, target: a.target}
	if len(a.regexes) > 0 {
		l.regex = lazyRegexp("(?:" + strings.Join(a.regexes, "|") + ")")
	}
	if len(a.stopwords) > 0 {
		l.stopwords = sync.OnceValue(func() *ahocorasick.Trie {
			return ahocorasick.NewTrieBuilder().AddStrings(a.stopwords).Build()
		})
	}
	return l
}

// window is a byte range text[start:end] one rule runs on.
type window struct{ rule, start, end int }

// detector is the rule set and its keyword index, made once.
type detector struct {
	rules []rule
	// trie finds every rule keyword in lowercased text in one pass;
	// byKeyword maps its pattern numbers to the rules that keyword wakes.
	trie      *ahocorasick.Trie
	byKeyword [][]int
	always    []int // rules with no keyword run on the whole text
}

// load makes the detector on first use and returns it.
var load = sync.OnceValue(build)

// Load makes the detector now rather than on the first check (a few
// milliseconds: the keyword index); a caller about to check text on a
// latency budget, such as a diet state, loads it when it starts.
func Load() { load() }

// build makes the detector: gitleaks' default rules as
// gitleaks_rules.go lists them (generated from gitleaks' own config code
// by TestGitleaksTable), then the kws rules, and the keyword index. No
// regexp is compiled here.
func build() *detector {
	allow := make([]*allowlist, len(gitleaksAllowlists))
	for i, a := range gitleaksAllowlists {
		allow[i] = newAllowlist(a)
	}
	d := &detector{}
	for _, r := range gitleaksRules {
		var lists []*allowlist
		for _, i := range r.allow {
			lists = append(lists, allow[i])
		}
		d.rules = append(d.rules, rule{id: r.id, re: lazyRegexp(r.re), group: r.group,
			entropy: r.entropy, keywords: r.keywords, allow: lists, lines: r.lines})
	}
	d.rules = append(d.rules, kwsRules()...)

	index := map[string]int{}
	var words []string
	for i, r := range d.rules {
		if len(r.keywords) == 0 {
			d.always = append(d.always, i)
			continue
		}
		for _, k := range r.keywords {
			k = string(asciiLower(k))
			n, ok := index[k]
			if !ok {
				n = len(words)
				index[k] = n
				words = append(words, k)
				d.byKeyword = append(d.byKeyword, nil)
			}
			d.byKeyword[n] = append(d.byKeyword[n], i)
		}
	}
	d.trie = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return d
}

// windows returns, for every rule worth running on text, the byte ranges
// of text to run it on: the lines around its keywords' occurrences in
// lower (the ASCII-lowercased text), merged, or the whole text for a rule
// without keywords or whose match can span any number of lines. Rules
// whose keywords do not occur are left out, as gitleaks' prefilter does.
func (d *detector) windows(text string, lower []byte) []window {
	type hit struct{ rule, pos int }
	var hits []hit
	d.trie.Walk(lower, func(end, _, pattern int64) bool {
		for _, i := range d.byKeyword[pattern] {
			hits = append(hits, hit{i, int(end)})
		}
		return true
	})
	slices.SortFunc(hits, func(a, b hit) int {
		if a.rule != b.rule {
			return a.rule - b.rule
		}
		return a.pos - b.pos
	})
	var out []window
	for _, i := range d.always {
		out = append(out, window{i, 0, len(text)})
	}
	for k := 0; k < len(hits); {
		i, n := hits[k].rule, d.rules[hits[k].rule].lines
		first := len(out)
		line := -1 // the end of the last hit's line
		for ; k < len(hits) && hits[k].rule == i; k++ {
			p := hits[k].pos
			if n < 0 || p < line {
				continue // the whole text, or the last hit's line: already covered
			}
			line = lineEnd(text, p, 0)
			w := window{i, lineStart(text, p, n), lineEnd(text, p, n)}
			if last := len(out) - 1; last >= first && w.start <= out[last].end {
				out[last].end = max(out[last].end, w.end)
				continue
			}
			out = append(out, w)
		}
		if n < 0 {
			out = append(out, window{i, 0, len(text)})
		}
	}
	return out
}

// lineStart is the offset of the start of the line n lines before the
// one holding text[p].
func lineStart(text string, p, n int) int {
	for {
		i := strings.LastIndexByte(text[:p], '\n')
		if i < 0 {
			return 0
		}
		if n == 0 {
			return i + 1
		}
		p, n = i, n-1
	}
}

// lineEnd is the offset just past the newline that ends the line n lines
// after the one holding text[p], or len(text).
func lineEnd(text string, p, n int) int {
	for {
		i := strings.IndexByte(text[p:], '\n')
		if i < 0 {
			return len(text)
		}
		if n == 0 {
			return p + i + 1
		}
		p, n = p+i+1, n-1
	}
}

// find appends the secrets r finds in the window w of text to spans, judging each as
// gitleaks' detector does: the secret group, the entropy floor, then the
// allowlists.
func (r *rule) find(text string, w window, spans []Span) []Span {
	for _, m := range r.re().FindAllStringIndex(text[w.start:w.end], -1) {
		start, end := w.start+m[0], w.start+m[1]
		for start < end && text[start] == '\n' {
			start++
		}
		for end > start && text[end-1] == '\n' {
			end--
		}
		match := text[start:end]
		lo, hi, ok := r.secret(match)
		if !ok {
			continue
		}
		secret := match[lo:hi]
		if r.entropy != 0 && entropy(secret) <= r.entropy {
			continue
		}
		if r.valid != nil && !r.valid(secret) {
			continue
		}
		line := lineAround(text, start, end)
		if allowed(r.allow, secret, match, line) {
			continue
		}
		spans = append(spans, Span{Start: start + lo, End: start + hi, Rule: r.id})
	}
	return spans
}

// secret returns where, in match, the secret lies: the rule's secret
// group, else its first non-empty group, else the whole match.
func (r *rule) secret(match string) (lo, hi int, ok bool) {
	sub := r.re().FindStringSubmatchIndex(match)
	if len(sub) < 4 {
		return 0, len(match), match != ""
	}
	if r.group > 0 {
		if 2*r.group+1 >= len(sub) || sub[2*r.group] < 0 || sub[2*r.group] == sub[2*r.group+1] {
			return 0, 0, false
		}
		return sub[2*r.group], sub[2*r.group+1], true
	}
	for g := 1; 2*g+1 < len(sub); g++ {
		if sub[2*g] >= 0 && sub[2*g] < sub[2*g+1] {
			return sub[2*g], sub[2*g+1], true
		}
	}
	return 0, len(match), match != ""
}

// allowed reports whether one of the allowlists lets a finding go, as
// gitleaks does for a text with no path and no commit.
func allowed(lists []*allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		regex := a.regex != nil && target != "" && a.regex().MatchString(target)
		stop := a.stopwords != nil && secret != "" && a.stopwords().MatchFirstString(strings.ToLower(secret)) != nil
		if !a.and {
			if regex || stop {
				return true
			}
			continue
		}
		if (a.regex == nil || regex) && (a.stopwords == nil || stop) {
			return true
		}
	}
	return false
}

// lineAround returns the whole lines of text that hold text[start:end].
func lineAround(text string, start, end int) string {
	lo := start
	for lo > 0 && text[lo-1] != '\n' {
		lo--
	}
	hi := end
	for hi < len(text) && text[hi] != '\n' {
		hi++
	}
	return text[lo:hi]
}

// entropy is the Shannon entropy of s in bits per character, as gitleaks
// computes it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	var h float64
	inv := 1 / float64(len(s))
	for _, n := range counts {
		f := float64(n) * inv
		h -= f * math.Log2(f)
	}
	return h
}
