package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/termsafe"
)

type runFlags struct {
	baseURL, model, apiKeyEnv, workspace, resume, mode string
	yes                                                bool
	// diet holds the --trigger-tokens, --recent, --min-block-chars, --compact-at
	// and --compact-model flags that were given.
	diet config.Diet
}

func newRunCmd(g *globals) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   `run [flags] "task"`,
		Short: "Run one agent task and stream its answer to stdout (--json: one event per line)",
		Long: `Run one task with the coding agent and stream its answer. While a kws server runs a
session in the workspace, the task runs there as a new agent of that session, in its own pane, on
the session's model (--yes answers its approvals; the flags that change the model or the diet are
refused); otherwise it runs headless, here. The model comes from
~/.config/kws/config.toml, then .kws/config.toml in the workspace, then KWS_BASE_URL,
KWS_MODEL, KWS_API_KEY (OPENAI_BASE_URL / OPENAI_API_KEY as fallbacks), then flags.
Shell commands and file writes need approval: pass --yes to allow them all, or allow
tools in your own ~/.config/kws/config.toml (a workspace's .kws/config.toml can only
tighten permissions); otherwise they are denied and the model is told so.
--resume ID continues a session after a crash or kill; with a task it adds a new turn.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			events := newEventPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), g.json)
			err := runTask(cmd, g, f, strings.Join(args, " "), events)
			if err != nil {
				events.refused(err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	g.sidecarFlag(fl)
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (e.g. http://localhost:11434/v1)")
	fl.StringVar(&f.model, "model", "", "model name")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "read the API key from this environment variable")
	fl.StringVar(&f.workspace, "workspace", ".", "workspace directory the tools work in")
	fl.StringVar(&f.resume, "resume", "", "session id to continue")
	fl.StringVar(&f.mode, "mode", "", "diet mode: "+strings.Join(diet.Modes, ", "))
	fl.BoolVar(&f.yes, "yes", false, "allow every tool call without asking")
	dietFlags(cmd, &f.diet)
	return cmd
}

// fail is a one-line reason on stderr and exit status 1. The reason often
// quotes a server or a model (an error body, a tool name), so it is made
// safe to print: no escape sequences, no control characters, one line.
func fail(format string, args ...any) error {
	return &exitError{code: 1, err: errors.New(termsafe.OneLine(fmt.Sprintf(format, args...)))}
}

func runTask(cmd *cobra.Command, g *globals, f *runFlags, task string, events *eventPrinter) error {
	if task == "" && f.resume == "" {
		return fail("%v", app.ErrNoTask)
	}
	ws, err := app.ResolveWorkspace(g.abs(f.workspace))
	if err != nil {
		return fail("%v", err)
	}
	if g.shared != nil {
		return runInSession(cmd, g, f, ws, task, events)
	}
	stderr := cmd.ErrOrStderr()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := app.RunHeadless(ctx, app.Headless{DataDir: g.dataDir, ConfigHome: configHome(),
		Workspace: ws, WorkspaceGiven: cmd.Flags().Changed("workspace"), Task: task, Resume: f.resume,
		Mode: f.mode, Configure: func(cfg *config.Config) { applyRunFlags(cfg, f) }, Diet: f.diet, Yes: f.yes,
		HideEnv: []string{f.apiKeyEnv}, Getenv: getenv,
		OpenVault:   g.openVault,
		OpenSidecar: func() (sidecar.Engine, error) { return g.openSidecar(stderr) },
		OpenMemory:  func() (*memory.Store, error) { return g.openMemory(stderr) },
		StartMCP: func(cfg config.Config, ws string) app.MCPClient {
			return startMCP(g, cfg, ws, []string{f.apiKeyEnv}, terminalAsk(stderr), nil)
		},
		AskHooks: terminalHooksAsk(stderr),
		Warn:     func(msg string) { fmt.Fprintln(stderr, "kws: "+msg) },
		OnEvent:  events.print,
		Command:  func(a *app.Agent, command string) error { return runCommand(cmd.OutOrStdout(), g.json, a, command) },
	})
	if run.Transcript != "" {
		events.finish(run.Transcript, run.Status)
	}
	if err != nil {
		return fail("%v", err)
	}
	return nil
}

func applyRunFlags(cfg *config.Config, f *runFlags) {
	if f.baseURL != "" {
		cfg.BaseURL = f.baseURL
	}
	if f.model != "" {
		cfg.Model = f.model
	}
	if f.apiKeyEnv != "" {
		cfg.APIKey = getenv(f.apiKeyEnv)
	}
}

// abs resolves a relative path the command was given against the
// directory it was typed in: the client's, when it runs in the server.
func (g *globals) abs(path string) string {
	if g.cwd == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(g.cwd, path)
}

func configHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config")
}
