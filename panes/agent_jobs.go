package panes

import (
	"fmt"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/termsafe"
)

// onJobs shows what changed in the agent's background jobs: a line in
// the transcript for each job that started or ended (with the vault id of
// its whole output), and the running count in the title.
func (p *AgentPane) onJobs(jobs []tools.JobInfo) {
	was := map[int]tools.JobInfo{}
	for _, j := range p.jobs {
		was[j.ID] = j
	}
	for _, j := range jobs {
		old, known := was[j.ID]
		switch {
		case !known && j.Running:
			p.view.add(&entry{kind: entrySystem, text: fmt.Sprintf("background job %d started: %s (Ctrl-x stops the agent's jobs)", j.ID, termsafe.OneLine(j.Command))})
		case (!known || old.Running) && !j.Running:
			text := termsafe.OneLine(j.String())
			if j.Kept != "" {
				text += "; output " + j.Kept
			}
			p.view.add(&entry{kind: entrySystem, text: text})
		}
	}
	p.jobs = jobs
}

// runningJobs counts the jobs that run.
func runningJobs(jobs []tools.JobInfo) int {
	n := 0
	for _, j := range jobs {
		if j.Running {
			n++
		}
	}
	return n
}

// stopJobs stops the agent's background jobs (Ctrl-x).
func (p *AgentPane) stopJobs() {
	if runningJobs(p.jobs) == 0 {
		p.env.Tell(p.name + " runs no background job")
		return
	}
	// Stopping waits for each job's output to reach the vault: off the
	// UI goroutine.
	go func() {
		n, err := p.agents.StopJobs(p.name)
		p.env.Update(func() {
			if err != nil {
				p.env.Tell(err.Error())
				return
			}
			p.env.Tell(fmt.Sprintf("stopped %d background job(s) of %s", n, p.name))
		})
	}()
}
