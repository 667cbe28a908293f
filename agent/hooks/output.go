package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/termsafe"
)

// Outcome is what the hooks of one call decided, merged.
type Outcome struct {
	// Block says a hook blocked what the event is about (exit code 2,
	// "decision": "block", or PreToolUse's "permissionDecision": "deny"):
	// the tool call, the prompt, the agent's stopping. For PostToolUse,
	// whose call already ran, it means Reason is feedback for the model.
	Block bool
	// Reason says why: the stderr of exit code 2, or the JSON's reason. It
	// is for the model (PreToolUse, PostToolUse, Stop, SubagentStop) or
	// the user (UserPromptSubmit).
	Reason string
	// Permission is PreToolUse's permissionDecision short of a denial:
	// "allow" (skip the permission check; only the user's own hooks may)
	// or "ask" (ask the user even where the policy allows); "" leaves the
	// decision to the policy. PermissionReason is for the user.
	Permission, PermissionReason string
	// Context is text for the model: additionalContext, and the plain
	// stdout of UserPromptSubmit and SessionStart hooks.
	Context []string
	// Stop says a hook asked kws to stop ("continue": false): the turn
	// ends; StopReason is for the user.
	Stop       bool
	StopReason string
	// Notes are what the user is shown: a hook's output, its system
	// message, and every way it failed. Their text is safe for a terminal
	// and holds no secret kws recognizes.
	Notes []Note
}

// Note is one line for the user about the hooks.
type Note struct {
	Text string
	// Error marks a hook that failed, timed out or did not run.
	Error bool
}

// modelCap bounds the text of one hook that reaches the model, as Claude
// Code bounds it.
const modelCap = 10000

// hookOutput is the JSON object a hook may print on stdout.
type hookOutput struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// canBlock reports whether exit code 2 and "decision": "block" act on
// event; for the others they are shown to the user only.
func canBlock(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop:
		return true
	}
	return false
}

// givesContext reports whether a hook's plain stdout is context for the
// model rather than a note for the user.
func givesContext(event string) bool { return event == UserPromptSubmit || event == SessionStart }

// add merges one command's result into o.
func (o *Outcome) add(event string, res result) {
	label := fmt.Sprintf("%s hook %s", event, shown(res.cmd.Command))
	switch {
	case res.cancelled:
	case res.err != nil:
		o.note(true, "%s could not run: %v", label, res.err)
	case res.timedOut:
		o.note(true, "%s did not finish within %s and was stopped; the agent goes on", label, res.cmd.TimeoutOrDefault())
	case res.exit == 2:
		o.exit2(event, label, strings.TrimSpace(res.stderr))
	case res.exit != 0:
		o.note(true, "%s failed (exit %d)%s", label, res.exit, colon(res.stderr))
	default:
		o.exit0(event, label, res)
	}
}

// exit2 is a hook's blocking answer.
func (o *Outcome) exit2(event, label, stderr string) {
	if !canBlock(event) {
		o.note(true, "%s exited 2%s", label, colon(stderr))
		return
	}
	if stderr == "" {
		stderr = "a hook blocked it (exit code 2) without saying why"
	}
	o.block(stderr)
	o.note(false, "%s blocked it: %s", label, stderr)
}

// exit0 reads a successful hook's stdout: a JSON object, or plain text.
func (o *Outcome) exit0(event, label string, res result) {
	text := strings.TrimSpace(res.stdout)
	var out hookOutput
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &out) == nil {
		o.apply(event, label, out, res.cmd.workspace)
		return
	}
	switch {
	case text == "":
	case givesContext(event):
		o.Context = append(o.Context, capModel(text))
	default:
		o.note(false, "%s: %s", label, text)
	}
}

// apply merges a hook's JSON answer.
func (o *Outcome) apply(event, label string, out hookOutput, workspace bool) {
	if out.Continue != nil && !*out.Continue {
		o.Stop = true
		o.StopReason = joinLines(o.StopReason, out.StopReason)
		o.note(false, "%s stopped the agent%s", label, colon(out.StopReason))
	}
	if out.SystemMessage != "" {
		o.note(false, "%s: %s", label, out.SystemMessage)
	}
	if c := strings.TrimSpace(out.Specific.AdditionalContext); c != "" {
		o.Context = append(o.Context, capModel(c))
	}
	if event == PreToolUse {
		o.permission(label, out, workspace)
		return
	}
	if out.Decision == "block" && canBlock(event) {
		reason := out.Reason
		if reason == "" {
			reason = "a hook blocked it without saying why"
		}
		o.block(reason)
		o.note(false, "%s blocked it: %s", label, reason)
	}
}

// permission merges PreToolUse's decision: deny wins over ask, ask over
// allow. Claude Code's older "decision" ("approve", "block") counts as
// allow and deny. A workspace's hook may not allow a call without asking,
// as a workspace's config may not.
func (o *Outcome) permission(label string, out hookOutput, workspace bool) {
	decision, reason := out.Specific.PermissionDecision, out.Specific.PermissionDecisionReason
	switch {
	case decision == "" && out.Decision == "approve":
		decision, reason = "allow", out.Reason
	case decision == "" && out.Decision == "block":
		decision, reason = "deny", out.Reason
	}
	switch decision {
	case "deny":
		if reason == "" {
			reason = "a PreToolUse hook denied it without saying why"
		}
		o.block(reason)
		o.note(false, "%s denied it: %s", label, reason)
	case "ask":
		if o.Permission != "ask" {
			o.Permission, o.PermissionReason = "ask", reason
		}
	case "allow":
		if workspace {
			o.note(true, "%s allowed the call, which only your own hooks may do; the permission policy decides", label)
		} else if o.Permission == "" {
			o.Permission, o.PermissionReason = "allow", reason
		}
	}
}

// block records a blocking answer and its reason for the model or user.
func (o *Outcome) block(reason string) {
	o.Block = true
	o.Reason = joinLines(o.Reason, capModel(reason))
}

// note adds a note for the user, made safe for a terminal and free of the
// secrets kws recognizes.
func (o *Outcome) note(isErr bool, format string, args ...any) {
	text := strings.TrimSpace(termsafe.Strip(secrets.Redact(fmt.Sprintf(format, args...))))
	if r := []rune(text); len(r) > noteCap {
		text = string(r[:noteCap]) + "…"
	}
	o.Notes = append(o.Notes, Note{Text: text, Error: isErr})
}

// noteCap bounds a note's length in characters.
const noteCap = 2000

// shown names a hook command in a note: its first characters, on one line.
func shown(command string) string {
	c := termsafe.OneLine(secrets.Redact(strings.TrimSpace(command)))
	if r := []rune(c); len(r) > 60 {
		c = string(r[:60]) + "…"
	}
	return "`" + c + "`"
}

// colon is ": text" for a non-empty text, else "".
func colon(text string) string {
	if text = strings.TrimSpace(text); text == "" {
		return ""
	}
	return ": " + text
}

// capModel cuts text bound for the model at modelCap characters, saying so.
func capModel(text string) string {
	if r := []rune(text); len(r) > modelCap {
		return string(r[:modelCap]) + fmt.Sprintf("\n[kws: the hook's output was cut at %d characters]", modelCap)
	}
	return text
}

// joinLines joins two texts with a newline, either may be empty.
func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
