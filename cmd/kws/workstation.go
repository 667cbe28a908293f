package main

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/session"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/themes"
	"github.com/kwsdev/kws/ui"
	"github.com/kwsdev/kws/vault"
)

// wsFlags are the workstation's flags on the root command.
type wsFlags struct {
	theme, workspace, shell, emulator string
	// worktree gives each agent its own git worktree and branch.
	worktree bool
}

// workstation wires the vault, the swarm, the panes and the application.
type workstation struct {
	g      *globals
	ws     string
	vault  *vault.Vault
	theme  *themes.Theme
	cfg    config.Config
	cfgErr error
	// overrides are the workspace's model profile overrides.
	overrides []profile.Profile
	params    diet.Params
	skills    []skill.Skill
	broker    *permission.Broker
	swarm     *swarm.Swarm
	app       *ui.App
	appP      atomic.Pointer[ui.App]
	env       *pane.Env
	shell     pty.Options
	log       *slog.Logger
	logF      *os.File

	mu        sync.Mutex
	sessions  []agentSession
	closeOnce sync.Once
	// vaultAt is the last vault pane refresh; vaultLater is set while a
	// trailing refresh is scheduled.
	vaultAt    time.Time
	vaultLater bool
	// early holds notices from before the application existed.
	early []string

	memory *memory.Store
	// limiter caps the agents' concurrent remote model calls.
	limiter *swarm.Limiter
	// board is the swarm's shared task board.
	board   *swarm.Board
	sidecar *sidecar.Switch
	tel     *sidecar.Telemetry
	// sidecarPath is the model to load in the background, if any;
	// sidecarErr says why there is none.
	sidecarPath string
	sidecarErr  error
	// useWorktrees gives each agent its own git worktree (--worktree);
	// worktrees holds them by agent name, under mu.
	useWorktrees bool
	worktrees    map[string]worktree
	// sandbox confines the agents' shell commands, when it can.
	sandbox shellSandbox
}

// runWorkstation opens the full-screen workstation; without a terminal it
// prints the overview instead.
func runWorkstation(cmd *cobra.Command, g *globals, f *wsFlags) error {
	if !term.IsTerminal(int(os.Stdout.Fd())) || !term.IsTerminal(int(os.Stdin.Fd())) {
		return overview(cmd, g)
	}
	w, err := openWorkstation(g, f)
	if err != nil {
		return err
	}
	defer w.close()
	app, err := ui.New(w.appConfig())
	if err != nil {
		return err
	}
	w.attach(app)
	w.loadSidecar()
	// A hangup or kill quits like C-b q does, so the terminal is restored
	// and the sessions are closed.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			app.Update(app.Quit)
		}
	}()
	return app.Run()
}

// openWorkstation opens what the workstation needs before it draws: the
// data dir, the log, the vault, the theme and the model configuration. A
// model that is missing is not an error: the agent panes say what to set.
func openWorkstation(g *globals, f *wsFlags) (*workstation, error) {
	ws, err := resolveWorkspace(cmp.Or(f.workspace, "."))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(g.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	newEmu, err := pty.EmulatorByName(f.emulator)
	if err != nil {
		return nil, err
	}
	// A kws typed in a shell pane must reach this workstation's data dir,
	// not the default one.
	dataDir, err := filepath.Abs(g.dataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	w := &workstation{g: g, ws: ws, useWorktrees: f.worktree,
		shell: pty.Options{Dir: ws, Shell: f.shell, NewEmulator: newEmu, Env: []string{vault.DataDirEnv + "=" + dataDir}}}
	w.logF, err = os.OpenFile(filepath.Join(g.dataDir, "kws.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	w.log = slog.New(secrets.LogHandler(slog.NewTextHandler(w.logF, nil)))
	if w.vault, err = g.openVault(); err != nil {
		w.close()
		return nil, err
	}
	w.cfg, _, w.cfgErr = config.Load(ws, getenv)
	if w.sandbox = g.openSandbox(); w.sandbox.Err != nil {
		w.log.Warn("shell commands run unconfined", "error", w.sandbox.Err)
	}
	if w.cfgErr == nil {
		// The agent pane shows the reason itself, without the package
		// prefix of the wrapped error.
		if err := w.cfg.Validate(); err != nil {
			w.cfgErr = cmp.Or(errors.Unwrap(err), err)
		}
	}
	if w.cfgErr == nil {
		w.overrides, w.cfgErr = profile.LoadOverrides(ws)
	}
	if w.params, err = diet.Preset(w.cfg.DietMode); err != nil {
		w.cfgErr = errors.Join(w.cfgErr, err)
		w.params, _ = diet.Preset("")
	}
	userDir, _ := themes.UserDir()
	if w.theme, err = themes.Load(cmp.Or(f.theme, os.Getenv("KWS_THEME"), w.cfg.Theme, themes.DefaultName), userDir); err != nil {
		w.close()
		return nil, fmt.Errorf("%w (skins: %v)", err, themes.List(userDir))
	}
	w.sidecar = sidecar.NewSwitch(sidecar.Heuristic{})
	w.sidecarPath, w.sidecarErr = sidecar.Locate(cmp.Or(g.sidecarModel, w.cfg.SidecarModel), g.dataDir)
	// Memory is a hint store: when it cannot open, kws works without it.
	// With the sidecar as its embedder it works once the model has loaded.
	if w.memory, err = g.openMemoryWith(w.cfg, w.sidecar); err != nil {
		w.log.Warn("memory unavailable", "error", err)
		w.early = append(w.early, "memory off: "+err.Error())
	} else {
		for _, d := range w.memory.Damaged() {
			w.log.Warn("memory: damaged file moved aside", "file", d.File, "to", d.MovedTo, "error", d.Err)
			w.early = append(w.early, d.String())
		}
	}
	w.skills, _ = skill.Load(filepath.Join(configHome(), "kws", "skills"), filepath.Join(ws, ".kws", "skills"))
	return w, nil
}

// appConfig creates the swarm and returns the application's configuration.
func (w *workstation) appConfig() ui.Config {
	w.broker = permission.NewBroker(permission.Interactive)
	if w.cfg.Yes {
		w.broker = permission.NewBroker(permission.AutoAllow)
	}
	w.limiter = swarm.NewLimiter(swarm.DefaultRemoteCalls)
	w.swarm = swarm.New(swarm.Config{Factory: w.newAgent, Vault: w.vault, Broker: w.broker, Dir: w.agentDir})
	w.board = swarm.NewBoard(w.vault, w.swarm)
	w.swarm.Start()
	// Panes built while ui.New lays out the first screen may ask for a
	// redraw before the application exists; the first frame draws them.
	w.env = &pane.Env{Theme: w.theme, Bindings: w.cfg.Keys,
		Update: func(fn func()) {
			if a := w.appP.Load(); a != nil {
				a.Update(fn)
			}
		},
		Notify: w.notify, Prefix: prefixName(w.cfg.Keys)}
	var roles []string
	for _, r := range skill.Roles(w.skills) {
		roles = append(roles, r.Name)
	}
	return ui.Config{Theme: w.theme, Panes: w.paneRegistry(), Status: w.status, Bindings: w.cfg.Keys, Roles: roles}
}

// attach starts delivering the swarm's events to the application and
// shows what panes reported before it existed.
func (w *workstation) attach(app *ui.App) {
	w.app = app
	w.appP.Store(app)
	w.mu.Lock()
	early := w.early
	w.early = nil
	w.mu.Unlock()
	if len(early) > 0 {
		app.Notify(strings.Join(early, "; "))
	}
	go w.pump()
}

// notify shows msg in the status bar; messages from panes built before the
// application exists (a bad key binding) wait for it.
func (w *workstation) notify(msg string) {
	if a := w.appP.Load(); a != nil {
		a.Notify(msg)
		return
	}
	w.mu.Lock()
	w.early = append(w.early, msg)
	w.mu.Unlock()
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

// agentSession is a session the workstation opened and the agent it is
// for.
type agentSession struct {
	agent string
	sess  *session.Session
}

// close stops the agents and closes the sessions, the vault and the log.
// A session whose agent was mid-turn is recorded as interrupted (kws run
// --resume finishes it), every other one as done, so kws sessions ls
// never shows a closed workstation's sessions as running. Calling it
// again does nothing.
func (w *workstation) close() { w.closeOnce.Do(w.closeAll) }

// closeAll is close's body, run once.
func (w *workstation) closeAll() {
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
		status := session.StatusDone
		if busy[as.agent] {
			status = session.StatusInterrupted
		}
		_ = as.sess.SetSummary(func(s *session.Summary) { s.Status = status })
		_ = as.sess.Close()
	}
	w.mu.Unlock()
	if w.vault != nil {
		_ = w.vault.Close()
	}
	if w.sidecar != nil {
		closeEngine(w.sidecar.Current())
	}
	_ = w.tel.Close()
	if w.logF != nil {
		_ = w.logF.Close()
	}
}
