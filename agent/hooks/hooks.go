// Package hooks runs the user's lifecycle hooks, compatible with Claude
// Code's hook contract so that the scripts users already have work in kws
// unchanged: when an event fires, every command whose matcher matches gets
// the event as one JSON object on stdin (session_id, transcript_path, cwd,
// hook_event_name and the event's own fields), and answers with its exit
// code (0 ok, 2 block, anything else a non-blocking error), its stderr and,
// optionally, a JSON object on stdout (continue, stopReason, decision,
// reason, systemMessage, hookSpecificOutput). Commands run in the agent's
// sandbox, in its workspace, each bounded by its timeout; a workspace's
// hooks run only once the user has approved them (approval.go). A hook
// that fails, hangs or prints garbage is reported, never fatal: the
// Outcome's notes say what went wrong and the turn goes on.
package hooks

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/trust"
	"github.com/kwsdev/kws/sandbox"
)

// The events kws fires: Claude Code's, then kws's own (config.HookEvents
// lists them all).
const (
	// SessionStart fires before an agent's first turn; source is
	// "startup", or "resume" for a resumed transcript. Its output is
	// context for the model.
	SessionStart = "SessionStart"
	// UserPromptSubmit fires when a user turn is submitted, before the
	// model sees it; it may block the turn or add context.
	UserPromptSubmit = "UserPromptSubmit"
	// PreToolUse fires before a tool call, before its permission check;
	// it may block the call, allow it or make it ask.
	PreToolUse = "PreToolUse"
	// PostToolUse fires after a tool call with its result; it may give
	// the model feedback or context.
	PostToolUse = "PostToolUse"
	// Notification fires when an agent needs the user: a tool call waits
	// for approval.
	Notification = "Notification"
	// Stop fires when an agent without a role ends its turn with an
	// answer; it may make the agent go on.
	Stop = "Stop"
	// SubagentStop is Stop for an agent with a role (a swarm teammate).
	SubagentStop = "SubagentStop"
	// PreCompact fires before a compaction; trigger is "manual" or
	// "auto".
	PreCompact = "PreCompact"
	// SessionEnd fires when an agent stops.
	SessionEnd = "SessionEnd"
	// VaultBlockStored fires when an agent stores a block in the vault
	// for the first time (its diet externalizing a message, a tool's
	// output kept whole).
	VaultBlockStored = "VaultBlockStored"
	// TaskClaimed fires when an agent claims a task on the swarm's board.
	TaskClaimed = "TaskClaimed"
	// AgentWaiting fires when an agent starts waiting for the user to
	// approve a tool call.
	AgentWaiting = "AgentWaiting"
)

// Options configure a Runner for one agent.
type Options struct {
	// Hooks are the configured hooks, the user's and the workspace's.
	Hooks config.Hooks
	// Dir is where hooks run and what CLAUDE_PROJECT_DIR names: the
	// agent's workspace, or its worktree.
	Dir string
	// Workspace is the project the workspace's hooks come from: the key
	// of their approval in Trust.
	Workspace string
	// Trust holds the user's approvals; nil runs no workspace hook.
	Trust *trust.Record
	// SessionID, TranscriptPath and Agent say whose event it is.
	SessionID, TranscriptPath, Agent string
	// Role is the agent's role in the swarm, or "": an agent with one is
	// a subagent to hooks (SubagentStop, and agent_type in every event).
	Role string
	// Sandbox confines the commands as the agent's shell commands are;
	// nil runs them unconfined (where the shell's are too).
	Sandbox *sandbox.Policy
	// Network gives them the host's network: the user's own config lets
	// shell commands have it without asking.
	Network bool
	// HideEnv names variables the commands must not see (the API key's).
	HideEnv []string
}

// Runner fires one agent's hooks. A nil Runner fires nothing. It is safe
// for concurrent use.
type Runner struct {
	opts   Options
	groups map[string][]group
	// told is set once the agent was told that the workspace's hooks do
	// not run, until they run again.
	told atomic.Bool

	mu     sync.Mutex
	queue  chan fired
	closed bool
	worker sync.WaitGroup
}

// group is one configured matcher, compiled.
type group struct {
	config.HookMatcher
	re *regexp.Regexp
}

// fired is an event Fire queued.
type fired struct {
	call Call
	done func(Outcome)
}

// queueSize bounds the events Fire holds while earlier ones run.
const queueSize = 64

// New returns the runner of opts.Hooks, or nil when there are none.
// config.Load checked the matchers, so one that does not compile is
// skipped here.
func New(opts Options) *Runner {
	groups := map[string][]group{}
	for event, ms := range opts.Hooks {
		for _, m := range ms {
			re, err := m.Regexp()
			if err != nil || len(m.Hooks) == 0 {
				continue
			}
			groups[event] = append(groups[event], group{HookMatcher: m, re: re})
		}
	}
	if len(groups) == 0 {
		return nil
	}
	return &Runner{opts: opts, groups: groups}
}

// StopEvent is the event an ended turn fires: SubagentStop for an agent
// with a role, else Stop.
func (r *Runner) StopEvent() string {
	if r != nil && r.opts.Role != "" {
		return SubagentStop
	}
	return Stop
}

// Call is one firing of an event.
type Call struct {
	// Event is the event's name.
	Event string
	// Subject is what matchers test: the tool's name for the tool events
	// and AgentWaiting, the source, trigger or reason of the session and
	// compaction events, a block's kind; "" for events without one.
	Subject string
	// Tool says Subject is a kws tool name: a matcher may name the tool
	// by its Claude Code name (Bash for shell), and such a hook reads that
	// name in tool_name.
	Tool bool
	// Fields are the event's own fields of the JSON a hook reads.
	Fields map[string]any
}

// Has reports whether any hook would run for call.
func (r *Runner) Has(call Call) bool {
	if r == nil {
		return false
	}
	for _, g := range r.groups[call.Event] {
		if _, ok := g.match(call); ok {
			return true
		}
	}
	return false
}

// Run runs the hooks call matches, at once and together, and returns what
// they decided; it returns when the last has ended or been killed.
func (r *Runner) Run(ctx context.Context, call Call) Outcome {
	if r == nil {
		return Outcome{}
	}
	var cmds []command
	var refused Outcome
	why, checked := "", false
	for _, g := range r.groups[call.Event] {
		name, ok := g.match(call)
		if !ok {
			continue
		}
		if g.Workspace {
			if !checked {
				why, checked = r.unapproved(), true
			}
			if why != "" {
				if !r.told.Swap(true) {
					refused.note(true, "%s", why)
				}
				continue
			}
		}
		for _, h := range g.Hooks {
			cmds = append(cmds, command{HookCommand: h, toolName: name, workspace: g.Workspace})
		}
	}
	out := r.runAll(ctx, call, cmds)
	out.Notes = append(refused.Notes, out.Notes...)
	return out
}

// match reports whether g matches call, and the tool name its hooks read:
// the kws name, or the Claude Code name the matcher used.
func (g group) match(call Call) (toolName string, ok bool) {
	if !call.Tool {
		// An event without a subject ignores matchers, as Claude Code's
		// UserPromptSubmit and Stop do.
		return "", g.re == nil || call.Subject == "" || g.re.MatchString(call.Subject)
	}
	if g.re == nil || g.re.MatchString(call.Subject) {
		return call.Subject, true
	}
	for _, alias := range claudeNames(call.Subject) {
		if g.re.MatchString(alias) {
			return alias, true
		}
	}
	return "", false
}

// unapproved says why the workspace's hooks may not run now, or "" when
// the user approved them as they are.
func (r *Runner) unapproved() string {
	ok, changed, err := Approved(r.opts.Trust, r.opts.Workspace, r.opts.Dir, r.opts.Hooks)
	switch {
	case err != nil:
		return fmt.Sprintf("the workspace's hooks did not run: reading their approval: %v", err)
	case ok:
		r.told.Store(false)
		return ""
	case changed:
		return fmt.Sprintf("the workspace's hooks (.kws/config.toml) did not run: they changed since you approved them (a command, or a script they run in the workspace); run kws hooks trust in %s to approve them again", r.opts.Workspace)
	}
	return fmt.Sprintf("the workspace's hooks (.kws/config.toml) did not run: they run code, and you have not approved them for this workspace; run kws hooks trust in %s to approve them", r.opts.Workspace)
}

// Fire runs call's hooks in the background, one event after another in
// the order fired, and hands done their outcome on the runner's goroutine:
// for the events that cannot change what the agent does. An event fired
// while too many wait is dropped, and done hears so at once.
func (r *Runner) Fire(call Call, done func(Outcome)) {
	if !r.Has(call) {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	if r.queue == nil {
		r.queue = make(chan fired, queueSize)
		r.worker.Add(1)
		go r.work()
	}
	queued := true
	select {
	case r.queue <- fired{call: call, done: done}:
	default:
		queued = false
	}
	r.mu.Unlock()
	if !queued {
		done(Outcome{Notes: []Note{{Text: fmt.Sprintf("a %s hook was skipped: %d earlier events still wait for their hooks", call.Event, queueSize), Error: true}}})
	}
}

// work runs the queued events until Close.
func (r *Runner) work() {
	defer r.worker.Done()
	for f := range r.queue {
		f.done(r.Run(context.Background(), f.call))
	}
}

// Close waits for the events fired so far to run; later ones are dropped.
func (r *Runner) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		if r.queue != nil {
			close(r.queue)
		}
	}
	r.mu.Unlock()
	r.worker.Wait()
}
