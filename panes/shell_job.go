package panes

import (
	"time"

	"github.com/kwsdev/kws/pty"
)

// jobCheck is how often a shell pane looks at the job in its terminal's
// foreground besides when output arrives: a job may start or end without
// printing anything (sleep).
const jobCheck = 500 * time.Millisecond

// watch asks for a redraw whenever s's screen may have changed, once when
// its shell exits, and when the job in its foreground changes, which it
// checks on output and every jobCheck; every jobCheck it also reads the
// state of an agent CLI in the foreground (checkCLI). It ends when Close
// closes s's Updates.
func (p *ShellPane) watch(s *pty.Terminal) {
	updates, done := s.Updates(), s.Done()
	tick := time.NewTicker(jobCheck)
	defer tick.Stop()
	for {
		select {
		case _, ok := <-updates:
			if !ok {
				return
			}
			p.checkJob(s)
		case <-done:
			done = nil
			p.checkJob(s)
		case <-tick.C:
			jobChanged := p.checkJob(s)
			if !p.checkCLI(s) && !jobChanged {
				continue
			}
		}
		p.env.Update(func() {})
	}
}

// checkJob records the name of s's foreground job and reports whether it
// changed.
func (p *ShellPane) checkJob(s *pty.Terminal) bool {
	name := s.JobName()
	old := p.job.Swap(&name)
	return old == nil || *old != name
}
