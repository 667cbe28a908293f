package diet

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// describeBytes bounds the text Describe reads of a huge block: its head and
// tail. A block larger than twice this is marked sensitive, because the
// middle was not scanned for secrets.
const describeBytes = 1 << 20

// Description is the deterministic, extractive account of one block. It is a
// hint for the model; the vault's exact bytes are the authority.
type Description struct {
	Lines      int
	Files      []string
	Topics     []string
	First      string
	Command    string
	Errors     []string
	Tests      string
	Sensitive  bool
	Confidence float64
	Priority   string
}

var (
	reFile    = regexp.MustCompile(`(?:[A-Za-z0-9_.\-]+/)*[A-Za-z0-9_\-]+\.(?:py|go|js|mjs|ts|tsx|jsx|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|json|ya?ml|toml|txt|cfg|ini|sh|html|css|sql|xml|proto|lock|mod|sum|enc|pyc|so)\b`)
	reErr     = regexp.MustCompile(`(?i)(\b[A-Za-z]*(?:error|exception)\b|traceback|\bfailed\b|\bfailure\b|\bfatal\b|\bpanic\b|permission denied|no such file|not found|segmentation fault|command not found|\bFAIL\b)`)
	reErrName = regexp.MustCompile(`\b([A-Z][A-Za-z]*(?:Error|Exception))\b`)
	reTests   = regexp.MustCompile(`(?i)\b(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b`)
	reFence   = regexp.MustCompile("(?s)```[a-zA-Z]*\n(.*?)```")
	reIdent   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{3,40}`)
)

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`this that with from have will your what when then there their them they
	were been into also only like just than some more most such each which while where would could should
	about after before other these those file files line lines true false none null self return import
	print def class function const func type string value values using used need here make made does done
	command output current directory open window shown total below above first next last error errors
	note please want sure let's lets going look find call called code test tests name names file_name
	python echo exit print_function args kwargs data text else elif break continue pass`) {
		stopwords[w] = true
	}
}

// Describe reads text (redacted first, so no secret reaches a summary or a
// topic) and returns its description. kind is the block's kind, e.g.
// "assistant" or "tool:shell".
func Describe(kind, text string) Description {
	var d Description
	if len(text) > 2*describeBytes {
		d.Sensitive = true
		text = text[:describeBytes] + "\n" + text[len(text)-describeBytes:]
	} else {
		d.Sensitive = IsSensitive(text)
	}
	if d.Sensitive {
		text = Redact(text)
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	d.Lines = len(lines)
	distinct := map[string]bool{}
	var errLines []string
	for _, l := range lines {
		t := strings.TrimSpace(plain(l))
		if t == "" {
			continue
		}
		if d.First == "" {
			d.First = t
		}
		distinct[t] = true
		if m := reTests.FindAllStringSubmatch(t, -1); len(m) > 0 && (strings.Contains(t, "==") || len(m) > 1 || strings.Contains(t, " in ")) {
			d.Tests = testsSummary(m)
			continue
		}
		if !strings.HasPrefix(t, "#") && isErrorLine(t) {
			errLines = append(errLines, t)
		}
	}
	d.Errors = pickErrors(errLines)
	if strings.HasPrefix(kind, "assistant") {
		if m := reFence.FindAllStringSubmatch(text, -1); len(m) > 0 {
			cmd := strings.TrimSpace(plain(m[len(m)-1][1]))
			if i := strings.IndexByte(cmd, '\n'); i >= 0 {
				cmd = cmd[:i] + " …"
			}
			d.Command = cmd
		}
	}
	d.Files = topFiles(text, 4)
	d.Topics = topics(text, d, 4)
	d.Confidence = confidence(d, len(distinct), len(errLines))
	switch {
	case len(d.Errors) > 0 || strings.Contains(d.Tests, "failed"):
		d.Priority = "high"
	case kind == "system" || kind == "demo" || len(distinct) <= 1:
		d.Priority = "low"
	default:
		d.Priority = "normal"
	}
	return d
}

// plain makes untrusted output safe to quote in a summary: valid UTF-8,
// no terminal escape sequences or control characters, tabs as spaces
// (newlines stay, so callers can still cut at them).
func plain(s string) string { return strings.ReplaceAll(termsafe.Strip(s), "\t", " ") }

func testsSummary(m [][]string) string {
	parts := make([]string, 0, len(m))
	for _, x := range m {
		parts = append(parts, x[1]+" "+strings.ToLower(x[2]))
	}
	return strings.Join(parts, ", ")
}

// pickErrors keeps two distinct error lines: the last one that names an
// exception (usually the error itself), else the last error line, and the
// first error line, which tells where things started to go wrong.
func pickErrors(errLines []string) []string {
	if len(errLines) == 0 {
		return nil
	}
	main := errLines[len(errLines)-1]
	for i := len(errLines) - 1; i >= 0; i-- {
		if reErrName.MatchString(errLines[i]) {
			main = errLines[i]
			break
		}
	}
	if first := errLines[0]; first != main {
		return []string{main, first}
	}
	return []string{main}
}

func topFiles(text string, k int) []string {
	count := map[string]int{}
	order := map[string]int{}
	for i, f := range reFile.FindAllString(text, 2000) {
		if _, ok := order[f]; !ok {
			order[f] = i
		}
		count[f]++
	}
	files := make([]string, 0, len(count))
	for f := range count {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if count[files[i]] != count[files[j]] {
			return count[files[i]] > count[files[j]]
		}
		return order[files[i]] < order[files[j]]
	})
	if len(files) > k {
		files = files[:k]
	}
	return files
}

// topics ranks candidate terms: exception names, file stems, the command's
// program, then identifiers that recur in the block.
func topics(text string, d Description, k int) []string {
	score := map[string]float64{}
	for _, e := range d.Errors {
		for _, m := range reErrName.FindAllString(e, -1) {
			score[strings.ToLower(m)] += 50
		}
	}
	for _, f := range d.Files {
		base := f[strings.LastIndexByte(f, '/')+1:]
		if i := strings.IndexByte(base, '.'); i > 0 {
			base = base[:i]
		}
		score[strings.ToLower(base)] += 30
	}
	if fs := strings.Fields(d.Command); len(fs) > 0 && len(fs[0]) >= 2 {
		score[strings.ToLower(fs[0])] += 20
	}
	if d.Tests != "" {
		score["tests"] += 10
	}
	freq := map[string]int{}
	for _, w := range reIdent.FindAllString(text, 20000) {
		freq[strings.ToLower(w)]++
	}
	for w, n := range freq {
		if n >= 2 && !stopwords[w] {
			score[w] += float64(n) * (1 + math.Min(float64(len(w)), 12)/12)
		}
	}
	terms := make([]string, 0, len(score))
	for t := range score {
		if t != "" && !stopwords[t] && !strings.Contains(t, Redacted) {
			terms = append(terms, t)
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if score[terms[i]] != score[terms[j]] {
			return score[terms[i]] > score[terms[j]]
		}
		return terms[i] < terms[j]
	})
	if len(terms) > k {
		terms = terms[:k]
	}
	return terms
}

// confidence is the share of the block's distinct non-empty lines that the
// summary quotes (first line, command, chosen errors, test line), with
// error lines weighted three times.
func confidence(d Description, distinct, errCount int) float64 {
	covered := 1.0
	if d.Command != "" {
		covered++
	}
	if d.Tests != "" {
		covered++
	}
	covered += 3 * float64(len(d.Errors))
	total := float64(distinct) + 2*float64(errCount)
	if total <= 0 {
		return 0.99
	}
	c := math.Min(0.99, math.Max(0.05, covered/total))
	return math.Round(c*100) / 100
}

// Summary renders the description in at most budget bytes, most useful
// fields first: line count (when there is room), command, errors, tests,
// files, first line.
func (d Description) Summary(budget int) string {
	var parts []string
	used := 0
	add := func(key, val string, truncate bool) {
		if val == "" {
			return
		}
		item := key + "=" + val
		room := budget - used - 2
		if len(parts) == 0 {
			room = budget - used
		}
		if len(item) > room {
			if !truncate || room < len(key)+12 {
				return
			}
			item = clip(item, room)
		}
		parts = append(parts, item)
		used += len(item) + 2
	}
	if budget >= 60 {
		add("lines", strconv.Itoa(d.Lines), false)
	}
	add("cmd", d.Command, true)
	for _, e := range d.Errors {
		add("err", e, true)
	}
	add("tests", d.Tests, true)
	if len(d.Files) > 0 {
		full := "[" + strings.Join(d.Files, ",") + "]"
		if len(full)+8 > budget-used {
			bases := make([]string, len(d.Files))
			for i, f := range d.Files {
				bases[i] = f[strings.LastIndexByte(f, '/')+1:]
			}
			full = "[" + strings.Join(bases, ",") + "]"
		}
		add("files", full, true)
	}
	if !slices.Contains(d.Errors, d.First) && d.First != d.Command {
		add("first", d.First, true)
	}
	return strings.Join(parts, "; ")
}

// clip shortens s to at most n bytes on a rune boundary, ending in "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut := n - len(ell)
	if cut < 0 {
		return ""
	}
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + ell
}

// Meta turns the description into vault metadata for a block.
func (d Description) Meta(kind string, msgIndex int, tokens int, estimated bool) vault.Meta {
	return vault.Meta{
		Kind: kind, MsgIndex: msgIndex, Tokens: tokens, TokensEstimated: estimated,
		Files: d.Files, Topics: d.Topics, Command: d.Command, Summary: d.Summary(400),
		Confidence: d.Confidence, Priority: d.Priority, Sensitive: d.Sensitive,
	}
}

// sourceBytes bounds the source a block's metadata keeps.
const sourceBytes = 300

// withSource records what produced the block (a tool call, a shell
// command) as its command, redacted, its first line only ("edit 12:14 …"),
// so the vault indexes and the summary shows it.
func (d Description) withSource(src string) Description {
	src = strings.TrimSpace(src)
	if src == "" {
		return d
	}
	if IsSensitive(src) {
		src = Redact(src)
	}
	more := ""
	if i := strings.IndexByte(src, '\n'); i >= 0 {
		src, more = src[:i], " …"
	}
	d.Command = clip(strings.Join(strings.Fields(plain(src)), " "), sourceBytes) + more
	return d
}

// mainArgs are the argument names that say what a tool call acts on, most
// telling first.
var mainArgs = []string{"command", "cmd", "path", "paths", "file", "query", "pattern", "url", "id", "name"}

// CallSource names what a tool call produces output from: the command of a
// shell call (shell, bash), else the tool's name and its main argument
// ("read_file src/app.py", "grep TODO"), else the name alone.
func CallSource(name, arguments string) string {
	var args map[string]any
	_ = json.Unmarshal([]byte(arguments), &args)
	for _, k := range mainArgs {
		v, ok := args[k]
		if !ok {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []any:
			parts := make([]string, 0, len(x))
			for _, p := range x {
				if ps, ok := p.(string); ok {
					parts = append(parts, ps)
				}
			}
			s = strings.Join(parts, " ")
		}
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if k == "command" || k == "cmd" {
			switch name {
			case "shell", "bash", "run_shell", "execute_bash", "run":
				return s
			}
		}
		return name + " " + s
	}
	return name
}
