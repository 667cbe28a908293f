package replay

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// The page-fault harness measures evidence from the model's side: after a
// replay, for every question it finds the message that holds the answer
// as a model would, in the prompt the model was last sent (exact there,
// or behind the ref it sees in the message's place, or behind the run
// whose "msgs A-B" covers it), pages refs in one at a time, each answer
// added to the session as the agent adds it and the prompt built again,
// and reads the next prompt for the exact line.

// maxFaults is how many faults one question may take before its evidence
// counts as unreachable.
const maxFaults = 6

// FaultReport is what the harness measured.
type FaultReport struct {
	File      string `json:"file"`
	Questions int    `json:"questions"`
	// Faults[k] counts the questions answered after k faults (0: exact in
	// the prompt); Unreachable those not answered within maxFaults.
	Faults      [maxFaults + 1]int `json:"faults"`
	Unreachable int                `json:"unreachable"`
	// TotalFaults and PagedBytes add up every fault and answer.
	TotalFaults int `json:"total_faults"`
	PagedBytes  int `json:"paged_bytes"`
	// Pointers counts answers whose next prompt held neither the block's
	// exact bytes nor a note naming the message that holds them exact:
	// it must be 0.
	Pointers int `json:"pointer_answers"`
	// Failures describes the first few pointer answers and unreachable
	// questions.
	Failures []string `json:"failures,omitempty"`
}

// WithinOne is the share of questions whose evidence was exact in the
// prompt or one fault away, in percent.
func (r FaultReport) WithinOne() float64 {
	return pct(r.Faults[0]+r.Faults[1], r.Questions)
}

// FaultsPerQuestion is the mean number of faults of the answered questions.
func (r FaultReport) FaultsPerQuestion() float64 {
	n, f := 0, 0
	for k, c := range r.Faults {
		n += c
		f += k * c
	}
	if n == 0 {
		return 0
	}
	return float64(f) / float64(n)
}

func (r *FaultReport) fail(format string, args ...any) {
	if len(r.Failures) < 8 {
		r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
	}
}

// PageFaults replays conv with p into store, then pages in the evidence
// of each of its questions (Questions with p.MinBlockChars) and reports
// how many faults each took and whether every answer reached the prompt
// exact.
func PageFaults(conv Conversation, p diet.Params, store diet.Store, counter *tokens.Counter) (FaultReport, error) {
	o, s, err := runSession(conv, p, store, counter, nil)
	if err != nil {
		return FaultReport{}, err
	}
	rep := FaultReport{File: conv.Name}
	res := o.Last
	for _, q := range Questions(conv, p.MinBlockChars) {
		want := evidenceLine(q, conv.Messages[q.Message].Content)
		rep.Questions++
		n, r, err := pageIn(s, store, res, q.Message, want, &rep)
		if err != nil {
			return rep, err
		}
		res = r
		if n < 0 {
			rep.Unreachable++
			rep.fail("%s: %q (message %d) not reached in %d faults", conv.Name, want, q.Message, maxFaults)
			continue
		}
		rep.Faults[n]++
	}
	return rep, nil
}

var (
	reEvidenceErr  = regexp.MustCompile(`(?i)error|exception|traceback|failed|fatal|panic`)
	reEvidenceTest = regexp.MustCompile(`\b\d+ (passed|failed)\b`)
)

// evidenceLine is the exact line a question's answer must bring back: the
// numbered window line it asks for, else the output's first error line,
// else its test summary, else its last line.
func evidenceLine(q Question, content string) string {
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	if q.Kind == "line" {
		var n int
		if _, err := fmt.Sscanf(q.Text[strings.LastIndex(q.Text, "line "):], "line %d", &n); err == nil {
			for _, l := range lines {
				if strings.HasPrefix(l, fmt.Sprintf("%d:", n)) {
					return l
				}
			}
		}
	}
	for _, re := range []*regexp.Regexp{reEvidenceErr, reEvidenceTest} {
		for _, l := range lines {
			if strings.TrimSpace(l) != "" && re.MatchString(l) {
				return l
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return content
}

// pageIn finds message i's evidence want in res as a model would and
// pages refs in until a prompt holds it. It returns the faults taken (-1:
// not reached) and the last prompt built.
func pageIn(s *diet.State, store diet.Store, res diet.Result, i int, want string, rep *FaultReport) (int, diet.Result, error) {
	id := lead(res.Messages, i, want)
	if id == "" {
		return 0, res, nil
	}
	for n := 1; n <= maxFaults; n++ {
		ans := diet.Answer(store, nil, diet.Fault{Op: "get", ID: id})
		s.Add(diet.Message{Role: "assistant", Content: ".ctx_get id=" + id},
			diet.Message{Role: "tool", Kind: diet.KindPageIn, Content: ans})
		var err error
		if res, err = s.Build(); err != nil {
			return 0, res, err
		}
		rep.TotalFaults++
		rep.PagedBytes += len(ans)
		got := res.Messages[len(res.Messages)-1].Content
		if !answered(res.Messages, got, ans) {
			rep.Pointers++
			rep.fail("ctx_get %s answered in the next prompt by %.200q", id, got)
		}
		if strings.Contains(ans, want) {
			return n, res, nil
		}
		if id = inBlock(store, id, i, want); id == "" {
			return -1, res, nil
		}
	}
	return -1, res, nil
}

// answered says whether got, what the prompt sent for a page-in answer
// ans, is ans, or a note naming an earlier message of prompt that holds
// the same bytes exact.
func answered(prompt []diet.Message, got, ans string) bool {
	if got == ans {
		return true
	}
	var j int
	k := strings.Index(got, `repeated="true" at=`)
	if k < 0 || !strings.HasPrefix(ans, "<ctx_exact") {
		return false
	}
	if _, err := fmt.Sscanf(got[k+len(`repeated="true" at=`):], "%d", &j); err != nil || j < 0 || j >= len(prompt) {
		return false
	}
	_, body, _ := strings.Cut(ans, "\n")
	body = strings.TrimSuffix(body, "\n</ctx_exact>")
	return strings.Contains(prompt[j].Content, body)
}

// lead is the id a model pages in first for message i of prompt, or ""
// when the prompt shows want as it is: the ref in the message's place, or
// for a message folded or elided into a run, the block the run's ref
// names for it among its handles, else the run.
func lead(prompt []diet.Message, i int, want string) string {
	m := prompt[i]
	if !m.Elided && strings.Contains(m.Content, want) {
		return ""
	}
	if refs := vault.ParseRefs(m.Content); !m.Elided && len(refs) > 0 && refs[0].Kind != diet.KindRun {
		return refs[0].ID
	}
	for j := i; j >= 0; j-- {
		for _, r := range vault.ParseRefs(prompt[j].Content) {
			if Covers(r, i) {
				return Handle(r, i)
			}
		}
	}
	return ""
}

// Handle is the block a run's ref r names for message i among its
// handles, else r's own id: what a model pages in to reach message i.
func Handle(r vault.Ref, i int) string {
	prefix := fmt.Sprintf("%d=", i)
	_, hs, ok := strings.Cut(r.Summary, "; blocks: ")
	for _, h := range strings.Split(hs, ", ") {
		if ok && strings.HasPrefix(h, prefix) {
			hex, _, _ := strings.Cut(h[len(prefix):], " ")
			return "ctx:" + hex
		}
	}
	return r.ID
}

// inBlock is the id to page in next from the block id, a run, toward
// message i: the ref of its part, or the run holding it.
func inBlock(store diet.Store, id string, i int, want string) string {
	data, err := store.Get(id)
	if err != nil {
		return ""
	}
	parts, err := diet.ParseFold(data)
	if err != nil {
		return ""
	}
	next := ""
	for _, p := range parts {
		if p.Index > i {
			break
		}
		refs := vault.ParseRefs(p.Text)
		switch {
		case p.Index == i && len(refs) > 0:
			return refs[0].ID
		case len(refs) == 1 && Covers(refs[0], i):
			next = Handle(refs[0], i)
		}
	}
	return next
}

// Covers says whether r is a run's ref whose summary's "msgs A-B" holds
// message i.
func Covers(r vault.Ref, i int) bool {
	var a, b int
	if r.Kind != diet.KindRun {
		return false
	}
	if _, err := fmt.Sscanf(r.Summary, "msgs %d-%d", &a, &b); err != nil {
		return false
	}
	return a <= i && i <= b
}
