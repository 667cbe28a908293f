package app

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/datadir"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/themes"
	"github.com/kwsdev/kws/ui"
)

// Workstation is one session: a workspace's configuration, swarm, panes
// and application, on the data dir's shared stores.
type Workstation struct {
	st *Stores
	// ownStores is set when the workstation opened the stores itself (no
	// server) and closes them with itself.
	ownStores bool
	unlisten  func()
	ws        string
	theme     *themes.Theme
	cfg       config.Config
	cfgErr    error
	// mcp runs the MCP servers the configuration names; nil without any.
	mcp MCPClient
	// overrides are the workspace's model profile overrides.
	overrides []profile.Profile
	params    diet.Params
	skills    []skill.Skill
	broker    *permission.Broker
	swarm     *swarm.Swarm
	// seedStats are the journaled figures of the agents a restored
	// session brings back, by name.
	seedStats map[string]swarm.Stats
	// events is the panes' subscription to the swarm, taken before any
	// agent starts; feed delivers it.
	events <-chan swarm.Event
	feed   *feed
	env    *pane.Env
	shell  pty.Options

	mu        sync.Mutex
	sessions  []agentSession
	closeOnce sync.Once
	// early holds notices from before the application existed.
	early []string

	// limiter caps the agents' concurrent remote model calls.
	limiter *swarm.Limiter
	// board is the swarm's shared task board.
	board *swarm.Board
	// rename renames the server session the workstation runs as; nil
	// outside a server.
	rename func(name string) error
	// useWorktrees gives each agent its own git worktree (--worktree);
	// worktrees holds them by agent name, under mu.
	useWorktrees bool
	worktrees    map[string]worktree
}

// OpenWorkstation opens a workstation with stores of its own, for a
// process without a server (the tests and the headless driver). The
// workspace's configuration replaces o.Config. Start runs it with the
// ui.App it builds; Close closes it and the stores.
func OpenWorkstation(o Options, f Flags) (*Workstation, error) {
	ws, err := ResolveWorkspace(cmp.Or(f.Workspace, "."))
	if err != nil {
		return nil, err
	}
	o.Config, _, _ = config.Load(ws, o.getenv)
	st, err := OpenStores(o)
	if err != nil {
		return nil, err
	}
	w, err := openSession(st, ws, f)
	if err != nil {
		st.Close()
		return nil, err
	}
	w.ownStores = true
	return w, nil
}

// openSession opens what a session's workstation needs before it draws,
// on the shared stores: the workspace's configuration, theme and skills.
// A model that is missing is not an error: the agent panes say what to
// set.
func openSession(st *Stores, ws string, f Flags) (*Workstation, error) {
	o := st.opts
	newEmu, err := pty.EmulatorByName(f.Emulator)
	if err != nil {
		return nil, err
	}
	// A kws typed in a shell pane must reach this workstation's data dir
	// and server, not the default ones.
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	env := []string{datadir.Env + "=" + dataDir}
	if o.Socket != "" {
		env = append(env, wire.SocketEnv+"="+o.Socket)
	}
	w := &Workstation{st: st, ws: ws, useWorktrees: f.Worktree, feed: &feed{memory: st.memory, log: st.log},
		shell: pty.Options{Dir: ws, Shell: f.Shell, NewEmulator: newEmu, Env: env}}
	w.early = append(w.early, st.notes...)
	setup, cfgErr := LoadSetup(ws, o.ConfigHome, o.getenv, "", nil)
	w.cfg, w.cfgErr, w.overrides, w.params, w.skills = setup.Config, cfgErr, setup.Overrides, setup.Params, setup.Skills
	w.early = append(append(w.early, setup.Warnings...), setup.Skipped...)
	if w.cfgErr == nil && o.MCP != nil && len(w.cfg.MCP.Servers) > 0 {
		w.mcp = o.MCP(w.cfg, ws, st.log)
		go func() {
			if p := w.mcp.Problems(); len(p) > 0 {
				w.notify(strings.Join(p, "; "))
			}
		}()
	}
	userDir, _ := themes.UserDir()
	if w.theme, err = themes.Load(cmp.Or(f.Theme, os.Getenv("KWS_THEME"), w.cfg.Theme, themes.DefaultName), userDir); err != nil {
		return nil, fmt.Errorf("%w (skins: %v)", err, themes.List(userDir))
	}
	unlisten, unwatch := st.listen(w.notify), st.watch(w.feed.storesChanged)
	w.unlisten = func() { unlisten(); unwatch() }
	if st.memory != nil {
		unwatchMem := st.memory.Watch(w.feed.memoryChanged)
		w.feed.countMemory()
		w.unlisten = func() { unlisten(); unwatch(); unwatchMem() }
	}
	return w, nil
}

// LoadSidecar starts loading the shared sidecar model, once per process.
func (w *Workstation) LoadSidecar() { w.st.LoadSidecar() }

// Stores are the shared stores the workstation works on.
func (w *Workstation) Stores() *Stores { return w.st }

// Swarm is the workstation's swarm of agents, once Start created it.
func (w *Workstation) Swarm() *swarm.Swarm { return w.swarm }

// Start makes the workstation run: it creates and starts the swarm,
// builds the application with newApp from the configuration adjust may
// change (a server's screen, a restored layout), lets ready see the
// application before anything reaches it, then delivers the swarm's
// events and the early notices to it. It returns the application; the
// caller runs it (or a test drives it). adjust and ready may be nil.
func (w *Workstation) Start(newApp func(ui.Config) (*ui.App, error), adjust func(*ui.Config), ready func(*ui.App)) (*ui.App, error) {
	cfg := w.appConfig()
	if adjust != nil {
		adjust(&cfg)
	}
	a, err := newApp(cfg)
	if err != nil {
		return nil, err
	}
	if ready != nil {
		ready(a)
	}
	w.attach(a)
	return a, nil
}

// appConfig creates and starts the swarm and returns the application's
// configuration.
func (w *Workstation) appConfig() ui.Config {
	w.broker = permission.NewBroker(permission.Interactive)
	if w.cfg.Yes {
		w.broker = permission.NewBroker(permission.AutoAllow)
	}
	w.limiter = swarm.NewLimiter(swarm.DefaultRemoteCalls)
	w.swarm = swarm.New(swarm.Config{Factory: w.newAgent, Vault: w.st.vault, Broker: w.broker, Dir: w.agentDir, Skills: w.skills,
		Remote: w.st.sendToTeam})
	// The panes hear every event from the start: a pane built on an agent
	// that is already working (a restored one) takes its transcript, and
	// the events after it must not fall between that and the pump.
	w.events, _ = w.swarm.Subscribe()
	w.board = swarm.NewBoard(w.st.BoardStore(), w.swarm)
	w.swarm.Start()
	// Panes built while ui.New lays out the first screen may ask for a
	// redraw before the application exists; the first frame draws them.
	w.env = &pane.Env{Theme: w.theme, Bindings: w.cfg.Keys,
		Update: w.feed.update, Answer: w.feed.answer,
		Notify: w.notify, Prefix: prefixName(w.cfg.Keys), WaitingKey: waitingKey(w.cfg.Keys), Clipboard: w.cfg.Clipboard}
	var roles []string
	for _, r := range skill.Roles(w.skills) {
		roles = append(roles, r.Name)
	}
	return ui.Config{Theme: w.theme, Panes: w.paneRegistry(), Status: w.status, Bindings: w.cfg.Keys, Roles: roles, HasBlock: w.hasBlock,
		MCPStatus: w.mcpStatus, Commands: agent.Commands(w.skills)}
}

// attach starts delivering the swarm's events to app, the application
// made from appConfig, and shows what panes reported and the memory
// told before it existed.
func (w *Workstation) attach(app *ui.App) {
	w.env.Commands = app
	w.mu.Lock()
	early := w.early
	w.early = nil
	w.mu.Unlock()
	if len(early) > 0 {
		app.Notify(strings.Join(early, "; "))
	}
	w.feed.start(app, w.events)
}

// notify shows msg in the status bar; messages from panes built before the
// application exists (a bad key binding) wait for it.
func (w *Workstation) notify(msg string) {
	if a := w.feed.appP.Load(); a != nil {
		a.Notify(msg)
		return
	}
	w.mu.Lock()
	w.early = append(w.early, msg)
	w.mu.Unlock()
}

// mcpStatus is the palette command mcp's text: the MCP servers' state.
func (w *Workstation) mcpStatus() string {
	if w.mcp == nil {
		return "MCP: no servers configured ([mcp.servers.NAME] in ~/.config/kws/config.toml)"
	}
	return w.mcp.Summary()
}

// prefixName is how the configured prefix key is shown.
func prefixName(bindings map[string]string) string {
	if f := strings.Fields(bindings["global.prefix"]); len(f) > 0 {
		if k, err := keymap.Parse(f[0]); err == nil {
			return k.String()
		}
	}
	return "C-b"
}

// waitingKey is how the key that focuses the next pane waiting for the
// user is shown ("C-b N").
func waitingKey(bindings map[string]string) string {
	key := ui.NextWaitingKey
	if f := strings.Fields(bindings["prefix.next-waiting"]); len(f) > 0 {
		key = f[0]
	}
	if k, err := keymap.Parse(key); err == nil {
		key = k.String()
	}
	return prefixName(bindings) + " " + key
}

// agentSession is a session the workstation opened and the agent it is
// for.
type agentSession struct {
	agent string
	sess  *transcript.Transcript
}

// Close stops the agents and closes their sessions, and the stores when
// the workstation opened them. A session whose agent was mid-turn is
// recorded as interrupted (kws run --resume finishes it), every other
// one as done, so kws transcripts ls never shows a closed workstation's
// sessions as running. Calling it again does nothing.
func (w *Workstation) Close() { w.closeOnce.Do(w.closeAll) }

// closeAll is close's body, run once.
func (w *Workstation) closeAll() {
	busy := map[string]bool{}
	if w.swarm != nil {
		for _, in := range w.swarm.Agents() {
			busy[in.Name] = in.Busy()
		}
		w.swarm.Stop()
	}
	if w.broker != nil {
		w.broker.Close()
	}
	w.mu.Lock()
	for _, as := range w.sessions {
		status := transcript.StatusDone
		if busy[as.agent] {
			status = transcript.StatusInterrupted
		}
		_ = as.sess.SetSummary(func(s *transcript.Summary) { s.Status = status })
		_ = as.sess.Close()
	}
	w.mu.Unlock()
	if w.unlisten != nil {
		w.unlisten()
	}
	if w.mcp != nil {
		w.mcp.Close()
	}
	if w.ownStores {
		w.st.Close()
	}
}

// agentStats is every agent's figures, by name, for the journal.
func (w *Workstation) agentStats() map[string]swarm.Stats {
	out := map[string]swarm.Stats{}
	for _, in := range w.swarm.Agents() {
		out[in.Name] = in.Stats
	}
	return out
}
