package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// ErrPromptBlocked is returned by Run when a UserPromptSubmit hook blocked
// the turn: the model never sees it; the error says why.
var ErrPromptBlocked = errors.New("agent: a UserPromptSubmit hook blocked the prompt")

// errHookStopped ends a turn a hook stopped ("continue": false).
var errHookStopped = errors.New("a hook stopped the agent")

// runHooks runs call's hooks now and shows what they said.
func (a *Agent) runHooks(ctx context.Context, call hooks.Call) hooks.Outcome {
	out := a.cfg.Hooks.Run(ctx, call)
	a.showHooks(call.Event, out)
	return out
}

// fireHooks runs call's hooks in the background: the events whose hooks
// cannot change what the agent does.
func (a *Agent) fireHooks(call hooks.Call) {
	a.cfg.Hooks.Fire(call, func(out hooks.Outcome) { a.showHooks(call.Event, out) })
}

// showHooks publishes what the hooks told the user as EvHook events and
// records it in the transcript.
func (a *Agent) showHooks(event string, out hooks.Outcome) {
	for _, n := range out.Notes {
		a.emit(Event{Type: EvHook, Text: n.Text, IsError: n.Error})
		a.event("hook", map[string]any{"event": event, "text": n.Text, "error": n.Error})
	}
}

// hookText frames what hooks said for the model, so it reads as a hook's
// words, not the user's or a tool's; "" when they said nothing.
func hookText(tag, event string, texts ...string) string {
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return fmt.Sprintf("<%s event=%q>\n%s\n</%s>", tag, event, strings.Join(kept, "\n"), tag)
}

// joinText joins the non-empty texts with a blank line.
func joinText(texts ...string) string {
	var kept []string
	for _, t := range texts {
		if t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// sessionStart fires SessionStart once, before the agent's first turn,
// and keeps what its hooks add for the model for the next user turn.
func (a *Agent) sessionStart(ctx context.Context) {
	if a.sessionStarted {
		return
	}
	a.sessionStarted = true
	source := "startup"
	if len(a.cfg.History) > 0 {
		source = "resume"
	}
	out := a.runHooks(ctx, hooks.Call{Event: hooks.SessionStart, Subject: source,
		Fields: map[string]any{"source": source, "model": a.cfg.Model}})
	a.startContext = hookText("hook_context", hooks.SessionStart, out.Context...)
}

// promptSubmit runs UserPromptSubmit for the user's text and returns what
// its hooks add for the model, or ErrPromptBlocked.
func (a *Agent) promptSubmit(ctx context.Context, text string) (string, error) {
	out := a.runHooks(ctx, hooks.Call{Event: hooks.UserPromptSubmit, Fields: map[string]any{"prompt": text}})
	// The reason is for the user, who reads the error on a terminal.
	switch {
	case out.Block:
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, termsafe.Strip(out.Reason))
	case out.Stop:
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, termsafe.Strip(cmp.Or(out.StopReason, "a hook stopped the agent")))
	}
	added := joinText(a.startContext, hookText("hook_context", hooks.UserPromptSubmit, out.Context...))
	a.startContext = ""
	return added, nil
}

// stopHook runs Stop (SubagentStop for an agent with a role) as the turn
// ends with answer. A hook that blocks the stop has its reason join the
// history as a notice, and stopHook returns true: the agent goes on.
// active says a Stop hook already made this turn go on.
func (a *Agent) stopHook(ctx context.Context, answer string, active bool) (bool, error) {
	event := a.cfg.Hooks.StopEvent()
	out := a.runHooks(ctx, hooks.Call{Event: event,
		Fields: map[string]any{"stop_hook_active": active, "last_assistant_message": answer}})
	if !out.Block || out.Stop {
		return false, nil
	}
	text := fmt.Sprintf("%s a %s hook does not let you stop yet: %s", NoticePrefix, event, out.Reason)
	if err := a.record(provider.Message{Role: "user", Content: text}); err != nil {
		return false, err
	}
	a.emit(Event{Type: EvNotice, Text: text})
	return true, nil
}

// toolCall is the hook call of event for the tool call tc; fields joins
// its tool_input and tool_use_id.
func (a *Agent) toolCall(event string, tc provider.ToolCall, fields map[string]any) hooks.Call {
	call := hooks.Call{Event: event, Subject: tc.Name, Tool: true, Fields: fields}
	if call.Fields == nil {
		call.Fields = map[string]any{}
	}
	call.Fields["tool_input"] = hooks.ToolInput(tc.Name, a.cfg.Workspace, tc.Arguments)
	call.Fields["tool_use_id"] = tc.ID
	return call
}

// preToolUse runs PreToolUse for tc.
func (a *Agent) preToolUse(ctx context.Context, tc provider.ToolCall) hooks.Outcome {
	if !a.cfg.Hooks.Has(hooks.Call{Event: hooks.PreToolUse, Subject: tc.Name, Tool: true}) {
		return hooks.Outcome{}
	}
	return a.runHooks(ctx, a.toolCall(hooks.PreToolUse, tc, nil))
}

// postToolUse runs PostToolUse for tc and its result, and returns the
// result with what the hooks said for the model after it.
func (a *Agent) postToolUse(ctx context.Context, tc provider.ToolCall, res tools.Result) (tools.Result, hooks.Outcome) {
	if !a.cfg.Hooks.Has(hooks.Call{Event: hooks.PostToolUse, Subject: tc.Name, Tool: true}) {
		return res, hooks.Outcome{}
	}
	out := a.runHooks(ctx, a.toolCall(hooks.PostToolUse, tc,
		map[string]any{"tool_response": hooks.ToolResponse(tc.Name, a.cfg.Workspace, tc.Arguments, res)}))
	var feedback string
	if out.Block {
		feedback = hookText("hook_feedback", hooks.PostToolUse, out.Reason)
	}
	res.Text = joinText(res.Text, feedback, hookText("hook_context", hooks.PostToolUse, out.Context...))
	return res, out
}

// stopByHook ends the turn a hook stopped: the calls after the one it
// stopped at are answered as not run, and the turn ends without an answer.
func (a *Agent) stopByHook(rest []provider.ToolCall, cause error) error {
	for _, tc := range rest {
		msg := provider.Message{Role: "tool", ToolCallID: tc.ID, Content: "not run: " + cause.Error()}
		if err := a.record(msg); err != nil {
			return err
		}
		a.emit(Event{Type: EvToolResult, Tool: tc.Name, CallID: tc.ID, Text: msg.Content, IsError: true})
	}
	a.emit(Event{Type: EvDone})
	return nil
}

// hookStop is the error that ends a turn after a hook said "continue":
// false.
func hookStop(out hooks.Outcome) error {
	return fmt.Errorf("%w: %s", errHookStopped, cmp.Or(out.StopReason, "no reason given"))
}

// waiting fires Notification and AgentWaiting: the agent waits for the
// user to approve tc, asked as permission.
func (a *Agent) waiting(permission string, tc provider.ToolCall) {
	msg := fmt.Sprintf("kws needs your permission to use %s (%s)", permission, a.cfg.Name)
	a.fireHooks(hooks.Call{Event: hooks.Notification, Subject: "permission_prompt",
		Fields: map[string]any{"message": msg, "title": "kws", "notification_type": "permission_prompt"}})
	a.fireHooks(a.toolCall(hooks.AgentWaiting, tc, map[string]any{"message": msg, "permission": permission}))
}

// precompact runs PreCompact before a compaction: trigger is "manual" or
// "auto".
func (a *Agent) precompact(ctx context.Context, trigger string) {
	a.runHooks(ctx, hooks.Call{Event: hooks.PreCompact, Subject: trigger,
		Fields: map[string]any{"trigger": trigger, "custom_instructions": ""}})
}

// blockStored fires VaultBlockStored for each block the agent stores for
// the first time.
func (a *Agent) blockStored(blocks []vault.Block, ids []string) {
	if a.cfg.Hooks == nil {
		return
	}
	for i, b := range blocks {
		call := hooks.Call{Event: hooks.VaultBlockStored, Subject: b.Meta.Kind}
		if !a.cfg.Hooks.Has(call) || !a.firstStore(ids[i]) {
			continue
		}
		call.Fields = map[string]any{"block_id": ids[i], "kind": b.Meta.Kind, "chars": len(b.Data),
			"tokens": b.Meta.Tokens, "sensitive": b.Meta.Sensitive}
		if !b.Meta.Sensitive {
			call.Fields["summary"] = b.Meta.Summary
		}
		a.fireHooks(call)
	}
}

// firstStore reports whether the agent stores the block id for the first
// time (the diet puts a block again at each rebuild).
func (a *Agent) firstStore(id string) bool {
	a.storedMu.Lock()
	defer a.storedMu.Unlock()
	if a.stored[id] {
		return false
	}
	if a.stored == nil {
		a.stored = map[string]bool{}
	}
	a.stored[id] = true
	return true
}

// hookedBoard is the swarm's board as the agent's todo tool uses it: a
// claim fires TaskClaimed.
type hookedBoard struct {
	tools.Board
	a *Agent
}

// Claim claims the task and fires TaskClaimed.
func (b hookedBoard) Claim(id string) (vault.Task, error) {
	t, err := b.Board.Claim(id)
	if err == nil {
		b.a.fireHooks(hooks.Call{Event: hooks.TaskClaimed, Fields: map[string]any{"task_id": t.ID, "title": t.Title,
			"detail": t.Detail, "owner": t.Owner, "created_by": t.CreatedBy}})
	}
	return t, err
}

// End stops the agent for good: its background jobs stop (their output
// kept first), the hooks fired before finish, then its SessionEnd hooks
// run, last (reason as Claude Code's: "clear" when a fresh agent replaces
// it, else "other"). Call it once, when the agent stops; it starts no job
// and fires no hook afterwards.
func (a *Agent) End(reason string) {
	a.env.Jobs.Close()
	a.cfg.Hooks.Close()
	a.runHooks(context.Background(), hooks.Call{Event: hooks.SessionEnd, Subject: reason, Fields: map[string]any{"reason": reason}})
}
