package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
)

// newServeCmd is the hidden command a client starts the server with.
func newServeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "server",
		Short:  "Run the kws server of the data dir (kws starts it when needed)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE:   func(*cobra.Command, []string) error { return runServer(g) },
	}
	g.sidecarFlag(cmd.Flags())
	return cmd
}

// runServer serves the data dir until it is killed or its last session
// ends. Another server already serving it is not an error: the client
// that started this one attaches to that one.
func runServer(g *globals) error {
	// The secret detector's keyword index (a few milliseconds) is made on
	// its first use, which the log and every agent's diet make. Made here
	// on the other core, it is ready before the first client's session
	// needs it.
	go secrets.Load()
	sock, err := wire.SocketPath(g.dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(g.dataDir, "logs"), 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	var st *app.Stores
	cfg, _, _ := config.Load("", getenv)
	d, err := server.Start(server.Config{DataDir: g.dataDir, Socket: sock, Term: os.Getenv("TERM"), Notify: cfg.Notify,
		NewSession: func(spec server.SessionSpec) (server.Session, error) { return newSession(st, spec) },
		Exec:       func(r server.ExecRequest) int { return execInServer(st, g.socket, r) },
		Runs:       runsInServer,
		Others:     func() []server.SessionInfo { return teamSessions(st) }})
	if errors.Is(err, server.ErrRunning) {
		return &exitError{code: launch.ExitRunning, err: err}
	}
	if err != nil {
		return err
	}
	launch.Listening()
	g.socket = sock
	if st, err = app.OpenStores(g.storeOptions(cfg, filepath.Join("logs", "server.log"))); err != nil {
		d.Shutdown(true)
		return err
	}
	defer st.Close()
	d.SetLog(st.Log())
	// Logged aside: the log redacts secrets, and the detector may still be
	// building.
	go st.Log().Info("server started", "pid", os.Getpid(), "socket", sock)
	st.LoadSidecar()
	// A data dir in a team joins it: the node starts here, the team's
	// stores open in the background once a majority answers.
	if err := st.StartTeam(); err != nil {
		st.Log().Warn("team: this server works on its own", "error", err)
	}
	// A hangup is what a closed terminal sends: the server outlives it.
	// SIGTERM (a shutdown) stops the sessions so the next server restores
	// them.
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE) // the panes' programs still get their defaults: see pty.Start
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	go func() {
		select {
		case s := <-sig:
			st.Log().Info("server stopping", "signal", s.String())
			d.Shutdown(false)
		case <-d.Done():
		}
	}()
	err = d.Serve()
	st.Log().Info("server stopped")
	return err
}

// teamSessions are the sessions of the team's other members with their
// agents, for kws ls: SESSION@MEMBER each.
func teamSessions(st *app.Stores) []server.SessionInfo {
	if st == nil {
		return nil
	}
	var out []server.SessionInfo
	for _, a := range st.TeamAgents() {
		name := a.Session + "@" + a.Member
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, server.SessionInfo{Name: name, Member: a.Member})
		}
		last := &out[len(out)-1]
		last.Agents = append(last.Agents, server.AgentState{Name: a.Agent + "@" + a.Member, State: a.State})
	}
	return out
}

// newSession builds a session's workstation on the server's stores: it
// takes the workstation flags the session was created with.
func newSession(st *app.Stores, spec server.SessionSpec) (server.Session, error) {
	f := &wsFlags{}
	fs := pflag.NewFlagSet("session", pflag.ContinueOnError)
	addWSFlags(fs, f)
	if err := fs.Parse(spec.Args); err != nil {
		return nil, err
	}
	return st.NewSession(spec, f.flags())
}

// serverCommands are the commands a running server runs for its clients,
// on its open vault and memory: these and every tmux verb.
var serverCommands = func() map[string]bool {
	m := map[string]bool{"vault": true, "memory": true, "transcripts": true, "run": true, "rewind": true, "team": true}
	for _, c := range newVerbCmds(&globals{}) {
		m[c.Name()] = true
	}
	return m
}()

// execInServer runs a kws command for a client, on the server's stores;
// socket is the server's.
func execInServer(st *app.Stores, socket string, r server.ExecRequest) int {
	root := newRoot()
	root.g.shared, root.g.cwd, root.g.socket, root.g.session, root.g.modelEnv = st, r.Cwd, socket, r.Session, r.ModelEnv
	root.SetArgs(r.Args)
	root.SetIn(r.Stdin)
	root.SetOut(r.Stdout)
	root.SetErr(r.Stderr)
	if c, _, err := root.Find(r.Args); err != nil || !serverCommands[topName(c)] && c.CommandPath() != "kws mcp serve" {
		fmt.Fprintf(r.Stderr, "kws: the server runs only %s commands\n", "vault, memory, transcripts, run, rewind, team, mcp serve and the tmux verbs")
		return 2
	}
	err := root.ExecuteContext(r.Ctx)
	// The panes show what the command stored at once.
	st.Changed()
	if err == nil {
		return 0
	}
	fmt.Fprintln(r.Stderr, errorLine(err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// runsInServer reports whether the server runs the command line args for
// the thin client (cmd/kws-client): the commands forwardable sends to it,
// when kws reads their --data-dir as the thin client did to pick this
// server (wire.DataDirArg); pflag reads "kws memory search --scope
// --data-dir=/x q" as a scope, the thin client as /x. The thin client
// runs every other command, and any args that do not name a command,
// through the whole kws.
func runsInServer(args []string) bool {
	c, rest, err := newRoot().Find(args)
	if err != nil || c.Annotations[forwarded] == "" || c.ParseFlags(rest) != nil {
		return false
	}
	dir, set := wire.DataDirArg(args)
	if set != c.Flags().Changed("data-dir") {
		return false
	}
	got, _ := c.Flags().GetString("data-dir")
	return !set || got == dir
}

// topName is the name of c's top-level command (vault for vault put).
func topName(c *cobra.Command) string {
	for c.HasParent() && c.Parent().HasParent() {
		c = c.Parent()
	}
	return c.Name()
}

// runsHere annotates a command of a forwarded group that never touches
// the shared stores, so it runs in the calling process.
const runsHere = "kws.runs-here"

// forwarded annotates a command that forwardable sends to the server: the
// commands the server runs for the thin client (see runsInServer).
const forwarded = "kws.forwarded"

// forwardable makes the commands a server can run go to the running
// server of the data dir, so they see its vault and memory instead of
// failing on their locks; without a server they run here.
func forwardable(root *cobra.Command, g *globals) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if run := c.RunE; run != nil && c.Annotations[runsHere] == "" {
			c.RunE = g.viaServer(run)
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[forwarded] = "true"
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range root.Commands() {
		if serverCommands[c.Name()] {
			walk(c)
		}
	}
}

// viaServer runs a command in the data dir's server when one runs and
// the command line is known, else runs it here.
func (g *globals) viaServer(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if g.shared != nil || g.argv == nil {
			return run(cmd, args)
		}
		sock, err := wire.SocketPath(g.dataDir)
		if err != nil {
			return run(cmd, args)
		}
		c, err := wire.Dial(sock)
		if errors.Is(err, wire.ErrNoServer) {
			return run(cmd, args)
		}
		if err != nil {
			return err
		}
		wd, _ := os.Getwd()
		e, err := wire.Exec(c, wire.Hello{Args: g.argv, Cwd: wd, Session: os.Getenv(wire.SessionEnv),
			ModelEnv: wire.ModelEnv(getenv)}, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		if e.Code != 0 {
			return &exitError{code: e.Code, err: errPrinted}
		}
		return nil
	}
}
