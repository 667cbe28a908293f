package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/diet/replay"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// bigLines is a file of n long, distinct lines: output whose lines anchor
// the repeated-span finder, which once encoded a page-in answer against
// the very block it answered with.
func bigLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %03d: compiled module alpha_%d with flags -O2 -g -fno-omit-frame-pointer\n", i, i*7)
	}
	return b.String()
}

// pager is a scripted model that pages in the output of one tool call
// as a model would: by the ref it sees in the call's place, or through the
// runs that hold it, by the message numbers their refs and blocks give,
// until the exact output arrives. Then it asks for it again with each
// page-fault form in turn.
type pager struct {
	t      testing.TB
	callID string
	msg    int // the index of the call's result in the conversation
	want   string
	id     string   // the output's block id, once known
	faults int      // faults made before the exact output arrived
	again  []string // the forms still to try once it did
	exact  []bool   // per later fault, whether its answer held the output (or said where)
}

func (p *pager) step() providertest.Step {
	return providertest.Step{Reply: p.reply}
}

func (p *pager) reply(req providertest.RecordedRequest) providertest.Step {
	p.t.Helper()
	last := req.Messages[len(req.Messages)-1]
	if p.id != "" && len(p.again) < 3 {
		// The answer to the last repeated fault.
		p.exact = append(p.exact, exactOrAbove(last.Content, p.want, promptText(req.Messages)))
	}
	answer := readAnswer(req.Messages)
	if ids := exactIDs(answer); p.id == "" && len(ids) > 0 && strings.Contains(answer, p.want) {
		p.id = ids[0]
	}
	if p.id != "" {
		if len(p.again) == 0 {
			return providertest.TextStep("done")
		}
		form := p.again[0]
		p.again = p.again[1:]
		switch form {
		case "tool":
			return providertest.ToolStep(call(fmt.Sprintf("again%d", len(p.again)), "ctx_get", map[string]any{"id": p.id}))
		case "line":
			return providertest.TextStep("Once more.\n.ctx_get id=" + p.id + " reason=exact lines")
		default:
			return providertest.TextStep(". err need_ref " + p.id + " the whole output")
		}
	}
	p.faults++
	id := p.next(req)
	if p.faults > 4 || id == "" {
		p.t.Errorf("the output is not reachable in 4 faults; last answer %.300q", last.Content)
		return providertest.TextStep("giving up")
	}
	return providertest.ToolStep(call(fmt.Sprintf("f%d", p.faults), "ctx_get", map[string]any{"id": id}))
}

// next is the id the model pages in next: in the last page-in answer, a
// run's block, the part of the output's message (its ref, or the run that
// holds it); else, in the prompt, the ref standing for the call's result,
// or the run whose summary's "msgs A-B" covers its message.
func (p *pager) next(req providertest.RecordedRequest) string {
	if answer := readAnswer(req.Messages); strings.HasPrefix(answer, "<ctx_exact") {
		if id := p.inRun(answer); id != "" {
			return id
		}
	}
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == p.callID && m.Content != diet.FoldMarker {
			if refs := vault.ParseRefs(m.Content); len(refs) > 0 {
				return refs[0].ID
			}
			p.t.Errorf("the result of %s is sent as text, no fault needed: %.200q", p.callID, m.Content)
			return ""
		}
	}
	for _, m := range req.Messages {
		for _, r := range vault.ParseRefs(m.Content) {
			if replay.Covers(r, p.msg) {
				return replay.Handle(r, p.msg)
			}
		}
	}
	p.t.Errorf("no ref in the request leads to message %d", p.msg)
	return ""
}

// inRun finds, in a page-in answer holding a run's block, what leads to
// message p.msg: its part's ref, or the part opening the run that holds it.
func (p *pager) inRun(answer string) string {
	_, body, _ := strings.Cut(answer, "\n")
	body = strings.TrimSuffix(body, "\n</ctx_exact>")
	parts, err := diet.ParseFold([]byte(body))
	if err != nil {
		return ""
	}
	lead := ""
	for _, part := range parts {
		if part.Index > p.msg {
			break
		}
		refs := vault.ParseRefs(part.Text)
		switch {
		case part.Index == p.msg && len(refs) > 0:
			return refs[0].ID
		case len(refs) == 1 && replay.Covers(refs[0], p.msg):
			lead = replay.Handle(refs[0], p.msg)
		}
	}
	return lead
}

// readAnswer is the last message of msgs, a page-in answer, as a model
// reads it: when it says its bytes stand above (repeated="true"), the
// earlier answer that holds them.
func readAnswer(msgs []provider.Message) string {
	last := msgs[len(msgs)-1].Content
	if !strings.Contains(last, `repeated="true"`) {
		return last
	}
	ids := exactIDs(last)
	for _, m := range msgs[:len(msgs)-1] {
		if len(ids) > 0 && strings.HasPrefix(m.Content, `<ctx_exact id="`+ids[0]+`" `) && !strings.Contains(m.Content[:min(len(m.Content), 200)], `repeated="true"`) {
			return m.Content
		}
	}
	return last
}

// exactIDs are the ids of the <ctx_exact> elements in text.
func exactIDs(text string) []string {
	var ids []string
	for _, part := range strings.Split(text, `<ctx_exact id="`)[1:] {
		id, _, _ := strings.Cut(part, `"`)
		ids = append(ids, id)
	}
	return ids
}

// exactOrAbove says whether a page-in answer holds want, or says it is
// repeated and want stands exact in the prompt.
func exactOrAbove(answer, want, prompt string) bool {
	return strings.Contains(answer, want) && !strings.Contains(answer, "<il:") ||
		strings.Contains(answer, `repeated="true"`) && strings.Contains(prompt, want)
}

// TestPageInReachesTheModelExact runs a command whose output leaves the
// prompt, pages it in as a model would, by the refs it sees, then asks for
// it again with the ctx_get tool, the .ctx_get line and need_ref. Every
// answer, read in the next request, holds every line of the output or
// says where in the prompt they stand exact.
func TestPageInReachesTheModelExact(t *testing.T) {
	big := bigLines(300)
	r := newRig(t, func(c *Config) { c.Diet.TriggerTokens, c.Diet.Recent = 1000, 2 })
	os.WriteFile(filepath.Join(r.ws, "big.txt"), []byte(big), 0o644)
	steps := []providertest.Step{providertest.ToolStep(call("c1", "shell", map[string]any{"command": "cat big.txt"}))}
	for k := range 3 {
		steps = append(steps, providertest.ToolStep(call(fmt.Sprintf("s%d", k), "shell", map[string]any{"command": fmt.Sprintf("echo step %d", k)})))
	}
	// The transcript: system, task, then each call and its result.
	p := &pager{t: t, callID: "c1", msg: 3, want: big, again: []string{"tool", "line", "need_ref"}}
	for range 12 {
		steps = append(steps, p.step())
	}
	r.srv.Push(steps...)
	r.run("show me what big.txt holds")
	if p.id == "" {
		t.Fatal("the exact output never reached the model")
	}
	if len(p.exact) != 3 {
		t.Fatalf("%d repeated faults answered, want 3", len(p.exact))
	}
	for k, ok := range p.exact {
		if !ok {
			t.Errorf("repeated fault %d (%s): its answer held neither the output nor where it stands", k, []string{"tool", "line", "need_ref"}[k])
		}
	}
	t.Logf("faults to reach the output: %d", p.faults)
}

// promptText is every message's content, joined.
func promptText(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestElidedHistoryIsAValidRequest runs enough tool rounds at a small
// trigger that old messages are elided (not sent at all): every request
// still pairs each tool result with its call (the scripted server refuses
// one that does not), and the first output is still reachable by
// following the refs the model sees, through the runs that hold it.
func TestElidedHistoryIsAValidRequest(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Diet.TriggerTokens, c.Diet.Recent, c.MaxSteps = 1500, 2, 100 })
	var steps []providertest.Step
	for k := range 60 {
		steps = append(steps, providertest.ToolStep(call(fmt.Sprintf("c%d", k), "shell", map[string]any{"command": fmt.Sprintf("seq %d %d | sed 's/^/build step /'", k*100, k*100+30)})))
	}
	var first strings.Builder
	for i := range 31 {
		fmt.Fprintf(&first, "build step %d\n", i)
	}
	p := &pager{t: t, callID: "c0", msg: 3, want: first.String()}
	for range 8 {
		steps = append(steps, p.step())
	}
	r.srv.Push(steps...)
	r.run("run the build steps")
	reqs := r.srv.Requests()
	elided := false
	for _, req := range reqs {
		elided = elided || len(req.Messages) < len(r.a.meta)/2
	}
	if !elided {
		t.Fatalf("no request elided old messages: the last of %d requests sent %d of %d messages", len(reqs), len(reqs[len(reqs)-1].Messages), len(r.a.meta))
	}
	if p.id == "" {
		t.Fatal("the first output never reached the model")
	}
	t.Logf("faults to reach the first of 60 outputs: %d", p.faults)
}
