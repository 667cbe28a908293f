package panes

import (
	"time"

	"github.com/kwsdev/kws/pty"
)

// jobCheck is how often a shell pane looks at the job in its terminal's
// foreground besides when output arrives: a job may start or end without
// printing anything (sleep).
const jobCheck = 500 * time.Millisecond

// jobSettle is how many looks a shell pane takes after its last output
// or job change while the shell itself is in the foreground; then it
// waits for output, so that an idle workstation wakes for nothing. A
// command starts within moments of the echo of its line, so two looks
// (a second) find the job that prints nothing.
const jobSettle = 2

// watch asks for a redraw whenever s's screen may have changed (drawn at
// once when it is the answer to the user's typing), once when
// its shell exits, and when the job in its foreground changes, which it
// checks on output and every jobCheck while a job runs or for jobSettle
// looks after output; every jobCheck it also reads the state of an agent
// CLI in the foreground (checkCLI). It ends when Close closes s's
// Updates.
func (p *ShellPane) watch(s *pty.Terminal) {
	updates, done := s.Updates(), s.Done()
	look := time.NewTimer(jobCheck)
	defer look.Stop()
	looking, quiet := true, 0
	for {
		answer := false
		select {
		case _, ok := <-updates:
			if !ok {
				return
			}
			answer = s.Answered()
			p.checkJob(s)
			quiet = 0
		case <-done:
			done = nil
			p.checkJob(s)
		case <-look.C:
			looking = false
			jobChanged := p.checkJob(s)
			if jobChanged {
				quiet = 0
			} else {
				quiet++
			}
			cliChanged := p.checkCLI(s)
			if quiet < jobSettle || *p.job.Load() != "" {
				look.Reset(jobCheck)
				looking = true
			}
			if !cliChanged && !jobChanged {
				continue
			}
		}
		if !looking && done != nil {
			look.Reset(jobCheck)
			looking = true
		}
		if answer && p.env.Answer != nil {
			p.env.Answer(func() {})
		} else {
			p.env.Update(func() {})
		}
	}
}

// checkJob records the name of s's foreground job and reports whether it
// changed.
func (p *ShellPane) checkJob(s *pty.Terminal) bool {
	name := s.JobName()
	old := p.job.Swap(&name)
	return old == nil || *old != name
}
