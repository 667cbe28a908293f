package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/mcp"
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
streamable HTTP transport at http://ADDR/ instead, on loopback only, to clients
that send "Authorization: Bearer TOKEN". The token is made the first time and
kept in DATA/mcp-http.token (mode 0600); it is printed that once.

Memory saves and board changes follow the permissions of your own config, as the
model's own memory_save and todo do; one that would ask is refused, since no one
is there to approve it.

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
	ws, conf, err := mcpConfig(g, cmd.ErrOrStderr(), f.workspace)
	if err != nil {
		return err
	}
	cfg, release, err := g.mcpStores(cmd.ErrOrStderr(), ws, f.agent)
	if err != nil {
		return err
	}
	defer release()
	policy := permission.DefaultPolicy()
	if err := policy.Apply(conf.Permissions, nil); err != nil {
		return err
	}
	cfg.Allow = mcpAllow(policy)
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
	token, fresh, err := mcpToken(g.dataDir)
	if err != nil {
		return err
	}
	ln, err := mcp.ListenLoopback(f.http)
	if err != nil {
		return err
	}
	file := filepath.Join(g.dataDir, mcpTokenFile)
	if fresh {
		fmt.Fprintf(cmd.ErrOrStderr(), "kws: made the MCP token, kept in %s and shown only now; clients send\n  Authorization: Bearer %s\n", file, token)
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "kws: clients send \"Authorization: Bearer TOKEN\" with the token in %s\n", file)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kws: serving MCP (streamable HTTP) at http://%s/ until stopped\n", ln.Addr())
	return mcp.ServeHTTP(ctx, s, ln, token)
}

// mcpTokenFile is the data dir's file holding kws mcp serve --http's
// bearer token.
const mcpTokenFile = "mcp-http.token"

// mcpToken returns the bearer token of kws mcp serve --http: made (32
// random bytes in hex) and written 0600 the first time, when fresh is
// true. A token file another user owns, or others may read, is refused.
func mcpToken(dataDir string) (token string, fresh bool, err error) {
	path := filepath.Join(dataDir, mcpTokenFile)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", false, err
		}
		token = hex.EncodeToString(b)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return "", false, fmt.Errorf("MCP token: %w", err)
		}
		if _, err := f.WriteString(token + "\n"); err != nil {
			f.Close()
			os.Remove(path)
			return "", false, fmt.Errorf("MCP token: %w", err)
		}
		return token, true, f.Close()
	}
	if err != nil {
		return "", false, fmt.Errorf("MCP token: %w", err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return "", false, fmt.Errorf("MCP token: %w", err)
	}
	if int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return "", false, fmt.Errorf("MCP token: %s must be a file of yours that only you can read (mode 0600); remove it and a new token is made", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", false, fmt.Errorf("MCP token: %w", err)
	}
	if token = strings.TrimSpace(string(b)); len(token) < 32 {
		return "", false, fmt.Errorf("MCP token: %s holds no token; remove it and a new one is made", path)
	}
	return token, false, nil
}

// mcpAllow decides an MCP client's memory saves and board changes by the
// user's permissions for the model's own tools: memory_save for
// memory_save, todo for the board's. Where they would ask, the call is
// refused: no one watches an MCP session to approve it.
func mcpAllow(policy *permission.Policy) func(string) error {
	return func(tool string) error {
		as := tool
		if strings.HasPrefix(tool, "board_") {
			as = "todo"
		}
		t, ok := tools.ByName(as)
		if !ok {
			return fmt.Errorf("%s: no permission to check", tool)
		}
		switch policy.Decide(as, t.Access(), "") {
		case permission.Allow:
			return nil
		case permission.Deny:
			return fmt.Errorf("%s is denied by your permissions (%s = \"deny\")", tool, as)
		}
		return fmt.Errorf("%s needs approval (%s = \"ask\" in your permissions), and no one can approve an MCP client's call: allow %s in ~/.config/kws/config.toml to let clients do it", tool, as, as)
	}
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
		Board: swarm.NewBoard(g.boardStore(v), nil).For}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if g.shared != nil {
		cfg.Changed, log = g.shared.Changed, g.shared.Log()
		cfg.Log = log
	}
	if store, err := g.openMemory(warn); err == nil {
		cfg.Memory = app.AgentMemory(store, v, ws, "", "mcp", nil, log)("mcp")
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
