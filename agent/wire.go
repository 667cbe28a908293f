package agent

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// Token frames of what a call sends besides the message contents (each
// message's frame is diet.MsgOverheadTokens): one tool call (its id, name
// and arguments besides) and one tool schema.
const (
	callOverheadTokens = 3
	specOverheadTokens = 3
)

// wireCall is one tool call of a prompt message as it goes on the wire.
type wireCall struct {
	// exact is the arguments sent while the call is recent: the model's
	// own, or a JSON object quoting them when they are not one.
	exact    string
	frameTok int // id, name and frame
	exactTok int
	rawTok   int // the model's own arguments, for the naive figure
	bulky    bool
	sum      [32]byte
}

// wireInfo is what one prompt message sends besides its content.
type wireInfo struct {
	idTok int // a tool result's call id
	calls []wireCall
}

// argsRef is the form of bulky arguments once old: valid JSON naming the
// vault block that holds them exactly.
type argsRef struct {
	text string
	tok  int
}

// wirePrompt is one call's request and what it costs.
type wirePrompt struct {
	res   diet.Result
	msgs  []provider.Message
	specs []provider.ToolSpec
	// sent and naive are the request's tokens as sent and as naive
	// resend would send it (every message and argument exact), and
	// sentChars and naiveChars the same in bytes.
	sent, naive           int
	sentChars, naiveChars int
	// tok holds each message's sent tokens, calls included.
	tok      []int
	specsTok int
}

// newWireInfo measures message m's tool calls and call id.
func newWireInfo(m provider.Message, minBlock int) wireInfo {
	var w wireInfo
	tc := tokens.Default()
	if m.ToolCallID != "" {
		w.idTok = tc.Count(m.ToolCallID).Tokens
	}
	for _, c := range m.ToolCalls {
		exact := validArguments(c.Arguments)
		wc := wireCall{exact: exact, frameTok: tc.Count(c.ID).Tokens + tc.Count(c.Name).Tokens + callOverheadTokens}
		wc.exactTok = tc.Count(exact).Tokens
		wc.rawTok = wc.exactTok
		if exact != c.Arguments {
			wc.rawTok = tc.Count(c.Arguments).Tokens
		}
		if len(c.Arguments) >= minBlock {
			wc.bulky, wc.sum = true, sha256.Sum256([]byte(c.Arguments))
		}
		w.calls = append(w.calls, wc)
	}
	return w
}

// validArguments returns args when they are a JSON object, "{}" when they
// are blank, and else a JSON object quoting them, so that a strict server
// (vLLM, llama-server) accepts every earlier call of the transcript.
func validArguments(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) == nil && obj != nil {
		return args
	}
	b, _ := json.Marshal(map[string]string{"invalid_arguments": args,
		"note": "the model's arguments were not a JSON object; kws did not run the call with them"})
	return string(b)
}

// rawTokens is what message m costs sent whole: naive resend's figure.
func rawTokens(m provider.Message) int {
	w := newWireInfo(m, 1<<62)
	n := tokens.Default().Count(m.Content).Tokens + diet.MsgOverheadTokens + w.idTok
	for _, c := range w.calls {
		n += c.frameTok + c.rawTok
	}
	return n
}

// rawChars is what m sends whole, in bytes: its content, and each tool
// call's name and arguments.
func rawChars(m provider.Message) int {
	n := len(m.Content)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n
}

// specsChars is what the tool schemas send, in bytes, as specsTokens
// counts them.
func specsChars(specs []provider.ToolSpec) int {
	n := 0
	for _, s := range specs {
		params, err := json.Marshal(s.Parameters)
		if err != nil {
			params = s.Parameters
		}
		n += len(s.Name) + len(s.Description) + len(params)
	}
	return n
}

// specsTokens counts the tool schemas as sent: name, description and the
// JSON parameters of each.
func (a *Agent) specsTokens(specs []provider.ToolSpec) int {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	key := strings.Join(names, ",")
	if n, ok := a.specTok[key]; ok {
		return n
	}
	tc := tokens.Default()
	n := 0
	for _, s := range specs {
		// Parameters go as the JSON encoder writes them: compacted, with
		// <, > and & escaped.
		params, err := json.Marshal(s.Parameters)
		if err != nil {
			params = s.Parameters
		}
		n += tc.Count(s.Name).Tokens + tc.Count(s.Description).Tokens + tc.Count(string(params)).Tokens + specOverheadTokens
	}
	a.specTok[key] = n
	return n
}

// callsTokens is what message i's tool calls and call id send now.
func (a *Agent) callsTokens(i int) int {
	w := a.wire[i]
	n := w.idTok
	old := a.dietS.Externalized(i)
	for _, c := range w.calls {
		n += c.frameTok + c.exactTok
		if r, ok := a.argRefs[c.sum]; ok && old && c.bulky {
			n += r.tok - c.exactTok
		}
	}
	return n
}

// argRefTokensEstimate is about what a bulky argument's ref costs before
// it is made.
const argRefTokensEstimate = 64

// savableArguments is, per message not yet behind the diet's cut, what
// sending its bulky tool-call arguments by ref would save: the diet times
// its epochs by it, since an assistant message's content is often short
// while its write_file arguments are the bulk of the prompt.
func (a *Agent) savableArguments() []int {
	save := make([]int, len(a.wire))
	for i, w := range a.wire {
		if a.dietS.Externalized(i) {
			continue
		}
		for _, c := range w.calls {
			if c.bulky {
				save[i] += max(0, c.exactTok-argRefTokensEstimate)
			}
		}
	}
	return save
}

// callsTokensAll is what each message of the next prompt sends besides
// its content as the diet stands: tool-call ids, names and arguments.
func (a *Agent) callsTokensAll() []int {
	n := make([]int, len(a.wire))
	for i := range a.wire {
		n[i] = a.callsTokens(i)
	}
	return n
}

// wirePrompt turns a built diet prompt into the request: contents as the
// diet sent them, old bulky tool-call arguments as refs to their exact
// bytes in the vault, and counts every token of it. Messages the diet
// elided are not sent, and the message opening their run, which stands for
// them, goes without its tool calls: their results are among them.
func (a *Agent) wirePrompt(res diet.Result, specs []provider.ToolSpec) (wirePrompt, error) {
	if err := a.vaultArguments(); err != nil {
		return wirePrompt{}, err
	}
	w := wirePrompt{res: res, msgs: make([]provider.Message, 0, len(res.Messages)), specs: specs, tok: make([]int, 0, len(res.Messages))}
	w.specsTok = a.specsTokens(specs)
	w.sent = diet.PromptOverheadTokens + w.specsTok
	for i, dm := range res.Messages {
		if dm.Elided {
			continue
		}
		m := a.meta[i]
		m.Content = dm.Content
		if i+1 < len(res.Messages) && res.Messages[i+1].Elided {
			m.ToolCalls = nil
			w.msgs = append(w.msgs, m)
			w.tok = append(w.tok, res.Tokens[i])
			w.sent += res.Tokens[i]
			continue
		}
		if len(m.ToolCalls) > 0 {
			m.ToolCalls = append([]provider.ToolCall(nil), m.ToolCalls...)
			old := a.dietS.Externalized(i)
			for k, c := range a.wire[i].calls {
				m.ToolCalls[k].Arguments = c.exact
				if r, ok := a.argRefs[c.sum]; ok && old && c.bulky {
					m.ToolCalls[k].Arguments = r.text
				}
			}
		}
		w.msgs = append(w.msgs, m)
		w.tok = append(w.tok, res.Tokens[i]+a.callsTokens(i))
		w.sent += w.tok[len(w.tok)-1]
	}
	w.naive = diet.PromptOverheadTokens + w.specsTok + a.naiveTok
	sc := specsChars(specs)
	w.sentChars, w.naiveChars = sc, sc+a.naiveChars
	for _, m := range w.msgs {
		w.sentChars += rawChars(m)
	}
	return w, nil
}

// vaultArguments stores the exact bytes of the bulky arguments that the
// diet has put behind the cut, once each, and makes their refs.
func (a *Agent) vaultArguments() error {
	var blocks []vault.Block
	var sums [][32]byte
	for i, w := range a.wire {
		if !a.dietS.Externalized(i) {
			break
		}
		for k, c := range w.calls {
			if _, done := a.argRefs[c.sum]; !c.bulky || done || containsSum(sums, c.sum) {
				continue
			}
			tc := a.meta[i].ToolCalls[k]
			kind := "args:" + tc.Name
			d := diet.Describe(kind, tc.Arguments)
			meta := d.Meta(kind, i, c.rawTok, false)
			meta.Agent = a.cfg.Name
			blocks = append(blocks, vault.Block{Data: []byte(tc.Arguments), Meta: meta})
			sums = append(sums, c.sum)
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	ids, err := a.cfg.Vault.PutMany(blocks)
	if err != nil {
		return fmt.Errorf("agent: vault tool-call arguments: %w", err)
	}
	for k, id := range ids {
		text := argsRefText(id, string(blocks[k].Data))
		a.argRefs[sums[k]] = argsRef{text: text, tok: tokens.Default().Count(text).Tokens}
	}
	return nil
}

func containsSum(sums [][32]byte, s [32]byte) bool {
	for _, x := range sums {
		if x == s {
			return true
		}
	}
	return false
}

// argsKeepChars bounds a top-level string argument that the ref form keeps
// (a path, a command), so the model still sees what the call was about.
const argsKeepChars = 160

// argsRefText is the ref form of arguments stored as id: a JSON object
// every OpenAI-compatible server accepts, keeping the short scalar fields.
func argsRefText(id, args string) string {
	ref := struct {
		Ref   string         `json:"ctx_ref"`
		Chars int            `json:"original_chars"`
		Kept  map[string]any `json:"kept,omitempty"`
		Note  string         `json:"note"`
	}{Ref: id, Chars: len(args), Note: "arguments moved to the vault; ctx_get id=" + id + " returns them exactly"}
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) == nil {
		for k, v := range obj {
			switch x := v.(type) {
			case string:
				if len(x) > argsKeepChars || strings.Contains(x, "\n") {
					continue
				}
			case bool, float64:
			default:
				continue
			}
			if ref.Kept == nil {
				ref.Kept = map[string]any{}
			}
			ref.Kept[k] = v
		}
	}
	b, _ := json.Marshal(ref)
	return string(b)
}
