package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/mcp"
	"github.com/kwsdev/kws/termsafe"
)

// newMcpCmd is kws's Model Context Protocol command: kws as an MCP server
// for other agents (serve), and the MCP servers whose tools kws agents use
// (ls, trust).
func newMcpCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Model Context Protocol: serve kws's vault, memory and board to other agents; the servers whose tools kws agents use",
	}
	cmd.AddCommand(newMcpServeCmd(g))
	cmd.AddCommand(newMcpLsCmd(g))
	cmd.AddCommand(newMcpTrustCmd(g))
	return cmd
}

func newMcpLsCmd(g *globals) *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "Start each configured MCP server and show its state: connected with its tools, or failed with why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, cfg, err := mcpConfig(g, cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			m := startMCP(g, cfg, ws, nil, nil, nil)
			defer m.Close()
			fmt.Fprint(cmd.OutOrStdout(), termsafe.Strip(m.StatusText()))
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", ".", "workspace whose .kws/config.toml adds servers")
	return cmd
}

func newMcpTrustCmd(g *globals) *cobra.Command {
	var workspace string
	var yes bool
	cmd := &cobra.Command{
		Use:   "trust [NAME...]",
		Short: "Approve the MCP servers the workspace's .kws/config.toml adds (all of them, or those named)",
		Long: `A workspace's .kws/config.toml may add MCP servers, but kws runs or reaches one only
once you have approved exactly that for that workspace: the command with its arguments
and env, and the contents of its program and of the script files its arguments name
when they live in the workspace (an agent that edits the script makes kws ask again);
or the URL and headers of an HTTP server. A workspace's command servers run in the
sandbox, as agent commands do. kws mcp trust shows each server and asks; --yes
approves without asking.`,
		RunE: func(cmd *cobra.Command, names []string) error {
			ws, cfg, err := mcpConfig(g, cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			var pending []string
			for _, name := range slices.Sorted(maps.Keys(cfg.MCP.Servers)) {
				if s := cfg.MCP.Servers[name]; mcp.NeedsTrust(s) && (len(names) == 0 || slices.Contains(names, name)) {
					pending = append(pending, name)
				}
			}
			for _, n := range names {
				if !slices.Contains(pending, n) {
					return fail("%s is not an MCP server in %s/.kws/config.toml", n, ws)
				}
			}
			if len(pending) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "the workspace's config adds no MCP server; nothing to approve")
				return nil
			}
			trust := mcp.OpenTrust(g.dataDir)
			in := bufio.NewReader(cmd.InOrStdin())
			for _, name := range pending {
				s := cfg.MCP.Servers[name]
				line := termsafe.OneLine(mcp.Describe(s))
				if !yes && !confirm(cmd.OutOrStdout(), in, fmt.Sprintf("MCP server %s of %s is:\n  %s\napprove it for this workspace? [y/N] ", name, ws, line)) {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: not approved\n", name)
					continue
				}
				if err := trust.Approve(ws, name, s); err != nil {
					return fail("%v", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: approved: %s\n", name, line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", ".", "workspace whose .kws/config.toml adds the servers")
	cmd.Flags().BoolVar(&yes, "yes", false, "approve without asking")
	return cmd
}

// mcpConfig resolves the workspace and loads its configuration, telling
// warn what the configuration ignored.
func mcpConfig(g *globals, warn io.Writer, workspace string) (string, config.Config, error) {
	ws, err := app.ResolveWorkspace(g.abs(workspace))
	if err != nil {
		return "", config.Config{}, fail("%v", err)
	}
	cfg, _, err := config.Load(ws, getenv)
	if err != nil {
		return "", config.Config{}, fail("%v", err)
	}
	warnConfig(warn, cfg)
	return ws, cfg, nil
}

// warnConfig prints cfg's warnings on warn, stripped of the escapes a
// repository's config could put in the names they quote.
func warnConfig(warn io.Writer, cfg config.Config) {
	for _, w := range cfg.Warnings {
		fmt.Fprintf(warn, "kws: warning: %s\n", termsafe.OneLine(w))
	}
}

// startMCP starts the configured MCP servers for workspace ws, those of
// the workspace's config confined as agent commands are; ask, when set,
// approves a workspace server not approved yet; log, when set, receives
// their state changes.
func startMCP(g *globals, cfg config.Config, ws string, hideEnv []string, ask func(string, string) bool, log *slog.Logger) *mcp.Manager {
	return mcp.StartClient(mcp.ClientOptions{Servers: cfg.MCP.Servers, Workspace: ws, LogDir: mcp.LogDir(g.dataDir),
		Trust: mcp.OpenTrust(g.dataDir), Ask: ask, HideEnv: append([]string{cfg.APIKeyEnv}, hideEnv...),
		Sandbox: app.OpenSandbox(g.dataDir, configHome(), cfg.Sandbox).Policy, Log: log})
}

// terminalAsk asks on the terminal whether to run a workspace server's
// command, or is nil when kws does not run on one.
func terminalAsk(out io.Writer) func(string, string) bool {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	in := bufio.NewReader(os.Stdin)
	// Servers start concurrently; one question at a time.
	var mu sync.Mutex
	return func(name, line string) bool {
		mu.Lock()
		defer mu.Unlock()
		return confirm(out, in, fmt.Sprintf("kws: the workspace's .kws/config.toml adds the MCP server %s:\n  %s\nuse it (approved for this workspace from now on)? [y/N] ", name, termsafe.OneLine(line)))
	}
}

// confirm prints question and reads a yes.
func confirm(out io.Writer, in *bufio.Reader, question string) bool {
	fmt.Fprint(out, question)
	answer, _ := in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}
