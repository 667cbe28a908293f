package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/tools"
)

// TestAgentPaneShowsAndStopsJobs: the pane lists a job's start and end in
// the transcript (with the vault id of its output), counts the running
// ones in its title, and Ctrl-x asks the swarm to stop them.
func TestAgentPaneShowsAndStopsJobs(t *testing.T) {
	p, fa, _ := newAgentPane(t)
	fa.jobStops = make(chan struct{}, 1)
	started := tools.JobInfo{ID: 1, Command: "npm run dev\x1b]0;pwned\x07", Started: time.Now(), Running: true}
	loop(p, agent.Event{Type: agent.EvJobs, Jobs: []tools.JobInfo{started}})
	if title := p.Title(); !strings.Contains(title, "1 job") {
		t.Fatalf("title %q", title)
	}
	text := screenText(render(t, p, 100, 20))
	if !strings.Contains(text, "background job 1 started: npm run dev") || strings.Contains(text, "\x1b") {
		t.Fatalf("start not shown, or shown raw:\n%q", text)
	}
	key(p, tcell.KeyCtrlX, 0, tcell.ModCtrl)
	select {
	case <-fa.jobStops:
	case <-time.After(time.Minute):
		t.Fatal("Ctrl-x did not stop the jobs")
	}
	ended := started
	ended.Running, ended.Stopped, ended.Kept = false, true, "ctx:0123456789ab"
	loop(p, agent.Event{Type: agent.EvJobs, Jobs: []tools.JobInfo{ended}})
	if title := p.Title(); strings.Contains(title, "job") {
		t.Fatalf("title %q after the job ended", title)
	}
	if text := screenText(render(t, p, 100, 20)); !strings.Contains(text, "job 1 (stopped)") || !strings.Contains(text, "output ctx:0123456789ab") {
		t.Fatalf("end not shown:\n%s", text)
	}
}
