package panes

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
)

// copyText puts text copied in copy mode into the workstation's paste
// buffer and, through the terminal kws runs in, the system clipboard; a
// vault keeps it too when the pane has one. It tells the user where the
// text went. Text over pty.MaxClipboard bytes, or any text under
// clipboard = "off", stays out of the clipboard.
func (p *ShellPane) copyText(text string) {
	text = strings.TrimRight(text, "\n")
	p.env.Buffer.Set(text)
	where := "the paste buffer (" + p.env.PrefixName() + " ] pastes it)"
	switch {
	case p.env.Clipboard == pane.ClipboardOff:
	case len(text) <= pty.MaxClipboard:
		// Draw sends it: only it holds the screen, and so the terminal.
		p.clip.Store(&text)
		where = "the clipboard and " + where
	default:
		where += "; too long for the clipboard"
	}
	lines := "1 line"
	if n := strings.Count(text, "\n") + 1; n > 1 {
		lines = fmt.Sprintf("%d lines", n)
	}
	if p.keep == nil {
		p.env.Tell(fmt.Sprintf("copied %s to %s", lines, where))
		return
	}
	id, err := p.keep("shell:selection", []byte(text))
	if err != nil {
		p.env.Tell(fmt.Sprintf("copied %s to %s; keeping it in the vault failed: %v", lines, where, err))
		return
	}
	p.env.Tell(fmt.Sprintf("copied %s to %s; kept %s (shell:selection)", lines, where, id))
}

// flushClipboard sends text copied since the last frame to the system
// clipboard: an OSC 52 sequence written to the terminal the screen draws
// on (every attached client's, under a server), whatever the terminal
// type, as tmux sends it. A screen without a terminal (a simulation) gets
// it through SetClipboard.
func (p *ShellPane) flushClipboard(screen tcell.Screen) {
	clip := p.clip.Swap(nil)
	if clip == nil {
		return
	}
	text := *clip
	if tty, ok := screen.Tty(); ok {
		_, _ = io.WriteString(tty, osc52(text))
		return
	}
	screen.SetClipboard([]byte(text))
}

// programCopied takes the text a program in the pane set the clipboard to
// with OSC 52, under clipboard = "on", as tmux's set-clipboard on does:
// it becomes the paste buffer, and the next Draw sends it to the system
// clipboard as copy mode's y does. The session calls it on its output
// goroutine, which is then followed by a redraw.
func (p *ShellPane) programCopied(text string) {
	p.env.Buffer.Set(text)
	p.clip.Store(&text)
}

// osc52 is the sequence that sets the clipboard to text.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x1b\\"
}

// PasteBuffer pastes the workstation's paste buffer into the program, as
// tmux's prefix ] does: bracketed when the program enabled bracketed
// paste, so a shell does not run it line by line. Copy mode ends first.
func (p *ShellPane) PasteBuffer() {
	text := p.env.Buffer.Text()
	switch {
	case text == "":
		p.env.Tell("the paste buffer is empty (copy text in copy mode first: " + p.env.PrefixName() + " [, v, y)")
		return
	case p.exited():
		p.env.Tell("shell: the shell has exited (Enter restarts it)")
		return
	}
	p.leaveCopyMode()
	p.report(p.sess.Paste(text))
}
