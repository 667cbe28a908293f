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
// (AllowOnce, AllowSession, Deny).
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
	// call of the same tool in the session.
	AllowSession
)

var decisionNames = map[Decision]string{
	Ask: "ask", Allow: "allow", Deny: "deny", AllowOnce: "allow_once", AllowSession: "allow_session",
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
// Tools get the default for their access: ReadOnly tools Allow, Writes
// and Executes tools Ask. A Policy is read concurrently by Decide but must
// not be changed while in use.
type Policy struct {
	// Tools maps a tool name to Ask, Allow or Deny.
	Tools map[string]Decision
	// ShellAllow lists command prefixes that run without asking when the
	// tool would otherwise Ask; see ShellAllowed.
	ShellAllow []string
}

// DefaultPolicy returns the policy with every tool at its default and no
// shell prefixes allowed.
func DefaultPolicy() *Policy {
	return &Policy{Tools: map[string]Decision{}}
}

// Apply sets the per-tool decisions named in perms ("ask", "allow" or
// "deny" by tool name) and appends shellAllow to the allowed prefixes.
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
// command line) passes ShellAllowed. A nil Policy decides by defaults.
func (p *Policy) Decide(tool string, access tools.Access, preview string) Decision {
	d, ok := Decision(0), false
	if p != nil {
		d, ok = p.Tools[tool]
	}
	if !ok {
		d = defaultFor(access)
	}
	switch d {
	case AllowOnce, AllowSession:
		d = Allow
	case Allow, Deny:
	default:
		d = Ask
	}
	if d == Ask && access == tools.Executes && p != nil && ShellAllowed(p.ShellAllow, preview) {
		return Allow
	}
	return d
}

// defaultFor is the decision for a tool nobody configured.
func defaultFor(access tools.Access) Decision {
	if access == tools.ReadOnly {
		return Allow
	}
	return Ask
}

// shellMeta are the characters and sequences that let one command line
// run more than one command or redirect files; a line containing any of
// them is never allowed by prefix.
var shellMeta = []string{";", "&", "|", "`", "$(", ">", "<", "\n", "\r"}

// ShellAllowed reports whether command starts with one of prefixes at a
// word boundary (compared word by word, so "git status" allows
// "git status --short" but not "git statusx"), contains none of ";",
// "&&", "||", "|", "&", backticks, "$(", ">", "<" or a line break, and
// passes none of the riskyOptions that make a read-only command write
// files or run programs. A prefix otherwise allows any arguments.
func ShellAllowed(prefixes []string, command string) bool {
	for _, m := range shellMeta {
		if strings.Contains(command, m) {
			return false
		}
	}
	words := strings.Fields(command)
	for _, p := range prefixes {
		pw := strings.Fields(p)
		if len(pw) == 0 || len(pw) > len(words) {
			continue
		}
		match := true
		for i := range pw {
			if pw[i] != words[i] {
				match = false
				break
			}
		}
		if match {
			return !hasRiskyOption(words[len(pw):])
		}
	}
	return false
}

// riskyOptions make an otherwise harmless command write files, run other
// programs or change its configuration (git diff --output=~/.bashrc, find
// -exec, rg --pre, go test -exec, git -c core.pager=…). A command with one
// of them is never allowed by prefix; it asks.
var riskyOptions = []string{
	"-o", "--output", "--output-directory", "-exec", "-execdir", "-ok", "-okdir", "-delete",
	"-fprint", "-fprintf", "-fls", "--exec", "--pre", "--upload-pack", "--receive-pack",
	"-c", "--config", "--git-dir", "--work-tree", "--ext-diff", "--textconv", "-toolexec",
	"--open-files-in-pager", "-O", "--to-file", "--install", "-e", "--eval",
}

// hasRiskyOption reports whether any argument is a risky option, alone,
// with =value, or -o with its file glued on (-ofile).
func hasRiskyOption(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "-ok") && len(a) > 2 && !strings.Contains(a, "=") {
			return true
		}
		for _, r := range riskyOptions {
			if a == r || strings.HasPrefix(a, r+"=") {
				return true
			}
		}
	}
	return false
}
