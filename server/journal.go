package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// saveJournal writes a session's journal atomically: a server killed
// mid-write leaves the previous journal, never half of one.
func (d *Daemon) saveJournal(j journal) error {
	dir := d.journalDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+j.Name+".*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if werr != nil || serr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("journal: write %s: %v %v %v", j.Name, werr, serr, cerr)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, j.Name+".json")); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// restore starts again every session whose journal a dead server left. A
// journal that does not read is moved aside and logged; the others still
// come back.
func (d *Daemon) restore() {
	entries, err := os.ReadDir(d.journalDir())
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(d.journalDir(), e.Name())
		var j journal
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err == nil && (j.Name+".json" != e.Name() || j.Workspace == "") {
			err = fmt.Errorf("journal names session %q of workspace %q", j.Name, j.Workspace)
		}
		if err != nil {
			d.cfg.Log.Warn("journal unreadable, moved aside", "file", path, "error", err)
			_ = os.Rename(path, path+".damaged")
			continue
		}
		if _, err := d.create(j); err != nil {
			d.cfg.Log.Warn("session not restored", "session", j.Name, "error", err)
			continue
		}
		d.cfg.Log.Info("session restored", "session", j.Name, "workspace", j.Workspace)
	}
}

// termInfo is the terminal description sessions draw for, and the bytes
// a client writes on attaching and leaving.
type termInfo struct {
	ti           *terminfo.Terminfo
	enter, leave string
}

// lookupTermInfo finds name's description, falling back to
// xterm-256color, which nearly every terminal emulator understands.
func lookupTermInfo(name string) termInfo {
	ti, err := tcell.LookupTerminfo(name)
	if err != nil || name == "" {
		ti, _ = tcell.LookupTerminfo("xterm-256color")
	}
	// The modes the screen turns on when it starts (see tcell's engage):
	// the alternate screen, keypad, hidden cursor, the mouse and
	// bracketed paste, and the extended keyboard protocols of xterm-like
	// terminals. The client sets them when it attaches and resets them
	// when it leaves, since the screen started before it came.
	const mouseOn = "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h"
	const mouseOff = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l"
	csiOn, csiOff := "", ""
	if ti.XTermLike {
		csiOn, csiOff = "\x1b[>4;2m\x1b[>1u", "\x1b[<u\x1b[>4;0m"
	}
	enter := ti.EnterCA + ti.EnterKeypad + ti.HideCursor + ti.EnableAcs + ti.DisableAutoMargin + ti.Clear + csiOn + mouseOn + "\x1b[?2004h"
	leave := csiOff + mouseOff + "\x1b[?2004l" + ti.ShowCursor + ti.AttrOff + ti.ExitKeypad + ti.EnableAutoMargin + ti.Clear + ti.ExitCA
	return termInfo{ti: ti, enter: enter, leave: leave}
}
