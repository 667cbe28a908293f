package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/mcp"
	"github.com/kwsdev/kws/memory/agentmem"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// mcpServeFlags are kws mcp serve's flags.
type mcpServeFlags struct {
	http, agent, workspace string
}

// newMcpServeCmd is kws mcp serve: kws's vault, memory and task board as
// an MCP server. With a kws server running for the data dir it runs there
// (viaServer), on the stores every session shares, so the workstation
// sees what the client stores as it happens; the client's standard input
// and output stream through the server's socket for as long as the MCP
// session lasts.
func newMcpServeCmd(g *globals) *cobra.Command {
	f := &mcpServeFlags{}
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve the vault, memory and task board to an MCP client (stdio, or streamable HTTP on loopback)",
		Long: `Serve kws's context vault (ctx_get, ctx_search, vault_put), long-term memory
(memory_search, memory_save) and the swarm's task board (board_list, board_add,
board_claim, board_done) to any MCP client: Claude Code, Codex, crush, opencode.

By default the session runs over standard input and output: configure the client
to start "kws mcp serve" in the project's directory. --http ADDR serves the
streamable HTTP transport at http://ADDR/ instead, on loopback only.

When a kws server runs for the data dir, the session runs in it, on the vault and
memory every workstation session shares; otherwise kws mcp serve opens them itself.`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().StringVar(&f.http, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT) instead of stdio")
	cmd.Flags().StringVar(&f.agent, "agent", "", `name the board and the vault know the client by (default "mcp:" and the client's own name)`)
	cmd.Flags().StringVar(&f.workspace, "workspace", ".", "project directory: names memory's project scope")
	serve := g.viaServer(func(cmd *cobra.Command, _ []string) error { return runMcpServe(cmd, g, f) })
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		// A bad address is refused before the vault is opened or the
		// command goes to the server.
		if f.http != "" {
			if _, err := mcp.LoopbackAddr(f.http); err != nil {
				return err
			}
		}
		return serve(cmd, args)
	}
	return cmd
}

// runMcpServe serves one stdio session, or HTTP sessions until stopped.
func runMcpServe(cmd *cobra.Command, g *globals, f *mcpServeFlags) error {
	ws, err := app.ResolveWorkspace(g.abs(f.workspace))
	if err != nil {
		return err
	}
	cfg, release, err := g.mcpStores(cmd.ErrOrStderr(), ws, f.agent)
	if err != nil {
		return err
	}
	defer release()
	ctx := cmd.Context()
	if g.shared == nil {
		// In the server the client's going away ends the session; here
		// a signal does, and the vault is closed on the way out.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	s := mcp.NewServer(cfg)
	if f.http == "" {
		return mcp.ServeStream(ctx, s, cmd.InOrStdin(), cmd.OutOrStdout())
	}
	ln, err := mcp.ListenLoopback(f.http)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kws: serving MCP (streamable HTTP) at http://%s/ until stopped\n", ln.Addr())
	return mcp.ServeHTTP(ctx, s, ln)
}

// mcpStores assembles the MCP server's stores: the kws server's when the
// command runs in it, else the data dir's, opened here; release closes
// what was opened.
func (g *globals) mcpStores(warn io.Writer, ws, agent string) (mcp.ServerConfig, func(), error) {
	v, release, err := g.openVault()
	if errors.Is(err, vault.ErrLocked) {
		return mcp.ServerConfig{}, nil, fmt.Errorf("%w\nwithout a kws server, kws mcp serve opens the vault itself; with one (start kws), every MCP client shares it", err)
	}
	if err != nil {
		return mcp.ServerConfig{}, nil, err
	}
	cfg := mcp.ServerConfig{Vault: v, Workspace: ws, Agent: agent, Version: kwsVersion(),
		Put:   func(kind, agent string, data []byte) (string, error) { return app.Keep(v, kind, agent, data) },
		Board: swarm.NewBoard(v, nil).For}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if g.shared != nil {
		cfg.Changed, log = g.shared.Changed, g.shared.Log()
		cfg.Log = log
	}
	if store, err := g.openMemory(warn); err == nil {
		cfg.Memory = agentmem.New(agentmem.Config{Store: store, Vault: v, Workspace: ws, Agent: "mcp", Session: "mcp", Log: log})
	} else {
		fmt.Fprintf(warn, "kws: memory off: %s\n", termsafe.OneLine(err.Error()))
	}
	return cfg, release, nil
}

// kwsVersion is the module version kws was built as.
func kwsVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
