package main

import (
	"cmp"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/server/wire"
)

// wsFlags are the workstation's flags on the root command.
type wsFlags struct {
	theme, workspace, shell, emulator string
	// worktree gives each agent its own git worktree and branch.
	worktree bool
}

// flags are the workstation flags as the app package takes them.
func (f *wsFlags) flags() app.Flags {
	return app.Flags{Theme: f.theme, Workspace: f.workspace, Shell: f.shell, Emulator: f.emulator, Worktree: f.worktree}
}

// runWorkstation attaches the terminal to the workspace's session in the
// data dir's server, starting the server and the session when they are
// missing. Without a terminal it prints the overview instead.
func runWorkstation(cmd *cobra.Command, g *globals, f *wsFlags) error {
	if !term.IsTerminal(int(os.Stdout.Fd())) || !term.IsTerminal(int(os.Stdin.Fd())) {
		return overview(cmd, g)
	}
	ws, err := app.ResolveWorkspace(cmp.Or(f.workspace, "."))
	if err != nil {
		return err
	}
	return attachTo(cmd, g, wire.Hello{Mode: "default", Workspace: ws, Args: sessionArgs(cmd.Flags())}, true)
}

// storeOptions are what the app package opens the data dir's stores
// with: the global flags, the llama.cpp loader, the held API keys and
// cfg, the first workspace's configuration; logName is the log's path
// under the data dir.
func (g *globals) storeOptions(cfg config.Config, logName string) app.Options {
	return app.Options{DataDir: g.dataDir, LogName: logName, Config: cfg, SidecarModel: g.sidecarModel,
		SidecarLoader: sidecarLoader, EmbedLoader: embedLoader, Socket: g.socket, ConfigHome: configHome(), Getenv: getenv,
		MCP: func(cfg config.Config, ws string, log *slog.Logger) app.MCPClient {
			return startMCP(g, cfg, ws, nil, nil, log)
		}}
}
