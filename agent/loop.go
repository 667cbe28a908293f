package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/sidecar"
)

// ErrStepLimit is returned when a turn takes more model calls than allowed.
var ErrStepLimit = errors.New("agent: step limit reached")

// Run handles one user turn: it calls the model until it answers without
// tool calls or page faults, and returns that answer.
func (a *Agent) Run(ctx context.Context, userText string) (string, error) {
	a.startTurn(len(a.history))
	if err := a.repairToolResults(); err != nil {
		return "", err
	}
	a.turnStart, a.turnCheckpointed = len(a.history), false
	a.sessionStart(ctx)
	added, err := a.promptSubmit(ctx, userText)
	if err != nil {
		a.emit(Event{Type: EvError, Error: err.Error()})
		return "", err
	}
	content := joinText(userText, added)
	if m := a.cfg.Memory; m != nil {
		// The hint rides after the turn's own text, recorded as sent.
		if hint, err := m.Recall(ctx, userText); err != nil {
			a.emit(Event{Type: EvError, Error: "memory: " + err.Error()})
		} else if hint != "" {
			content += "\n\n" + hint
		}
	}
	if err := a.record(provider.Message{Role: "user", Content: content}); err != nil {
		return "", err
	}
	if m := a.cfg.Memory; m != nil {
		m.Observe(ctx, userText, a.userTurns())
	}
	return a.loop(ctx, a.direct(ctx, userText))
}

// userTurns counts the user turns in the history, messages from other
// agents included.
func (a *Agent) userTurns() int {
	n := 0
	for _, m := range a.history {
		if m.Role == "user" && dietMessage(m).Kind == "user" {
			n++
		}
	}
	return n
}

// direct asks the router whether the turn wants a direct answer; a router
// that fails counts as tool work, which offers every tool.
func (a *Agent) direct(ctx context.Context, turn string) bool {
	var r Router = sidecar.Heuristic{}
	if a.cfg.Router != nil {
		r = a.cfg.Router
	}
	route, err := r.Route(ctx, turn)
	return err == nil && route.Direct
}

// Resume finishes a turn that a crash or kill interrupted: tool calls left
// without results get a result saying so, then the loop goes on from the
// transcript as it is. It returns false when the last turn was complete.
func (a *Agent) Resume(ctx context.Context) (string, bool, error) {
	last := len(a.history) - 1
	if last < 0 || a.history[last].Role == "assistant" && len(a.history[last].ToolCalls) == 0 {
		return "", false, nil
	}
	turn := 0
	for i := last; i >= 0; i-- {
		if a.history[i].Role == "user" && dietMessage(a.history[i]).Kind == "user" {
			turn = i
			break
		}
	}
	a.startTurn(turn)
	if err := a.repairToolResults(); err != nil {
		return "", true, err
	}
	a.sessionStart(ctx)
	answer, err := a.loop(ctx, false)
	return answer, true, err
}

func (a *Agent) startTurn(at int) {
	a.turnStart = at
	a.faults, a.overCap, a.injected = 0, 0, 0
	a.expanded = map[string]bool{}
}

// repairToolResults answers every tool call of the last assistant message
// that has no result, so the transcript is valid for the provider again,
// and publishes each answer as the call's result, so that a pane showing
// the call as running sees it end.
func (a *Agent) repairToolResults() error {
	var calls []provider.ToolCall
	answered := map[string]bool{}
	for i := len(a.history) - 1; i >= 0; i-- {
		m := a.history[i]
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
			continue
		}
		if m.Role == "assistant" {
			calls = m.ToolCalls
		}
		break
	}
	for _, tc := range calls {
		if !answered[tc.ID] {
			msg := provider.Message{Role: "tool", ToolCallID: tc.ID,
				Content: "interrupted: kws stopped before this tool call finished; its effects, if any, are unknown. Check before relying on them."}
			if err := a.record(msg); err != nil {
				return err
			}
			a.emit(Event{Type: EvToolResult, Tool: tc.Name, CallID: tc.ID, Text: msg.Content, IsError: true})
		}
	}
	return nil
}

// failCalls answers the tool calls a failure left without results, so the
// transcript stays valid for the next turn, and returns cause. A call that
// already has a result (it failed after recording) is skipped.
func (a *Agent) failCalls(calls []provider.ToolCall, cause error) error {
	answered := map[string]bool{}
	for i := len(a.history) - 1; i >= 0 && a.history[i].Role == "tool"; i-- {
		answered[a.history[i].ToolCallID] = true
	}
	for _, tc := range calls {
		if answered[tc.ID] {
			continue
		}
		msg := provider.Message{Role: "tool", ToolCallID: tc.ID,
			Content: "failed: the turn stopped before this call completed (" + diet.EscapeMarkup(cause.Error()) + "); its effects, if any, are unknown."}
		if err := a.record(msg); err != nil {
			return errors.Join(cause, err)
		}
	}
	return cause
}

// loop calls the model until it answers without tool calls or faults,
// and no Stop hook makes it go on.
func (a *Agent) loop(ctx context.Context, direct bool) (string, error) {
	stopHookActive := false
	for step := 0; step < a.cfg.MaxSteps; step++ {
		if err := a.deliverNotices(); err != nil {
			return "", err
		}
		resp, err := a.call(ctx, direct)
		if err != nil {
			a.fail(ctx, err)
			return "", err
		}
		asst := provider.Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls}
		if err := a.record(asst); err != nil {
			return "", err
		}
		if len(resp.ToolCalls) > 0 {
			for i, tc := range resp.ToolCalls {
				if err := a.runTool(ctx, tc); err != nil {
					if errors.Is(err, errHookStopped) {
						return "", a.stopByHook(resp.ToolCalls[i+1:], err)
					}
					a.fail(ctx, err)
					return "", a.failCalls(resp.ToolCalls[i:], err)
				}
			}
			continue
		}
		faults, ferrs := diet.ParseFaults(resp.Content)
		if len(faults) > 0 || len(ferrs) > 0 {
			var answers []string
			for _, f := range faults {
				answers = append(answers, a.pageFault(ctx, f))
			}
			for _, e := range ferrs {
				answers = append(answers, fmt.Sprintf("<ctx_error>%s</ctx_error>", e))
			}
			if err := a.record(provider.Message{Role: "user", Content: strings.Join(answers, "\n")}); err != nil {
				return "", err
			}
			if a.overCap >= overCapTurns {
				a.emit(Event{Type: EvError, Error: ErrFaultLimit.Error()})
				return "", ErrFaultLimit
			}
			continue
		}
		goOn, err := a.stopHook(ctx, resp.Content, stopHookActive)
		if err != nil {
			return "", err
		}
		if goOn {
			stopHookActive = true
			continue
		}
		a.emit(Event{Type: EvDone, Text: resp.Content})
		return resp.Content, nil
	}
	err := fmt.Errorf("%w: %d model calls in one turn", ErrStepLimit, a.cfg.MaxSteps)
	a.emit(Event{Type: EvError, Error: err.Error()})
	return "", err
}

// fail publishes err, the failure that ends the turn, unless the turn was
// cancelled: a cancel is not the agent's failure, and whoever cancelled
// reports it (the swarm's EvFinished says "cancelled"), so it shows once.
func (a *Agent) fail(ctx context.Context, err error) {
	if ctx.Err() == nil {
		a.emit(Event{Type: EvError, Error: err.Error()})
	}
}

// toolSpecs offers every tool on a tool-heavy turn, and on a direct-answer
// turn only the core tools, tool_expand and what tool_expand asked for.
func (a *Agent) toolSpecs(direct bool) []provider.ToolSpec {
	core := map[string]bool{}
	for _, n := range tools.Core() {
		core[n] = true
	}
	var specs []provider.ToolSpec
	for _, t := range a.allTools() {
		if direct && !core[t.Name()] && !a.expanded[t.Name()] {
			continue
		}
		specs = append(specs, provider.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	return specs
}

// allTools are the agent's own tools, then the external ones as they are
// now.
func (a *Agent) allTools() []tools.Tool {
	if a.cfg.External == nil {
		return a.cfg.Tools
	}
	all := a.cfg.Tools[:len(a.cfg.Tools):len(a.cfg.Tools)]
	for _, g := range a.cfg.External() {
		all = append(all, g.Tools...)
	}
	return all
}

// tool finds a tool of the agent's own or an external one by name.
func (a *Agent) tool(name string) (tools.Tool, bool) {
	if t, ok := a.tools[name]; ok {
		return t, true
	}
	if a.cfg.External != nil {
		for _, g := range a.cfg.External() {
			for _, t := range g.Tools {
				if t.Name() == name {
					return t, true
				}
			}
		}
	}
	return nil, false
}

// expand is tool_expand's hook: it offers the named tools from the next
// call of this turn on.
func (a *Agent) expand(names []string) []string {
	var ok []string
	for _, n := range names {
		if _, known := a.tool(n); known {
			a.expanded[n] = true
			ok = append(ok, n)
		}
	}
	sort.Strings(ok)
	return ok
}

// runTool executes one tool call behind its PreToolUse hooks and the
// permission policy, runs its PostToolUse hooks and records its result
// message. A hook that stopped the agent ends the turn with
// errHookStopped, once the result is recorded.
func (a *Agent) runTool(ctx context.Context, tc provider.ToolCall) error {
	a.totals.ToolCalls++
	a.emit(Event{Type: EvToolCall, Tool: tc.Name, CallID: tc.ID, Args: tc.Arguments})
	pre := a.preToolUse(ctx, tc)
	var res tools.Result
	var err error
	switch {
	case pre.Stop:
		res = tools.Result{Text: "not run: " + hookStop(pre).Error(), IsError: true}
	case pre.Block:
		res = tools.Result{Text: "blocked by a PreToolUse hook: " + pre.Reason, IsError: true}
	default:
		a.checkpointBefore(tc)
		res, err = a.execute(ctx, tc, pre)
		a.checkpointAfter(tc)
	}
	if err != nil {
		if res.Text != "" {
			partial := provider.Message{Role: "tool", ToolCallID: tc.ID,
				Content: res.Text + "\n[kws: the call did not finish: " + diet.EscapeMarkup(err.Error()) + "]"}
			if rerr := a.record(partial); rerr != nil {
				return errors.Join(err, rerr)
			}
		}
		return err
	}
	var post hooks.Outcome
	if !pre.Stop && !pre.Block {
		res, post = a.postToolUse(ctx, tc, res)
	}
	a.emit(Event{Type: EvToolResult, Tool: tc.Name, CallID: tc.ID, Text: res.Text, IsError: res.IsError, Preview: res.Preview})
	if err := a.record(provider.Message{Role: "tool", ToolCallID: tc.ID, Content: res.Text}); err != nil {
		return err
	}
	for _, out := range []hooks.Outcome{pre, post} {
		if out.Stop {
			return hookStop(out)
		}
	}
	return nil
}

// execute runs one tool call; the result's Text is what the model reads.
// pre is what its PreToolUse hooks decided short of blocking it.
func (a *Agent) execute(ctx context.Context, tc provider.ToolCall, pre hooks.Outcome) (tools.Result, error) {
	if tc.Name == "ctx_get" || tc.Name == "ctx_search" {
		var args struct{ ID, Query, Reason string }
		if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
			return tools.Result{Text: "error: arguments are not a JSON object: " + err.Error(), IsError: true}, nil
		}
		f := diet.Fault{Op: "get", ID: args.ID, Reason: args.Reason}
		if tc.Name == "ctx_search" {
			f = diet.Fault{Op: "search", Query: args.Query, Reason: args.Reason}
		}
		ans := a.pageFault(ctx, f)
		return tools.Result{Text: ans, IsError: strings.HasPrefix(ans, "<ctx_error")}, nil
	}
	t, ok := a.tool(tc.Name)
	if !ok {
		if a.cfg.ExternalMissing != nil {
			if why := a.cfg.ExternalMissing(tc.Name); why != "" {
				return tools.Result{Text: fmt.Sprintf("error: tool %q is not available: %s", tc.Name, why), IsError: true}, nil
			}
		}
		var names []string
		for _, t := range a.allTools() {
			names = append(names, t.Name())
		}
		sort.Strings(names)
		return tools.Result{Text: fmt.Sprintf("error: unknown tool %q; available: %s", tc.Name, strings.Join(names, ", ")), IsError: true}, nil
	}
	if t.Access() != tools.ReadOnly || pre.Permission == "ask" {
		// A call whose preview fails is a mistake in its arguments (a
		// file:// URL, an edit whose text is not there): refuse it before
		// asking anyone to approve what cannot run.
		preview := tools.CallSummary(tc.Name, tc.Arguments)
		if p, ok := t.(tools.Previewer); ok {
			pv, err := p.Preview(a.env, []byte(tc.Arguments))
			if err != nil {
				return tools.Result{Text: err.Error(), IsError: true}, nil
			}
			preview = pv
		}
		a.requestSeq++
		req := permission.Request{ID: fmt.Sprintf("%s-%d", a.cfg.Name, a.requestSeq), Tool: tc.Name,
			Args: tc.Arguments, Preview: preview, Agent: a.cfg.Name}
		if p, ok := t.(tools.Permissioned); ok {
			req.Tool = p.Permission([]byte(tc.Arguments))
		}
		perm := req.Tool
		req.Waiting = func() { a.waiting(perm, tc) }
		policy := a.cfg.Policy
		if policy == nil {
			policy = permission.DefaultPolicy()
		}
		// Only a call the user will be asked about gets a risk note.
		if c := a.cfg.Critic; c != nil && policy.Decide(req.Tool, t.Access(), preview) == permission.Ask {
			if note, err := c.Critique(ctx, tc.Name, preview); err == nil {
				req.Note = note
			}
		}
		allowed, reason, err := a.permit(ctx, policy, t.Access(), req, pre)
		decision := "allow"
		if !allowed {
			decision = "deny"
		}
		a.emit(Event{Type: EvPermission, Tool: req.Tool, CallID: tc.ID, Decision: decision, Text: reason})
		a.event("permission", map[string]string{"tool": req.Tool, "call_id": tc.ID, "decision": decision, "reason": reason})
		if err != nil {
			return tools.Result{}, fmt.Errorf("agent: permission for %s: %w", tc.Name, err)
		}
		if !allowed {
			return tools.Result{Text: "permission denied: " + reason, IsError: true}, nil
		}
	}
	res, err := t.Run(ctx, a.env, []byte(tc.Arguments))
	if err != nil {
		res.IsError = true
		return res, fmt.Errorf("agent: tool %s: %w", tc.Name, err)
	}
	a.changed = appendUnique(a.changed, res.Changed...)
	return res, nil
}

// permit decides a call that may need approval: by the configured
// policy, or by a PreToolUse hook's "allow" (which the policy's denial
// still overrides) or "ask" (asked even where the policy allows).
func (a *Agent) permit(ctx context.Context, policy *permission.Policy, access tools.Access, req permission.Request, pre hooks.Outcome) (bool, string, error) {
	if pre.Permission == "" || policy.Decide(req.Tool, access, req.Preview) == permission.Deny {
		return permission.Check(ctx, a.cfg.Policy, a.cfg.Broker, access, req)
	}
	why := ""
	if pre.PermissionReason != "" {
		why = ": " + pre.PermissionReason
	}
	if pre.Permission == "allow" {
		return true, "allowed by a PreToolUse hook" + why, nil
	}
	req.Note = joinText(req.Note, "A PreToolUse hook asks you to decide"+why)
	ask := &permission.Policy{Tools: map[string]permission.Decision{req.Tool: permission.Ask}}
	return permission.Check(ctx, ask, a.cfg.Broker, access, req)
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}
