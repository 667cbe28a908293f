package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/internal/trust"
	"github.com/kwsdev/kws/termsafe"
)

// newHooksCmd is the lifecycle hooks command: what is configured (ls) and
// the approval of a workspace's hooks (trust).
func newHooksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Lifecycle hooks (Claude Code's contract): list them, approve a workspace's",
	}
	cmd.AddCommand(newHooksLsCmd(g), newHooksTrustCmd(g))
	return cmd
}

// hookLine is one configured hook command, as kws hooks ls --json prints it.
type hookLine struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout_sec"`
	// Source is "user" (~/.config/kws/config.toml) or "workspace".
	Source string `json:"source"`
}

func newHooksLsCmd(g *globals) *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the configured hooks, yours and the workspace's, and whether the workspace's are approved",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, cfg, err := mcpConfig(g, cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			var lines []hookLine
			for _, event := range slices.Sorted(maps.Keys(cfg.Hooks)) {
				for _, m := range cfg.Hooks[event] {
					source := "user"
					if m.Workspace {
						source = "workspace"
					}
					for _, h := range m.Hooks {
						lines = append(lines, hookLine{Event: event, Matcher: m.Matcher, Command: h.Command,
							Timeout: int(h.TimeoutOrDefault().Seconds()), Source: source})
					}
				}
			}
			out := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(out)
				for _, l := range lines {
					if err := enc.Encode(l); err != nil {
						return err
					}
				}
				return nil
			}
			if len(lines) == 0 {
				fmt.Fprintln(out, "no hooks configured ([[hooks.EVENT]] in ~/.config/kws/config.toml or the workspace's .kws/config.toml)")
				return nil
			}
			for _, l := range lines {
				fmt.Fprintf(out, "%-9s %-17s %-12s %s (%ds)\n", l.Source, l.Event, termsafe.OneLine(l.Matcher), termsafe.OneLine(l.Command), l.Timeout)
			}
			if len(cfg.Hooks.Workspace()) > 0 {
				ok, changed, err := hooks.Approved(trust.Open(g.dataDir), ws, ws, cfg.Hooks)
				switch {
				case err != nil:
					return fail("%v", err)
				case ok:
					fmt.Fprintln(out, "the workspace's hooks are approved")
				case changed:
					fmt.Fprintln(out, "the workspace's hooks changed since you approved them and do not run; kws hooks trust approves them again")
				default:
					fmt.Fprintln(out, "the workspace's hooks are not approved and do not run; kws hooks trust approves them")
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", ".", "workspace whose .kws/config.toml adds hooks")
	return cmd
}

func newHooksTrustCmd(g *globals) *cobra.Command {
	var workspace string
	var yes bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Approve the hooks the workspace's .kws/config.toml adds",
		Long: `A workspace's .kws/config.toml may add hooks, but kws runs them only once you
have approved them for that workspace: all of them at once, as they are (events,
matchers, commands, timeouts) with the contents of the files their command lines
name in the workspace (an agent that edits the script makes kws stop running them
until you approve again). They run in the sandbox, as agent commands do.
kws hooks trust shows them and asks; --yes approves without asking.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, cfg, err := mcpConfig(g, cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			added := cfg.Hooks.Workspace()
			out := cmd.OutOrStdout()
			if len(added) == 0 {
				fmt.Fprintln(out, "the workspace's config adds no hook; nothing to approve")
				return nil
			}
			what := termsafe.Strip(hooks.Describe(added))
			question := fmt.Sprintf("the hooks of %s are:\n  %s\napprove them for this workspace? [y/N] ", ws, strings.ReplaceAll(what, "\n", "\n  "))
			if !yes && !confirm(out, bufio.NewReader(cmd.InOrStdin()), question) {
				fmt.Fprintln(out, "not approved")
				return nil
			}
			if err := hooks.Approve(trust.Open(g.dataDir), ws, cfg.Hooks); err != nil {
				return fail("%v", err)
			}
			fmt.Fprintln(out, "approved")
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", ".", "workspace whose .kws/config.toml adds the hooks")
	cmd.Flags().BoolVar(&yes, "yes", false, "approve without asking")
	return cmd
}

// terminalHooksAsk asks on the terminal whether to run the workspace's
// hooks, or is nil when kws does not run on one.
func terminalHooksAsk(out io.Writer) func(string) bool {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return func(what string) bool {
		return confirm(out, bufio.NewReader(os.Stdin), fmt.Sprintf("kws: the workspace's .kws/config.toml adds hooks, which run code:\n  %s\nrun them (approved for this workspace from now on)? [y/N] ",
			strings.ReplaceAll(termsafe.Strip(what), "\n", "\n  ")))
	}
}
