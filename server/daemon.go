// Package server is kws's daemon: the socket (a private directory, the
// peer's uid checked), its side of the protocol (server/wire), the
// sessions clients attach to and their journals, and the client verbs.
// It knows nothing of agents: the composition root, package app, builds
// the sessions it runs (Config.NewSession).
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/kwsdev/kws/server/wire"
)

// Session is one session's workstation, as the composition root builds it
// for the server.
type Session interface {
	// Run shows the workstation on the spec's screen until the session
	// ends.
	Run() error
	// End ends the session (kill-session); Run returns. Safe from any
	// goroutine.
	End()
	// Attached runs after a client attached and the server painted the
	// screen on its terminal: the session says what waits for the user.
	Attached()
	// Agents is the session's agents and their states, for kws ls.
	Agents() []AgentState
	// WaitingPanes are the panes other than agents' whose program asked
	// for the user (another agent CLI in a shell pane), for kws ls.
	WaitingPanes() []PaneState
}

// SessionSpec is what the composition root is given to build a session.
type SessionSpec struct {
	Name      string
	Workspace string
	// Args are the workstation flags the session was created with
	// (--theme, --shell …).
	Args []string
	// Screen is the session's screen: every attached client's terminal.
	Screen tcell.Screen
	// Detach detaches the client that typed last (Ctrl-b d).
	Detach func()
	// Notify sends attached clients' terminals a notification (an agent
	// waits for the user).
	Notify func(msg string)
	// Journal is the state the session saved last, when it is restored
	// after the server died; nil for a new session.
	Journal []byte
	// Clients is how many clients are attached now.
	Clients func() int
	// Rename renames the session (tmux's rename-session): kws attach -t
	// and kws ls use the new name. It takes the server's lock, so call it
	// off the session's UI goroutine.
	Rename func(name string) error
	// Save journals the session's state, a JSON document; the next
	// server restores it. Once the session has ended it writes nothing
	// and fails, so a killed session never comes back.
	Save func(state []byte) error
}

// AgentState is one agent of a session as kws ls shows it.
type AgentState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Role is the role the agent was spawned with, if any.
	Role string `json:"role,omitempty"`
	// Waiting is set while the agent waits for the user's approval.
	Waiting bool `json:"waiting,omitempty"`
}

// PaneState is a pane, not an agent's, that waits for the user.
type PaneState struct {
	// Window is the number of the pane's window, Number the pane's in it;
	// Name is how messages name it ("1", "2.1").
	Window int    `json:"window"`
	Number int    `json:"number"`
	Name   string `json:"name"`
	Title  string `json:"title"`
}

// SessionInfo is one session as kws ls shows it.
type SessionInfo struct {
	Name      string       `json:"name"`
	Workspace string       `json:"workspace"`
	Created   time.Time    `json:"created"`
	Clients   int          `json:"clients"`
	Agents    []AgentState `json:"agents"`
	Waiting   []PaneState  `json:"waiting_panes,omitempty"`
	// Member is the team member whose server runs the session, for one
	// of another server (Config.Others).
	Member string `json:"member,omitempty"`
}

// ExecRequest is a kws command a client runs in the server, on the
// server's open vault and memory.
type ExecRequest struct {
	// Ctx ends when the client goes away.
	Ctx  context.Context
	Args []string
	Cwd  string
	// Session is the session the client runs in (Hello.Session);
	// ModelEnv the model variables set in its environment.
	Session  string
	ModelEnv map[string]string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
}

// Config configures a server.
type Config struct {
	// DataDir is the data dir the server owns; Socket where it listens.
	DataDir string
	Socket  string
	Log     *slog.Logger
	// NewSession builds a session's workstation.
	NewSession func(SessionSpec) (Session, error)
	// Exec runs a kws command and returns its exit code.
	Exec func(ExecRequest) int
	// Runs reports whether Exec runs the command line args for a client
	// that asks with IfServer (the thin client); nil: none, every such
	// client runs its command itself.
	Runs func(args []string) bool
	// Term is the terminal type sessions draw for (xterm-256color when
	// empty or unknown).
	Term string
	// Notify is how an agent waiting is signalled to attached terminals:
	// "osc9" (the default), "osc777", "bell" or "off".
	Notify string
	// Others lists the sessions of other kws servers this one knows of
	// (a team's members), which kws ls shows after its own; nil: none.
	Others func() []SessionInfo
}

// Daemon is a running server.
type Daemon struct {
	cfg  Config
	ln   *net.UnixListener
	lock *os.File
	ti   termInfo

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*live
	// ending is set once the server shuts down; wg counts sessions.
	ending bool
	wg     sync.WaitGroup
}

// Start takes the data dir's server lock and listens on the socket. ErrRunning means another
// server has the data dir.
func Start(cfg Config) (*Daemon, error) {
	cfg.Log = cmp.Or(cfg.Log, slog.New(slog.DiscardHandler))
	lock, err := lockServer(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	ln, err := Listen(cfg.Socket)
	if err != nil {
		lock.Close()
		return nil, err
	}
	d := &Daemon{cfg: cfg, ln: ln, lock: lock, ti: lookupTermInfo(cfg.Term), sessions: map[string]*live{}}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d, nil
}

// SetLog replaces the log; call it before Serve.
func (d *Daemon) SetLog(l *slog.Logger) { d.cfg.Log = l }

// Serve restores the sessions a dead server journaled, then accepts
// connections until the server is killed or its last session ends, and
// waits for the sessions to close.
func (d *Daemon) Serve() error {
	d.restore()
	go func() {
		<-d.ctx.Done()
		d.ln.Close()
	}()
	for {
		c, err := d.ln.AcceptUnix()
		if err != nil {
			if d.ctx.Err() != nil {
				break
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			d.cfg.Log.Error("accept", "error", err)
			return fmt.Errorf("accept: %w", err)
		}
		go d.handle(c)
	}
	d.wg.Wait()
	d.lock.Close()
	return nil
}

// Shutdown stops the server. With end set every session ends and its
// journal is removed (kill-server); without it the sessions stop as they
// would if the machine went down, and the next server restores them.
func (d *Daemon) Shutdown(end bool) {
	d.mu.Lock()
	d.ending = true
	list := make([]*live, 0, len(d.sessions))
	for _, s := range d.sessions {
		s.keepJournal = !end
		list = append(list, s)
	}
	d.mu.Unlock()
	for _, s := range list {
		s.ws.End()
	}
	d.cancel()
}

// Done is closed once Shutdown was called or the last session ended.
func (d *Daemon) Done() <-chan struct{} { return d.ctx.Done() }

// journalDir is where sessions' journals live.
func (d *Daemon) journalDir() string { return filepath.Join(d.cfg.DataDir, "server", "sessions") }

// handle serves one connection.
func (d *Daemon) handle(c *net.UnixConn) {
	defer c.Close()
	if err := checkPeer(c); err != nil {
		d.cfg.Log.Warn("refused a connection", "error", err)
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 1, Message: "kws server: refused: " + err.Error()})
		return
	}
	// A client says what it wants at once; a peer that does not is
	// dropped rather than kept waiting forever.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	typ, payload, err := wire.ReadFrame(c)
	var h wire.Hello
	if err == nil && typ != wire.FrameHello {
		err = fmt.Errorf("%w: expected a hello, got %q", wire.ErrFrame, typ)
	}
	if err == nil {
		err = wire.Decode(payload, &h)
	}
	if err != nil {
		d.cfg.Log.Warn("bad hello", "error", err)
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: "kws server: " + err.Error()})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	// kill-server means the same in every protocol version, so a client of
	// another version can still stop a server it cannot otherwise use.
	if h.Version != wire.Version && h.Op != "kill-server" {
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: fmt.Sprintf("kws server: protocol %d, this client speaks %d: run kws kill-server, then kws again", wire.Version, h.Version)})
		return
	}
	switch h.Op {
	case "attach":
		d.attach(c, h)
	case "exec":
		d.exec(c, h)
	case "ls":
		d.list(c)
	case "kill-session":
		d.killSession(c, h.Session)
	case "kill-server":
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{})
		d.Shutdown(true)
	default:
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 2, Message: fmt.Sprintf("kws server: unknown operation %q", h.Op)})
	}
}

// list answers kws ls.
func (d *Daemon) list(c net.Conn) {
	list := d.Sessions()
	if d.cfg.Others != nil {
		list = append(list, d.cfg.Others()...)
	}
	_ = wire.WriteJSON(c, wire.FrameOutput, list)
	_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{})
}

// Sessions lists the sessions, oldest first.
func (d *Daemon) Sessions() []SessionInfo {
	d.mu.Lock()
	list := make([]*live, 0, len(d.sessions))
	for _, s := range d.sessions {
		list = append(list, s)
	}
	d.mu.Unlock()
	out := make([]SessionInfo, 0, len(list))
	for _, s := range list {
		out = append(out, s.info())
	}
	sortInfos(out)
	return out
}

// killSession ends the named session.
func (d *Daemon) killSession(c net.Conn, name string) {
	d.mu.Lock()
	s := d.sessions[name]
	d.mu.Unlock()
	if s == nil {
		_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{Code: 1, Message: fmt.Sprintf("can't find session: %s", name)})
		return
	}
	s.ws.End()
	<-s.done
	_ = wire.WriteJSON(c, wire.FrameExit, wire.Exit{})
}
