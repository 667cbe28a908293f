package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/vault"
)

// gitInit makes ws a git repository with one commit.
func gitInit(t *testing.T, ws string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "README.md"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-C", ws, "-c", "user.email=kws@example.com", "-c", "user.name=kws"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func TestWorkstationWorktreeIsolatesAnAgentAndShowsItsDiff(t *testing.T) {
	r := newWSRigWith(t, 160, 48, true, func(ws string, f *Flags) {
		gitInit(t, ws)
		f.Worktree = true
	})
	dir := filepath.Join(r.ws, ".kws", "worktrees", "agent-1")
	r.waitFor("agent-1 · idle · kws/agent-1")
	r.w.mu.Lock()
	wt := r.w.worktrees["agent-1"]
	r.w.mu.Unlock()
	if wt.dir != dir || wt.branch != "kws/agent-1" {
		t.Fatalf("agent-1's worktree is %+v, want %s on kws/agent-1", wt, dir)
	}
	head, err := exec.Command("git", "-C", dir, "symbolic-ref", "--short", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(head)) != "kws/agent-1" {
		t.Fatalf("the worktree is on %q (%v)", head, err)
	}

	r.srv.Push(
		providertest.ToolStep(provider.ToolCall{ID: "call-1", Name: "write_file", Arguments: `{"path":"isolated.txt","content":"hello\n"}`}),
		providertest.TextStep("wrote it"),
	)
	r.typeText("write isolated.txt")
	r.press("Enter")
	r.waitFor("y  allow once") // the dialog's keys are armed
	r.press("y")
	r.waitFor("wrote it")
	if _, err := os.Stat(filepath.Join(dir, "isolated.txt")); err != nil {
		t.Fatalf("the file is not in the worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "isolated.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file reached the main checkout: %v", err)
	}

	r.press("Ctrl-g")
	r.waitFor("untracked files:") // the diff block, open in the vault pane
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindVault {
		t.Fatal("the diff key did not open the vault pane")
	}
	var kept []vault.Meta
	_ = r.w.st.vault.List(func(m vault.Meta) error {
		if m.Kind == "worktree:diff" {
			kept = append(kept, m)
		}
		return nil
	})
	if len(kept) != 1 {
		t.Fatalf("%d worktree:diff blocks in the vault, want 1", len(kept))
	}
	data, err := r.w.st.vault.Get(kept[0].ID)
	if err != nil || !strings.Contains(string(data), "isolated.txt") {
		t.Fatalf("the diff block %q (%v) does not name the new file", data, err)
	}
}

func TestWorkstationDiffKeyWithoutWorktree(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.waitFor("agent-1 · idle")
	r.press("Ctrl-g")
	r.waitFor("no worktree (start kws with --worktree)")
}
