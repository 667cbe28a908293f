// Package permission decides which tool calls run without asking, asks a
// front end about the others, and remembers what the user allowed for the
// session. A Policy answers Allow, Deny or Ask from configuration alone; a
// Broker carries the Ask to whoever can answer; Check combines the two for
// the agent loop.
package permission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kwsdev/kws/agent/tools"
)

// Decision is a policy verdict (Ask, Allow, Deny) or a user's answer
// (AllowOnce, AllowSession, AllowAll, Deny).
type Decision int

const (
	// Ask means the user must approve the call.
	Ask Decision = iota
	// Allow means the call runs without asking.
	Allow
	// Deny means the call does not run.
	Deny
	// AllowOnce is a user's answer allowing this one call.
	AllowOnce
	// AllowSession is a user's answer allowing this call and every later
	// call of the same tool by the same agent in its session.
	AllowSession
	// AllowAll is a user's answer allowing this call and every later call
	// of the same tool by every agent, those spawned later included.
	AllowAll
)

var decisionNames = map[Decision]string{
	Ask: "ask", Allow: "allow", Deny: "deny", AllowOnce: "allow_once", AllowSession: "allow_session",
	AllowAll: "allow_all",
}

// String returns the decision's configuration name: ask, allow, deny,
// allow_once or allow_session.
func (d Decision) String() string {
	if s, ok := decisionNames[d]; ok {
		return s
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// MarshalText encodes the decision as its name.
func (d Decision) MarshalText() ([]byte, error) {
	if _, ok := decisionNames[d]; !ok {
		return nil, fmt.Errorf("permission: invalid decision %d", int(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText decodes a decision name, as ParseDecision does.
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDecision parses a decision name (case-insensitive; "allow-once" and
// "allow_once" are the same).
func ParseDecision(s string) (Decision, error) {
	norm := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	for d, name := range decisionNames {
		if name == norm {
			return d, nil
		}
	}
	return Ask, fmt.Errorf("permission: unknown decision %q (want ask, allow or deny)", s)
}

// Policy is the configured permission of each tool. Tools not listed in
// Tools get the default for their access: ReadOnly tools Allow; Writes,
// Executes and Network tools Ask. A Policy is read concurrently by Decide
// but must not be changed while in use.
type Policy struct {
	// Tools maps a tool name to Ask, Allow or Deny.
	Tools map[string]Decision
	// Prefixes maps a tool name prefix (such as an MCP server's
	// "mcp__github__") to the decision of the tools Tools does not name;
	// the longest matching prefix wins. Apply fills it from names ending
	// in "*".
	Prefixes map[string]Decision
	// ShellAllow lists command prefixes that run without asking when the
	// tool would otherwise Ask; see ShellCheck.
	ShellAllow []string
	// Workspace is the directory the agent's commands run in; an allowed
	// command may name no path outside it.
	Workspace string
	// Unsandboxed is set when shell commands cannot run in a sandbox:
	// then no prefix allows a command and every one asks.
	Unsandboxed bool
}

// DefaultPolicy returns the policy with every tool at its default and no
// shell prefixes allowed.
func DefaultPolicy() *Policy {
	return &Policy{Tools: map[string]Decision{}}
}

// Apply sets the per-tool decisions named in perms ("ask", "allow" or
// "deny" by tool name, or by a name prefix ending in "*", such as
// "mcp__github__*") and appends shellAllow to the allowed prefixes.
// Invalid entries are skipped and reported together in the error; the
// valid ones are applied regardless.
func (p *Policy) Apply(perms map[string]string, shellAllow []string) error {
	if p.Tools == nil {
		p.Tools = map[string]Decision{}
	}
	var bad []string
	for tool, name := range perms {
		d, err := ParseDecision(name)
		if err != nil || (d != Ask && d != Allow && d != Deny) {
			bad = append(bad, fmt.Sprintf("%s = %q", tool, name))
			continue
		}
		if prefix, ok := strings.CutSuffix(tool, "*"); ok {
			if p.Prefixes == nil {
				p.Prefixes = map[string]Decision{}
			}
			p.Prefixes[prefix] = d
			continue
		}
		p.Tools[tool] = d
	}
	for _, s := range shellAllow {
		if s = strings.TrimSpace(s); s != "" {
			p.ShellAllow = append(p.ShellAllow, s)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("permission: invalid permissions (want ask, allow or deny): %s", strings.Join(bad, ", "))
	}
	return nil
}

// Decide returns Allow, Deny or Ask for a call of tool with the given
// access. A tool's configured decision wins over the default for its
// access; an Executes call that would Ask is allowed when its preview (the
// command line) passes ShellCheck, unless the policy is Unsandboxed. A nil
// Policy decides by defaults.
func (p *Policy) Decide(tool string, access tools.Access, preview string) Decision {
	d, ok := Decision(0), false
	if p != nil {
		d, ok = p.Tools[tool]
		if !ok {
			d, ok = p.prefixDecision(tool)
		}
	}
	if !ok {
		d = defaultFor(access)
	}
	switch d {
	case AllowOnce, AllowSession, AllowAll:
		d = Allow
	case Allow, Deny:
	default:
		d = Ask
	}
	if d == Ask && tool == "shell" && access == tools.Executes && p != nil && !p.Unsandboxed && len(p.ShellAllow) > 0 &&
		ShellCheck(p.ShellAllow, p.Workspace, preview) == nil {
		return Allow
	}
	return d
}

// prefixDecision is the decision of the longest prefix of tool in
// Prefixes.
func (p *Policy) prefixDecision(tool string) (Decision, bool) {
	best, d, ok := -1, Decision(0), false
	for prefix, pd := range p.Prefixes {
		if strings.HasPrefix(tool, prefix) && len(prefix) > best {
			best, d, ok = len(prefix), pd, true
		}
	}
	return d, ok
}

// defaultFor is the decision for a tool nobody configured.
func defaultFor(access tools.Access) Decision {
	if access == tools.ReadOnly {
		return Allow
	}
	return Ask
}
