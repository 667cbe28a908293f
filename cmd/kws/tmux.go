package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/pty"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/termsafe"
)

// newServerCmds are the server and its tmux-like verbs.
func newServerCmds(g *globals) []*cobra.Command {
	attach := &cobra.Command{
		Use:   "attach [-t NAME]",
		Short: "Attach to a running session (the latest, or NAME); C-b d detaches again",
		Args:  cobra.NoArgs,
	}
	target := attach.Flags().StringP("target", "t", "", "session name")
	attach.RunE = func(cmd *cobra.Command, _ []string) error {
		return attachTo(cmd, g, wire.Hello{Mode: "attach", Session: *target}, false)
	}

	newCmd := &cobra.Command{
		Use:   "new [-s NAME] [--workspace DIR]",
		Short: "Start a new session and attach to it",
		Args:  cobra.NoArgs,
	}
	name := newCmd.Flags().StringP("session", "s", "", "session name (default: the workspace's directory name)")
	wf := &wsFlags{}
	addWSFlags(newCmd.Flags(), wf)
	g.sidecarFlag(newCmd.Flags())
	newCmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ws, err := app.ResolveWorkspace(wf.workspace)
		if err != nil {
			return err
		}
		return attachTo(cmd, g, wire.Hello{Mode: "new", Session: *name, Workspace: ws, Args: sessionArgs(cmd.Flags())}, true)
	}

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List the sessions, their agents and who waits for approval",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return listSessions(cmd, g) },
	}

	kill := &cobra.Command{
		Use:   "kill-session -t NAME",
		Short: "End a session: its agents stop and its panes close",
		Args:  cobra.NoArgs,
	}
	killTarget := kill.Flags().StringP("target", "t", "", "session name")
	_ = kill.MarkFlagRequired("target")
	kill.RunE = func(cmd *cobra.Command, _ []string) error {
		_, err := request(g, wire.Hello{Op: "kill-session", Session: *killTarget})
		return err
	}

	killServer := &cobra.Command{
		Use:   "kill-server",
		Short: "End every session and stop the server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sock, err := wire.SocketPath(g.dataDir)
			if err != nil {
				return err
			}
			e, err := server.KillServer(sock)
			switch {
			case err != nil:
				return &exitError{code: 1, err: err}
			case server.OldProtocol(e):
				// A server of an older protocol refuses kill-server too.
				return server.Terminate(sock)
			case e.Code != 0:
				return &exitError{code: e.Code, err: errors.New(e.Message)}
			}
			return nil
		},
	}
	return []*cobra.Command{newServeCmd(g), attach, newCmd, ls, kill, killServer}
}

// addWSFlags defines the workstation's flags, which a new session takes.
func addWSFlags(fs *pflag.FlagSet, wf *wsFlags) {
	fs.StringVar(&wf.theme, "theme", "", "skin: dark, light, high-contrast or one in ~/.config/kws/skins (env KWS_THEME)")
	fs.StringVar(&wf.workspace, "workspace", ".", "workspace directory the agents and shells work in")
	fs.StringVar(&wf.shell, "shell", "", "program for shell panes (default $SHELL, else bash)")
	fs.BoolVar(&wf.worktree, "worktree", false, "give each agent its own git worktree of the workspace (WORKSPACE/.kws/worktrees/NAME, branch kws/NAME)")
	fs.StringVar(&wf.emulator, "emulator", pty.EmulatorFast, "terminal emulator of shell panes: "+pty.EmulatorFast+" or "+pty.EmulatorVT)
}

// sessionArgs are the workstation flags given on the command line, passed
// to the session the server creates.
func sessionArgs(fs *pflag.FlagSet) []string {
	var args []string
	fs.Visit(func(f *pflag.Flag) {
		if slices.Contains(wire.SessionFlags, f.Name) {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// attachTo attaches the terminal to the session h names, starting the
// server first when start is set and none runs.
func attachTo(cmd *cobra.Command, g *globals, h wire.Hello, start bool) error {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return errors.New("attaching needs a terminal (kws ls lists the sessions without one)")
	}
	sock, err := wire.SocketPath(g.dataDir)
	if err != nil {
		return err
	}
	var c *net.UnixConn
	if start {
		c, err = launch.DialOrStart(sock, serverSpec(g))
	} else {
		c, err = wire.Dial(sock)
	}
	if err != nil {
		return err
	}
	h.Term = os.Getenv("TERM")
	e, err := wire.Attach(c, h, os.Stdin, os.Stdout)
	if err != nil {
		return err
	}
	if e.Code != 0 {
		return &exitError{code: e.Code, err: errors.New(e.Message)}
	}
	if e.Message != "" {
		fmt.Fprintln(cmd.OutOrStdout(), termsafe.Strip(e.Message))
	}
	return nil
}

// serverSpec is how this kws starts the data dir's server: this binary,
// with the API keys it holds on a pipe, never in the server's
// environment.
func serverSpec(g *globals) launch.Spec {
	s := launch.Spec{DataDir: g.dataDir, Env: os.Environ(), Keys: held}
	if g.sidecarModel != "" {
		s.Flags = []string{"--sidecar-model", g.sidecarModel}
	}
	// os.Executable fails only where /proc is missing, and then so does
	// the server: Start reports it.
	s.Exe, _ = os.Executable()
	return s
}

// request sends the server a request that needs no terminal.
func request(g *globals, h wire.Hello) ([]byte, error) {
	sock, err := wire.SocketPath(g.dataDir)
	if err != nil {
		return nil, err
	}
	c, err := wire.Dial(sock)
	if err != nil {
		return nil, &exitError{code: 1, err: err}
	}
	out, e, err := server.Request(c, h)
	if err != nil {
		return nil, err
	}
	if e.Code != 0 {
		if server.OldProtocol(e) {
			return nil, &exitError{code: e.Code, err: fmt.Errorf("%w: %s", errOldProtocol, e.Message)}
		}
		return nil, &exitError{code: e.Code, err: errors.New(e.Message)}
	}
	return out, nil
}

// errOldProtocol is request's error when the server speaks an older
// protocol version and refuses every request.
var errOldProtocol = errors.New("the server is of an older kws")

// listSessions prints kws ls: each session, its agents, who waits.
func listSessions(cmd *cobra.Command, g *globals) error {
	out, err := request(g, wire.Hello{Op: "ls"})
	if err != nil {
		return err
	}
	var list []server.SessionInfo
	if err := json.Unmarshal(out, &list); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if g.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		for _, s := range list {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	}
	printSessions(cmd.OutOrStdout(), list)
	return nil
}

// printSessions writes the session list as tmux's ls does, with each
// agent's state under its session.
func printSessions(w io.Writer, list []server.SessionInfo) {
	for _, s := range list {
		state := "detached"
		if s.Clients > 0 {
			state = fmt.Sprintf("attached: %d", s.Clients)
		}
		if s.Member != "" {
			fmt.Fprintf(w, "%s: on team member %s\n", termsafe.OneLine(s.Name), termsafe.OneLine(s.Member))
		} else {
			fmt.Fprintf(w, "%s: %s (created %s) (%s)\n", s.Name, termsafe.OneLine(s.Workspace), s.Created.Local().Format("2006-01-02 15:04"), state)
		}
		for _, a := range s.Agents {
			name := a.Name
			if a.Role != "" {
				name += " (" + termsafe.OneLine(a.Role) + ")"
			}
			if a.Waiting {
				fmt.Fprintf(w, "  ‼ %s waits for approval\n", name)
				continue
			}
			fmt.Fprintf(w, "  %-10s %s\n", termsafe.OneLine(name), termsafe.OneLine(a.State))
		}
		for _, p := range s.Waiting {
			fmt.Fprintf(w, "  ‼ pane %s (%s) asks for you\n", p.Name, termsafe.OneLine(p.Title))
		}
	}
}
