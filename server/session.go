package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// live is one running session: its workstation and the terminal its
// clients share.
type live struct {
	// name is the session's name, which rename changes.
	name      atomic.Pointer[string]
	workspace string
	created   time.Time
	tty       *Tty
	screen    *screen
	ws        Session
	done      chan struct{}
	// used is when a client last attached (kws attach picks the latest).
	used time.Time
	// keepJournal is set when the server stops without ending the
	// session, so the next server restores it.
	keepJournal bool
	// jmu orders the session's saves with its end: over is set once it
	// ended, after which a save would bring a killed session back.
	jmu  sync.Mutex
	over bool
}

// errSessionOver is what a session's Save returns after it ended.
var errSessionOver = errors.New("the session has ended")

// journal is a session's file in DATA/server/sessions.
type journal struct {
	Name      string          `json:"name"`
	Workspace string          `json:"workspace"`
	Created   time.Time       `json:"created"`
	Args      []string        `json:"args,omitempty"`
	State     json.RawMessage `json:"state,omitempty"`
	// Size is the screen's size when the state was saved: a restored
	// session lays its panes out at it before a client attaches, so that
	// its shells start at the width they will be seen at.
	Size wire.Size `json:"size,omitzero"`
}

// Name is the session's name now.
func (s *live) Name() string { return *s.name.Load() }

// info describes the session for kws ls.
func (s *live) info() SessionInfo {
	return SessionInfo{Name: s.Name(), Workspace: s.workspace, Created: s.created,
		Clients: len(s.tty.attachedClients()), Agents: s.ws.Agents(), Waiting: s.ws.WaitingPanes()}
}

// sortInfos orders sessions oldest first, then by name.
func sortInfos(list []SessionInfo) {
	slices.SortFunc(list, func(a, b SessionInfo) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
}

// unsafeName matches what a session name may not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// checkName says what is wrong with a session name given by the user.
func checkName(name string) error {
	if name == "" || unsafeName.MatchString(name) {
		return fmt.Errorf("session name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// nameFor derives a free session name from a workspace's base name.
// Call with d.mu held.
func (d *Daemon) nameFor(workspace string) string {
	base := unsafeName.ReplaceAllString(filepath.Base(workspace), "-")
	if base == "" || base == "." || base == "-" {
		base = "kws"
	}
	name := base
	for i := 2; d.sessions[name] != nil; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	return name
}

// find returns the session a hello names, creating it when the mode says
// so.
func (d *Daemon) find(h wire.Hello) (*live, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ending {
		return nil, errors.New("the server is shutting down")
	}
	switch h.Mode {
	case "new":
		if h.Session != "" && d.sessions[h.Session] != nil {
			return nil, fmt.Errorf("duplicate session: %s", h.Session)
		}
	case "attach":
		if h.Session != "" {
			if s := d.sessions[h.Session]; s != nil {
				return s, nil
			}
			return nil, fmt.Errorf("can't find session: %s", h.Session)
		}
		var last *live
		for _, s := range d.sessions {
			if last == nil || s.used.After(last.used) {
				last = s
			}
		}
		if last == nil {
			return nil, errors.New("no sessions")
		}
		return last, nil
	default:
		for _, s := range d.sessions {
			if s.workspace == h.Workspace {
				return s, nil
			}
		}
	}
	if h.Session != "" {
		if err := checkName(h.Session); err != nil {
			return nil, err
		}
	}
	name := h.Session
	if name == "" {
		name = d.nameFor(h.Workspace)
	}
	return d.create(journal{Name: name, Workspace: h.Workspace, Created: time.Now(), Args: h.Args})
}

// create starts a session's workstation. Call with d.mu held.
func (d *Daemon) create(j journal) (*live, error) {
	tty := newTty()
	if j.Size.Cols > 0 && j.Size.Rows > 0 {
		tty.size = j.Size
	}
	screen, err := newScreen(tty, d.ti.ti)
	if err != nil {
		return nil, fmt.Errorf("session screen: %w", err)
	}
	s := &live{workspace: j.Workspace, created: j.Created, tty: tty, screen: screen, done: make(chan struct{}), used: time.Now()}
	name := j.Name
	s.name.Store(&name)
	spec := SessionSpec{Name: j.Name, Workspace: j.Workspace, Args: j.Args, Screen: screen, Journal: j.State,
		Detach:  func() { d.detach(s, tty.lastClient(), "detached") },
		Notify:  func(msg string) { d.notify(s, msg) },
		Clients: func() int { return len(tty.attachedClients()) },
		Rename:  func(name string) error { return d.rename(s, &j, name) },
		Save: func(state []byte) error {
			s.jmu.Lock()
			defer s.jmu.Unlock()
			if s.over {
				return errSessionOver
			}
			j.State = state
			if ws, err := tty.WindowSize(); err == nil {
				j.Size = wire.Size{Cols: ws.Width, Rows: ws.Height}
			}
			return d.saveJournal(j)
		}}
	s.ws, err = d.cfg.NewSession(spec)
	if err != nil {
		return nil, err
	}
	s.jmu.Lock()
	if err := d.saveJournal(j); err != nil {
		d.cfg.Log.Warn("journal", "session", j.Name, "error", err)
	}
	s.jmu.Unlock()
	d.sessions[j.Name] = s
	d.wg.Add(1)
	go d.run(s)
	return s, nil
}

// rename renames session s as tmux's rename-session does: kws attach -t
// and kws ls know it by the new name, and its journal moves to it. j is
// the journal the session saves, which s.jmu guards.
func (d *Daemon) rename(s *live, j *journal, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	d.mu.Lock()
	old := s.Name()
	switch {
	case name == old:
		d.mu.Unlock()
		return nil
	case d.sessions[name] != nil:
		d.mu.Unlock()
		return fmt.Errorf("duplicate session: %s", name)
	}
	delete(d.sessions, old)
	d.sessions[name] = s
	s.name.Store(&name)
	d.mu.Unlock()
	s.jmu.Lock()
	defer s.jmu.Unlock()
	if s.over {
		return errSessionOver
	}
	j.Name = name
	if err := d.saveJournal(*j); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(d.journalDir(), old+".json"))
	return nil
}

// run runs a session until it ends, then tells its clients and forgets
// it. The server stops with its last session, as tmux's does.
func (d *Daemon) run(s *live) {
	defer d.wg.Done()
	err := s.ws.Run()
	if err != nil {
		d.cfg.Log.Error("session ended", "session", s.Name(), "error", err)
	}
	d.mu.Lock()
	delete(d.sessions, s.Name())
	keep, empty := s.keepJournal, len(d.sessions) == 0
	if empty {
		// No session may start between the last one's end and the
		// listener's close: nobody could reach it.
		d.ending = true
	}
	d.mu.Unlock()
	s.jmu.Lock()
	s.over = true
	if !keep {
		_ = os.Remove(filepath.Join(d.journalDir(), s.Name()+".json"))
	}
	s.jmu.Unlock()
	clients := s.tty.attachedClients()
	for _, c := range clients {
		d.detach(s, c, "exited")
	}
	// The clients read their exit before the server may stop with its
	// last session; one that does not read in time is left.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	for _, c := range clients {
		select {
		case <-c.done:
		case <-ctx.Done():
		}
	}
	cancel()
	s.tty.Close()
	close(s.done)
	if empty {
		d.cancel()
	}
}

// detach ends client c's attachment with a message like tmux's.
func (d *Daemon) detach(s *live, c *peer, what string) {
	if c == nil {
		return
	}
	s.tty.detach(c)
	c.exit(wire.Exit{Message: fmt.Sprintf("[%s (from session %s)]", what, s.Name())})
}

// attach serves an attaching client until it detaches or goes away.
func (d *Daemon) attach(c *net.UnixConn, h wire.Hello) {
	s, err := d.find(h)
	if err != nil {
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 1, Message: err.Error()})
		return
	}
	// The reply goes out from here, before the connection has a writer:
	// the client waits for it, and a hand-over to a writer goroutine is one
	// more wake-up on the way to the first frame.
	if err := wire.WriteJSON(c, wire.FrameAttached, wire.Attached{Session: s.Name(), Enter: d.ti.enter, Leave: d.ti.leave}); err != nil {
		return
	}
	p := newPeer(c)
	p.size = h.Size
	p.onCaughtUp = func() { s.screen.repaint(p) }
	d.mu.Lock()
	s.used = time.Now()
	d.mu.Unlock()
	s.tty.attach(p)
	s.screen.repaint(p)
	s.ws.Attached()
	for {
		typ, payload, err := wire.ReadFrame(c)
		if errors.Is(err, wire.ErrFrame) {
			// Garbage gets an error reply, as on any connection; a
			// client that does not take it in time is dropped.
			d.cfg.Log.Warn("bad frame from a client", "session", s.Name(), "error", err)
			s.tty.detach(p)
			_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			p.exit(wire.Exit{Code: 2, Message: "kws server: " + err.Error()})
			<-p.done
			return
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				d.cfg.Log.Debug("client gone", "session", s.Name(), "error", err)
			}
			break
		}
		switch typ {
		case wire.FrameInput:
			s.tty.input(p, payload)
		case wire.FrameSize:
			var sz wire.Size
			if wire.Decode(payload, &sz) == nil {
				s.tty.setSize(p, sz)
			}
		}
	}
	s.tty.detach(p)
	p.close()
	<-p.done
}

// notify sends each attached client the configured notification.
func (d *Daemon) notify(s *live, msg string) {
	var seq string
	switch d.cfg.Notify {
	case "off":
		return
	case "bell":
		seq = "\a"
	case "osc777":
		seq = "\x1b]777;notify;kws;" + oscText(msg) + "\a"
	default:
		seq = "\x1b]9;" + oscText(msg) + "\a"
	}
	for _, c := range s.tty.attachedClients() {
		c.send(wire.FrameOutput, []byte(seq))
	}
}

// oscText makes msg safe inside an OSC string: no control characters.
func oscText(msg string) string {
	out := []rune{}
	for _, r := range msg {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}
