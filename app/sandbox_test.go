package app

import (
	"testing"

	"github.com/kwsdev/kws/sandbox"
)

// TestWorkstationStatusBarSaysUnsandboxed checks that the status bar
// marks a workstation whose shell commands cannot be confined, and only
// then.
func TestWorkstationStatusBarSaysUnsandboxed(t *testing.T) {
	if _, err := sandbox.Available(); err == nil {
		if r := newWSRig(t, 120, 30, false); r.w.status().Warning != "" {
			t.Fatalf("confined, yet the status bar warns %q", r.w.status().Warning)
		}
	}
	t.Setenv(sandbox.DisableEnv, "off")
	r := newWSRig(t, 120, 30, false)
	r.waitFor("⚠ unsandboxed")
}
