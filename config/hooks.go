package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Hooks is the [hooks] table in Claude Code's settings shape: for each
// event, the matchers whose commands run when it fires.
//
//	[[hooks.PreToolUse]]
//	matcher = "shell"
//	[[hooks.PreToolUse.hooks]]
//	type = "command"
//	command = "~/.claude/hooks/check.sh"
//	timeout = 30
type Hooks map[string][]HookMatcher

// HookMatcher is one [[hooks.EVENT]] entry: the commands to run when the
// event's subject matches.
type HookMatcher struct {
	// Matcher is a regular expression the whole subject must match (a
	// tool's name for the tool events); "" or "*" matches everything.
	Matcher string `toml:"matcher" json:"matcher,omitempty"`
	// Hooks are the commands to run.
	Hooks []HookCommand `toml:"hooks" json:"hooks"`
	// Workspace is set when the entry comes from a workspace's
	// .kws/config.toml: its commands run only once the user has approved
	// the workspace's hooks.
	Workspace bool `toml:"-" json:"workspace,omitempty"`
}

// HookCommand is one [[hooks.EVENT.hooks]] entry.
type HookCommand struct {
	// Type is "command", the only type kws runs.
	Type string `toml:"type" json:"type"`
	// Command is the bash command line to run.
	Command string `toml:"command" json:"command"`
	// Timeout is how long the command may run, in seconds; 0 means
	// DefaultHookTimeout.
	Timeout int `toml:"timeout" json:"timeout,omitempty"`
}

// DefaultHookTimeout bounds a hook command that sets no timeout, as in
// Claude Code.
const DefaultHookTimeout = 60 * time.Second

// HookEvents are the events kws fires hooks for (package agent/hooks
// fires them): Claude Code's, then kws's own.
var HookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification",
	"Stop", "SubagentStop", "PreCompact", "SessionEnd", "VaultBlockStored", "TaskClaimed", "AgentWaiting"}

// TimeoutOrDefault is the command's timeout, or DefaultHookTimeout.
func (h HookCommand) TimeoutOrDefault() time.Duration {
	if h.Timeout > 0 {
		return time.Duration(h.Timeout) * time.Second
	}
	return DefaultHookTimeout
}

// MatchAll reports whether the matcher matches every subject.
func (m HookMatcher) MatchAll() bool {
	s := strings.TrimSpace(m.Matcher)
	return s == "" || s == "*"
}

// Regexp is the matcher as a regular expression the whole subject must
// match; nil when it matches everything.
func (m HookMatcher) Regexp() (*regexp.Regexp, error) {
	if m.MatchAll() {
		return nil, nil
	}
	return regexp.Compile("^(?:" + strings.TrimSpace(m.Matcher) + ")$")
}

// mergeHooks layers a file's hooks after c's: every file's hooks run, as
// Claude Code runs those of each settings file. An event kws does not fire
// and a hook of a type other than "command" (a Claude Code prompt or HTTP
// hook) are ignored with a warning, so settings copied from a newer Claude
// Code still load; a hook kws cannot run as written is refused.
func (c *Config) mergeHooks(path string, f Hooks, user bool) error {
	var ignored []string
	for _, event := range slices.Sorted(maps.Keys(f)) {
		if !slices.Contains(HookEvents, event) {
			ignored = append(ignored, fmt.Sprintf("hooks.%q (kws fires %s)", event, strings.Join(HookEvents, ", ")))
			continue
		}
		for i, m := range f[event] {
			kept, skipped, err := checkHookMatcher(event, i, m)
			if err != nil {
				return fmt.Errorf("config: %s: %w", path, err)
			}
			ignored = append(ignored, skipped...)
			if len(kept.Hooks) == 0 {
				continue
			}
			kept.Workspace = !user
			if c.Hooks == nil {
				c.Hooks = Hooks{}
			}
			c.Hooks[event] = append(c.Hooks[event], kept)
		}
	}
	if len(ignored) > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config: %s: ignored %s", path, strings.Join(ignored, ", ")))
	}
	return nil
}

// checkHookMatcher returns m without the hooks kws does not run (with
// why, for a warning), or an error for one it cannot run as written.
func checkHookMatcher(event string, i int, m HookMatcher) (HookMatcher, []string, error) {
	at := fmt.Sprintf("[[hooks.%s]] #%d", event, i+1)
	if _, err := m.Regexp(); err != nil {
		return m, nil, fmt.Errorf("%s: matcher = %q is not a regular expression kws reads: %v", at, m.Matcher, err)
	}
	var ignored []string
	kept := m
	kept.Hooks = nil
	for j, h := range m.Hooks {
		switch {
		case h.Type != "command":
			ignored = append(ignored, fmt.Sprintf("%s hook #%d of type %q (kws runs type = \"command\")", at, j+1, h.Type))
		case strings.TrimSpace(h.Command) == "":
			return m, nil, fmt.Errorf("%s hook #%d: command is empty", at, j+1)
		case h.Timeout < 0:
			return m, nil, fmt.Errorf("%s hook #%d: timeout = %d: want seconds, or 0 for %s", at, j+1, h.Timeout, DefaultHookTimeout)
		default:
			kept.Hooks = append(kept.Hooks, h)
		}
	}
	return kept, ignored, nil
}

// Workspace returns the hooks a workspace's .kws/config.toml added, which
// run only once the user approves them.
func (h Hooks) Workspace() Hooks {
	var out Hooks
	for _, event := range slices.Sorted(maps.Keys(h)) {
		for _, m := range h[event] {
			if m.Workspace {
				if out == nil {
					out = Hooks{}
				}
				out[event] = append(out[event], m)
			}
		}
	}
	return out
}
