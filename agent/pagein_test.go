package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
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
// as a model would: by the ref it sees in the call's place, through the run
// that folded it when it was folded (the largest ref of the run's block),
// until the exact output arrives. Then it asks for it again with each
// page-fault form in turn.
type pager struct {
	t      testing.TB
	callID string
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
	if ids := exactIDs(last.Content); p.id == "" && len(ids) > 0 && strings.Contains(last.Content, p.want) {
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

// next is the id the model pages in next: the largest ref in the last
// page-in answer, else the ref standing for the call's result.
func (p *pager) next(req providertest.RecordedRequest) string {
	last := req.Messages[len(req.Messages)-1]
	if strings.HasPrefix(last.Content, "<ctx_exact") {
		best := vault.Ref{}
		for _, r := range vault.ParseRefs(last.Content) {
			if r.Tag == vault.TagCtx && r.Chars > best.Chars {
				best = r
			}
		}
		if best.ID != "" {
			return best.ID
		}
	}
	run := ""
	for _, m := range req.Messages {
		if refs := vault.ParseRefs(m.Content); len(refs) > 0 && refs[0].Kind == diet.KindRun && strings.HasPrefix(m.Content, "<ctx") {
			run = refs[0].ID
		}
		if m.Role == "tool" && m.ToolCallID == p.callID {
			if m.Content == diet.FoldMarker {
				return run
			}
			if refs := vault.ParseRefs(m.Content); len(refs) > 0 {
				return refs[0].ID
			}
			p.t.Errorf("the result of %s is sent as text, no fault needed: %.200q", p.callID, m.Content)
			return ""
		}
	}
	p.t.Errorf("no result of %s in the request", p.callID)
	return ""
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
	p := &pager{t: t, callID: "c1", want: big, again: []string{"tool", "line", "need_ref"}}
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
