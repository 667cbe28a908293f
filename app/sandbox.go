package app

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sandbox"
)

// Sandbox is how the agents' shell commands run: confined by Policy, or,
// when Policy is nil, unconfined for the reason in Err.
type Sandbox struct {
	// Policy confines the commands; nil means they run unconfined.
	Policy *sandbox.Policy
	// Status describes the confinement this machine offers.
	Status string
	// Err says why commands run unconfined.
	Err error
	// Hidden are kws's data dir and the kws directory of the user's
	// config home (which can hold api_key): shell commands cannot read
	// them (Policy.Hidden) and the file tools refuse them, confined or not.
	Hidden []string
}

// OpenSandbox checks whether shell commands can be confined on this
// machine and builds the policy: kws's data dir and the kws directory of
// configHome (which can hold api_key) are hidden, the network is not
// granted (a command asks for it, and the user approves), and limits,
// from the user's [sandbox] table, bound each command.
func OpenSandbox(dataDir, configHome string, limits config.Sandbox) Sandbox {
	hidden := []string{dataDir, filepath.Join(configHome, "kws")}
	status, err := sandbox.Available()
	if err != nil {
		return Sandbox{Err: err, Hidden: hidden}
	}
	return Sandbox{Status: status, Hidden: hidden, Policy: &sandbox.Policy{
		Hidden: hidden,
		Limits: sandbox.Limits{
			Processes: limit(limits.Processes, sandbox.DefaultLimits.Processes),
			FileMB:    limit(limits.FileMB, sandbox.DefaultLimits.FileMB),
			MemoryMB:  limit(limits.MemoryMB, sandbox.DefaultLimits.MemoryMB),
		},
	}}
}

// limit is a configured limit: 0 keeps def, -1 (no limit) becomes 0.
func limit(configured, def int) int {
	switch {
	case configured == 0:
		return def
	case configured < 0:
		return 0
	}
	return configured
}

// Warning is the one line saying that shell commands run unconfined, or
// "" when they are confined. policy and autoAllow say whether they still
// run without asking (--yes, or shell = "allow").
func (s Sandbox) Warning(policy *permission.Policy, autoAllow bool) string {
	if s.Policy != nil {
		return ""
	}
	if autoAllow || policy.Decide("shell", tools.Executes, "") == permission.Allow {
		return fmt.Sprintf("sandbox unavailable (%v): shell commands run unconfined", s.Err)
	}
	return fmt.Sprintf("sandbox unavailable (%v): every shell command asks for approval", s.Err)
}

// forWorktree is the policy for an agent working in dir. When dir is a
// linked worktree of the repository at ws, git also writes the
// repository's objects, refs and logs and the worktree's own admin dir;
// the rest of the repository's git dir (config, hooks) stays read-only,
// so a command cannot plant what the user's own git would run. The git
// dir is asked of ws, which kws trusts, not of the worktree's .git file,
// which the agent can rewrite.
func (s Sandbox) forWorktree(ws, dir string) *sandbox.Policy {
	if s.Policy == nil || dir == ws {
		return s.Policy
	}
	out, err := exec.Command("git", "-C", ws, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return s.Policy
	}
	common := strings.TrimSpace(string(out))
	p := *s.Policy
	p.Writable = append(slices.Clone(p.Writable), filepath.Join(common, "objects"), filepath.Join(common, "refs"),
		filepath.Join(common, "logs"), filepath.Join(common, "worktrees", filepath.Base(dir)))
	return &p
}
