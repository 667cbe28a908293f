package panes

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
)

func TestShellPersistsItsDirectoryAndRestartsThere(t *testing.T) {
	workspace, project := t.TempDir(), t.TempDir()
	gone := filepath.Join(t.TempDir(), "gone")
	h := newShellHarness(t)
	h.run(t, "cd "+project+" && echo moved", "moved")
	want := map[string]string{pane.StateDir: project}
	if got := h.p.PersistState(); !reflect.DeepEqual(got, want) {
		t.Fatalf("PersistState = %v, want %v", got, want)
	}
	// After the shell exits, the pane keeps the directory it read last.
	h.typeKeys("exit")
	h.press(tcell.KeyEnter, 0, tcell.ModNone)
	<-h.p.sess.Done()
	for _, tc := range []struct {
		name string
		spec pane.Spec
		dir  string
		// first is how the screen starts: the prompt, or the notice.
		first string
	}{
		{"new pane", pane.Spec{Kind: pane.KindShell}, workspace, "$"},
		{"saved dir", pane.Spec{Kind: pane.KindShell, State: h.p.PersistState()}, project,
			"[kws restarted this shell; the old screen is gone][in " + project + "]"},
		{"saved dir is gone", pane.Spec{Kind: pane.KindShell, State: map[string]string{pane.StateDir: gone}}, workspace,
			"[kws restarted this shell; the old screen is gone][in " + workspace + ": " + gone + " is gone]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newShellHarnessWith(t, func(o pty.Options) pty.Options {
				o.Dir = workspace
				return ShellOptions(o, tc.spec)
			})
			// The notice may wrap: the screen is 80 columns wide.
			screen := strings.ReplaceAll(r.p.sess.Text(), "\n", "")
			if !strings.HasPrefix(screen, tc.first) {
				t.Errorf("the screen starts %q, want %q", screen, tc.first)
			}
			r.run(t, "pwd", tc.dir)
			if got := r.p.PersistState()[pane.StateDir]; got != tc.dir {
				t.Errorf("PersistState dir %q, want %q", got, tc.dir)
			}
		})
	}
}
