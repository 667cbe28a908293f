package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/diet/replay"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// asTranscript turns a replayed conversation (its system prompt left out:
// the agent has its own) into an agent's transcript: each tool output
// that follows an assistant message becomes the result of a call
// "hK" of it, K its index in the conversation; the rest stay as they are.
// Message K of the conversation is then message K of the agent's prompt.
func asTranscript(conv replay.Conversation) (out []provider.Message, calls map[int]string) {
	calls = map[int]string{}
	owner := -1 // the assistant message whose calls the tool results answer
	for k, m := range conv.Messages[1:] {
		k++
		if m.IsToolOutput() && owner >= 0 {
			id := fmt.Sprintf("h%d", k)
			args, _ := json.Marshal(map[string]string{"command": m.Source})
			out[owner].ToolCalls = append(out[owner].ToolCalls, provider.ToolCall{ID: id, Name: "shell", Arguments: string(args)})
			out = append(out, provider.Message{Role: "tool", ToolCallID: id, Content: m.Content})
			calls[k] = id
			continue
		}
		role := m.Role
		if role == "tool" || role == "system" {
			role = "user"
		}
		out = append(out, provider.Message{Role: role, Content: m.Content})
		owner = -1
		if role == "assistant" {
			owner = len(out) - 1
		}
	}
	return out, calls
}

// quiz is a scripted model that asks, one after another, for the output
// behind each question of a replayed session, paging it in as pager does,
// and keeps count.
type quiz struct {
	t      *testing.T
	qs     []quizQ
	k      int
	cur    *pager
	faults []int // per question answered, the faults it took
	lost   int   // questions not answered in 4 faults
	// pointers counts page-in answers whose request held neither the
	// block's bytes nor a note naming where they stand exact.
	pointers int
}

type quizQ struct {
	callID, want string
	msg          int
}

func (z *quiz) reply(req providertest.RecordedRequest) providertest.Step {
	last := req.Messages[len(req.Messages)-1]
	if z.cur != nil && z.cur.faults > 0 && !strings.HasPrefix(last.Content, "<ctx_exact") {
		z.pointers++
	}
	for z.k < len(z.qs) {
		q := z.qs[z.k]
		if z.cur == nil {
			if exactIn(req, q) {
				z.faults, z.k = append(z.faults, 0), z.k+1
				continue
			}
			z.cur = &pager{t: z.t, callID: q.callID, msg: q.msg, want: q.want}
		}
		st := z.cur.reply(req)
		switch {
		case z.cur.id != "":
			z.faults = append(z.faults, z.cur.faults)
		case st.Text == "giving up":
			z.lost++
		default:
			return st
		}
		z.k, z.cur = z.k+1, nil
	}
	return providertest.TextStep("all answered")
}

// exactIn says whether the request holds q's output exact in its place.
func exactIn(req providertest.RecordedRequest, q quizQ) bool {
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == q.callID {
			return m.Content == q.want
		}
	}
	return false
}

// TestPageFaultsThroughTheAgentLoop resumes an agent on the fixtures'
// measure half, replayed as one multi-agent session, and asks for the
// output behind every question of it as a model would, through the agent
// loop and the scripted model server: every answer reaches the model's
// next request exact, every output is reached, nearly all in one fault.
func TestPageFaultsThroughTheAgentLoop(t *testing.T) {
	files, err := filepath.Glob("../testdata/trajectories/*.traj")
	if err != nil || len(files) != 21 {
		t.Fatalf("fixtures: %d, %v", len(files), err)
	}
	sort.Strings(files)
	_, measure := replay.SplitSets(files)
	var convs []replay.Conversation
	for _, f := range measure {
		c, err := replay.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, replay.Swarm(c))
	}
	conv := replay.Concat("measure", convs)
	history, calls := asTranscript(conv)
	z := &quiz{t: t}
	for _, q := range replay.Questions(conv, diet.Defaults().MinBlockChars) {
		if id, ok := calls[q.Message]; ok {
			z.qs = append(z.qs, quizQ{callID: id, msg: q.Message, want: conv.Messages[q.Message].Content})
		}
	}
	steps := make([]providertest.Step, 4*len(z.qs)+2)
	for i := range steps {
		steps[i] = providertest.Step{Reply: z.reply}
	}
	r := newRig(t, func(c *Config) {
		c.History = history
		c.MaxSteps, c.MaxPageFaults, c.MaxInjectedChars = len(steps), len(steps), 1<<30
	}, steps...)
	r.run("answer my questions about the earlier outputs")
	within := 0
	for _, f := range z.faults {
		if f <= 1 {
			within++
		}
	}
	t.Logf("%d questions through the agent loop: %d answered (%d within one fault), %d lost, %d pointer answers",
		len(z.qs), len(z.faults), within, z.lost, z.pointers)
	if len(z.qs) < 40 || z.lost != 0 || z.pointers != 0 || len(z.faults) != len(z.qs) {
		t.Fatalf("%d questions, %d answered, %d lost, %d pointer answers", len(z.qs), len(z.faults), z.lost, z.pointers)
	}
	if 10*within < 9*len(z.qs) {
		t.Errorf("%d of %d within one fault, want 90 %%", within, len(z.qs))
	}
}
