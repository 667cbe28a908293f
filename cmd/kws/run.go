package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
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
		return fail("give a task, e.g. kws run \"fix the failing test\", or --resume ID")
	}
	ws, err := app.ResolveWorkspace(g.abs(f.workspace))
	if err != nil {
		return fail("%v", err)
	}
	if g.shared != nil {
		return runInSession(cmd, g, f, ws, task, events)
	}
	var sess *transcript.Transcript
	var history []provider.Message
	defer func() {
		if sess != nil {
			sess.Close()
		}
	}()
	if f.resume != "" {
		if sess, _, err = transcript.Open(g.dataDir, f.resume); err != nil {
			if errors.Is(err, transcript.ErrNotFound) {
				return fail("no transcript %s in %s; kws transcripts ls lists them", f.resume, transcript.Dir(g.dataDir))
			}
			return fail("%v", err)
		}
		if ws, err = resumeWorkspace(sess, ws, cmd.Flags().Changed("workspace")); err != nil {
			return fail("%v", err)
		}
		history = sess.Messages()
		if len(history) == 0 && task == "" {
			return fail("%v", nothingToResume(sess))
		}
	}
	setup, err := app.LoadSetup(ws, configHome(), getenv, f.mode, func(cfg *config.Config) { applyRunFlags(cfg, f) })
	for _, w := range setup.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "kws: warning: "+w)
	}
	for _, s := range setup.Skipped {
		fmt.Fprintln(cmd.ErrOrStderr(), "kws: "+s)
	}
	if err != nil {
		return fail("%v", err)
	}
	cfg := setup.Config
	v, release, err := g.openVault()
	if err != nil {
		return fail("%v", err)
	}
	defer release()
	mode := permission.Unattended
	if f.yes || cfg.Yes {
		mode = permission.AutoAllow
	}
	sbx := app.OpenSandbox(g.dataDir, configHome(), cfg.Sandbox)
	skills := setup.Skills
	command, isCommand := agent.IsCommand(task)
	prompt := task
	if !isCommand {
		if prompt, err = skill.ExpandInput(skills, task); err != nil {
			return fail("%v", err)
		}
	}
	engine, err := g.openSidecar(cmd.ErrOrStderr())
	if err != nil && !errors.Is(err, sidecar.ErrNoModel) {
		fmt.Fprintf(cmd.ErrOrStderr(), "kws: %s; the heuristic engine answers\n", termsafe.OneLine(err.Error()))
	}
	defer app.CloseEngine(engine)
	spec := app.AgentSpec{Name: "agent", DataDir: g.dataDir, Session: sess, Title: task, Workspace: ws,
		Config: cfg, Overrides: setup.Overrides, Skills: skills, Params: setup.Params, Diet: f.diet, Vault: v, Broker: permission.NewBroker(mode),
		Sandbox: sbx.Policy, Hidden: sbx.Hidden, HideEnv: []string{f.apiKeyEnv}, Router: engine, Critic: engine, Summarizer: engine, History: history, OnEvent: events.print}
	if !isCommand && len(cfg.MCP.Servers) > 0 {
		servers := startMCP(g, cfg, ws, []string{f.apiKeyEnv}, terminalAsk(cmd.ErrOrStderr()), nil)
		defer servers.Close()
		servers.Started()
		reportMCP(cmd.ErrOrStderr(), servers)
		spec.External = servers
	}
	if isCommand {
		return runCommandTask(cmd, g, spec, command, f.resume != "")
	}
	if store, err := g.openMemory(cmd.ErrOrStderr()); err == nil {
		spec.Memory = app.AgentMemory(store, v, ws, ws, "agent", engine, nil)
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "kws: memory off: %s\n", termsafe.OneLine(err.Error()))
	}
	a, err := app.BuildAgent(spec)
	if err != nil {
		return fail("%v", err)
	}
	sess = a.Session()
	defer a.WaitMemory()
	// A background job ends with the run; its output is kept first.
	defer a.EndJobs()
	if w := sbx.Warning(a.Policy(), mode == permission.AutoAllow); w != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "kws: "+w)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Every run that made a session ends by naming it, failed or not: an
	// interrupted run is the one --resume is for.
	status := "running"
	record := func(s string, runErr error) {
		status = s
		_ = a.SetStatus(s, runErr)
	}
	defer func() { events.finish(sess.ID(), status) }()
	record("running", nil)
	if f.resume != "" {
		if _, resumed, err := a.Resume(ctx); err != nil || !resumed && task == "" {
			if err != nil {
				record("error", err)
				return fail("%v", err)
			}
		}
	}
	if task != "" {
		if _, err := a.Run(ctx, prompt); err != nil {
			status := "error"
			if errors.Is(err, context.Canceled) {
				status = "interrupted"
			}
			record(status, err)
			return fail("%v", err)
		}
	}
	record("done", nil)
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

// resumeWorkspace is the workspace a resumed session continues in: the one
// it ran in. A different --workspace given explicitly is refused, so a
// resume never edits another repository with this transcript's paths.
func resumeWorkspace(s *transcript.Transcript, flagWS string, explicit bool) (string, error) {
	recorded := s.Run().Workspace
	switch {
	case recorded == "":
		return flagWS, nil
	case explicit && recorded != flagWS:
		return "", fmt.Errorf("session %s ran in %s, not %s; resume it there (or omit --workspace)", s.ID(), recorded, flagWS)
	}
	return recorded, nil
}

// nothingToResume is the error for resuming, without a new task, a session
// that recorded no message: it stopped before its task was recorded, so
// there is nothing to continue and its status is left as Open set it.
func nothingToResume(s *transcript.Transcript) error {
	task := "the task"
	if t := s.Summary().Title; t != "" {
		task = fmt.Sprintf("%q", t)
	}
	return fmt.Errorf("session %s stopped before its first message was recorded, so there is nothing to resume; run %s again with kws run, or give --resume a new task", s.ID(), task)
}

func configHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config")
}
