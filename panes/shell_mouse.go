package panes

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/pty"
)

// wheelLines is how many lines one step of the mouse wheel scrolls, as in
// tmux.
const wheelLines = 3

// MouseHandler gives the program the mouse when it asked for it (vim with
// mouse=a, htop, less --mouse), as tmux does. Otherwise the wheel scrolls:
// on the alternate screen it sends arrow keys, so that less and man
// scroll; on the normal screen a wheel step up enters copy mode, and
// scrolling down past the newest line leaves it again. A drag selects
// text in copy mode, as in tmux.
func (p *ShellPane) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return p.WrapMouseHandler(func(action tview.MouseAction, ev *tcell.EventMouse, _ func(tview.Primitive)) (bool, tview.Primitive) {
		x, y := ev.Position()
		ix, iy, w, h := p.GetInnerRect()
		held := p.held
		switch action {
		case tview.MouseLeftDown:
			p.held |= tcell.Button1
		case tview.MouseMiddleDown:
			p.held |= tcell.Button3
		case tview.MouseRightDown:
			p.held |= tcell.Button2
		case tview.MouseLeftUp:
			p.held &^= tcell.Button1
		case tview.MouseMiddleUp:
			p.held &^= tcell.Button3
		case tview.MouseRightUp:
			p.held &^= tcell.Button2
		}
		rawY := y
		if x < ix || y < iy || x >= ix+w || y >= iy+h {
			if held == 0 {
				return false, nil
			}
			// A drag that leaves the pane stays with the pane, at its edge,
			// until the button comes up.
			x, y = min(max(x, ix), ix+w-1), min(max(y, iy), iy+h-1)
		}
		if p.copy == nil && !p.exited() {
			if m, ok := ptyMouse(action, ev.Modifiers(), held, x-ix, y-iy); ok {
				sent, err := p.sess.SendMouse(m)
				p.report(err)
				if sent {
					if p.held != 0 {
						return true, p // keep the mouse until the release
					}
					return true, nil
				}
			}
		}
		switch action {
		case tview.MouseScrollUp:
			p.wheel(-1)
		case tview.MouseScrollDown:
			p.wheel(1)
		case tview.MouseLeftDown:
			p.pressCopy(x-ix, y-iy)
			return true, p
		case tview.MouseMove:
			if held&tcell.Button1 == 0 || p.copy == nil || !p.copy.dragging {
				return false, nil
			}
			p.dragCopy(x-ix, rawY-iy)
			return true, p
		case tview.MouseLeftUp:
			p.releaseCopy()
		default:
			return false, nil
		}
		return true, nil
	})
}

// pressCopy starts a mouse selection at column x, row y of the pane,
// entering copy mode as tmux does; a click that drags nothing leaves a
// copy mode it entered.
func (p *ShellPane) pressCopy(x, y int) {
	if p.exited() {
		return
	}
	if p.copy == nil {
		p.EnterCopyMode()
		p.copy.byClick = true
	}
	c := p.copy
	c.sel, c.typing = selNone, false
	c.goTo(pty.Pos{Line: c.top + y, Col: x})
	c.anchor, c.dragging = c.cur, true
}

// dragCopy extends the mouse selection to column x, row y, scrolling when
// the pointer is above or below the pane.
func (p *ShellPane) dragCopy(x, y int) {
	c := p.copy
	c.sel = selChars
	switch {
	case y < 0:
		c.scroll(-1)
	case y >= c.rows:
		c.scroll(1)
	}
	c.goTo(pty.Pos{Line: c.top + max(0, min(y, c.rows-1)), Col: x})
}

// releaseCopy ends a mouse selection: the selection stays for y to keep,
// and a plain click leaves a copy mode it opened.
func (p *ShellPane) releaseCopy() {
	c := p.copy
	if c == nil || !c.dragging {
		return
	}
	c.dragging = false
	switch {
	case c.sel == selNone && c.byClick:
		p.leaveCopyMode()
	case c.sel != selNone:
		p.env.Tell("shell: selected; y keeps it in the vault, q leaves")
	}
}

// wheel scrolls by one wheel step up (dir < 0) or down.
func (p *ShellPane) wheel(dir int) {
	switch {
	case p.copy != nil:
		c := p.copy
		c.scroll(dir * wheelLines)
		if dir > 0 && c.byWheel && c.sel == selNone && !c.typing && c.atBottom() {
			p.leaveCopyMode()
		}
	case p.exited():
	case p.sess.AltScreen():
		k := pty.Key{Key: pty.KeyUp}
		if dir > 0 {
			k.Key = pty.KeyDown
		}
		for range wheelLines {
			p.report(p.sess.SendKey(k))
		}
	case dir < 0:
		p.EnterCopyMode()
		p.copy.byWheel = true
		p.copy.scroll(-wheelLines)
	}
}

// ptyMouse converts a tview mouse event at column x, row y of the pane to
// the program's terminal; held are the buttons down before it. Clicks and
// double clicks are not events of their own on a terminal: the presses and
// releases they are made of are sent. Motion takes its button from held,
// not from the event: tview reports a move to where a button goes down
// before the press itself, and that is not a drag.
func ptyMouse(action tview.MouseAction, mods tcell.ModMask, held tcell.ButtonMask, x, y int) (pty.Mouse, bool) {
	m := pty.Mouse{X: x, Y: y, Mod: ptyMods(mods)}
	switch action {
	case tview.MouseLeftDown:
		m.Button = pty.MouseLeft
	case tview.MouseMiddleDown:
		m.Button = pty.MouseMiddle
	case tview.MouseRightDown:
		m.Button = pty.MouseRight
	case tview.MouseLeftUp:
		m.Button, m.Action = pty.MouseLeft, pty.MouseRelease
	case tview.MouseMiddleUp:
		m.Button, m.Action = pty.MouseMiddle, pty.MouseRelease
	case tview.MouseRightUp:
		m.Button, m.Action = pty.MouseRight, pty.MouseRelease
	case tview.MouseScrollUp:
		m.Button = pty.MouseWheelUp
	case tview.MouseScrollDown:
		m.Button = pty.MouseWheelDown
	case tview.MouseMove:
		m.Action = pty.MouseMotion
		switch b := held; {
		case b&tcell.Button1 != 0:
			m.Button = pty.MouseLeft
		case b&tcell.Button3 != 0:
			m.Button = pty.MouseMiddle
		case b&tcell.Button2 != 0:
			m.Button = pty.MouseRight
		}
	default:
		return pty.Mouse{}, false
	}
	return m, true
}
