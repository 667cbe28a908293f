package panes

import (
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/termsafe"
)

// A program in a shell pane, such as another agent CLI (Claude Code,
// Codex, opencode, aider), asks for the user with a bell or a desktop
// notification (OSC 9, OSC 777). While the pane is not focused, that marks
// it as waiting, as an agent asking for approval is: ‼ on its frame, its
// number in the status bar, next-waiting goes there; focusing it clears
// the mark, as tmux's monitor-bell flag clears.

// alerted is the terminal's alert handler: it runs on the output
// goroutine under the terminal's lock, so it only hands the alert to the
// UI goroutine. A burst of them (a program printing bells) queues one
// update, which takes the latest.
func (p *ShellPane) alerted(text string) {
	if p.pendingAlert.Swap(&text) != nil {
		return
	}
	p.env.Update(func() {
		if t := p.pendingAlert.Swap(nil); t != nil {
			p.markWaiting(*t)
		}
	})
}

// markWaiting marks the pane as waiting for the user, unless the user is
// in it; the first alert says so in the status bar.
func (p *ShellPane) markWaiting(text string) {
	if p.HasFocus() {
		return
	}
	first := !p.waiting.Swap(true)
	if text != "" {
		p.alert.Store(&text)
	}
	if first {
		msg := "‼ a shell pane asks for you"
		if j := p.job.Load(); j != nil && *j != "" {
			msg = "‼ " + termsafe.OneLine(*j) + " asks for you"
		}
		if text != "" {
			msg += ": " + text
		}
		if p.env.WaitingKey != "" {
			msg += " (" + p.env.WaitingKey + " goes there)"
		}
		p.env.Tell(msg)
	}
}

// NeedsYou reports whether a program in the pane asked for the user since
// the pane last had the focus.
func (p *ShellPane) NeedsYou() bool { return p.waiting.Load() }

// Focus clears the waiting mark: the user is here. A program that asked
// for focus events (mode 1004) hears it.
func (p *ShellPane) Focus(delegate func(tview.Primitive)) {
	p.waiting.Store(false)
	p.alert.Store(nil)
	p.tellFocus(true)
	p.Box.Focus(delegate)
}

// Blur tells a program that asked for focus events that the pane lost
// the focus.
func (p *ShellPane) Blur() {
	p.tellFocus(false)
	p.Box.Blur()
}

// tellFocus tells the program whether the pane has the focus, when it
// asked (see pty.Terminal.Focus).
func (p *ShellPane) tellFocus(focused bool) {
	if p.sess != nil {
		_ = p.sess.Focus(focused)
	}
}
