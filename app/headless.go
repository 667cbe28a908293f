package app

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/trust"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// Headless is a task run without the workstation, as kws run runs one
// when no server runs the workspace's session: one agent, built as the
// workstation's are (setup, diet, skills, sandbox, memory, MCP), runs the
// task, or goes on with a transcript, and reports through OnEvent. What
// the command owns (the vault, the sidecar and the memory, which a server
// may share; the terminal) comes as functions, called when the run needs
// them, so that a run refused early opens nothing.
type Headless struct {
	DataDir, ConfigHome string
	// Workspace is where the task runs; WorkspaceGiven says the user chose
	// it, which a resumed transcript that ran elsewhere refuses.
	Workspace      string
	WorkspaceGiven bool
	// Task is the task, or a /command (such as /context) to run instead.
	Task string
	// Resume is the id of a transcript to go on with.
	Resume string
	// Mode is the diet mode; Configure applies the command's flags over
	// the configuration; Diet holds the diet flags given.
	Mode      string
	Configure func(*config.Config)
	Diet      config.Diet
	// Yes answers every approval.
	Yes bool
	// HideEnv names variables shell commands must not see (the API key's).
	HideEnv []string
	Getenv  func(string) string
	// OpenVault opens the vault and returns what releases it.
	OpenVault func() (*vault.Vault, func(), error)
	// OpenSidecar opens the sidecar model; sidecar.ErrNoModel means none
	// is configured.
	OpenSidecar func() (sidecar.Engine, error)
	// OpenMemory opens the memory store, or says why memory is off.
	OpenMemory func() (*memory.Store, error)
	// StartMCP starts the configuration's MCP servers.
	StartMCP func(cfg config.Config, ws string) MCPClient
	// AskHooks, when set, asks the user whether to run the workspace's
	// hooks, which it describes, when they are not approved yet (kws run
	// on a terminal); a yes is recorded. Nil leaves them to kws hooks
	// trust.
	AskHooks func(what string) bool
	// Warn tells the user something that does not stop the run.
	Warn func(string)
	// OnEvent hears the agent's loop.
	OnEvent func(agent.Event)
	// Command runs a /command on the agent built for it and prints its
	// answer.
	Command func(a *Agent, command string) error
}

// HeadlessRun is how a headless run ended: its transcript (none when it
// was refused before one opened) and its status (done, error,
// interrupted).
type HeadlessRun struct {
	Transcript string
	Status     string
}

// ErrNoTask is a run given neither a task nor a transcript to resume.
var ErrNoTask = errors.New(`give a task, e.g. kws run "fix the failing test", or --resume ID`)

// RunHeadless runs h until the task ends or ctx is cancelled.
func RunHeadless(ctx context.Context, h Headless) (run HeadlessRun, err error) {
	if h.Task == "" && h.Resume == "" {
		return run, ErrNoTask
	}
	ws, sess, history, err := h.resumed()
	defer func() {
		if sess != nil {
			sess.Close()
		}
	}()
	if err != nil {
		return run, err
	}
	setup, err := LoadSetup(ws, h.ConfigHome, h.Getenv, h.Mode, h.Configure)
	for _, w := range setup.Warnings {
		h.Warn("warning: " + w)
	}
	for _, s := range setup.Skipped {
		h.Warn(s)
	}
	if err != nil {
		return run, err
	}
	cfg := setup.Config
	v, release, err := h.OpenVault()
	if err != nil {
		return run, err
	}
	defer release()
	mode := permission.Unattended
	if h.Yes || cfg.Yes {
		mode = permission.AutoAllow
	}
	sbx := OpenSandbox(h.DataDir, h.ConfigHome, cfg.Sandbox)
	command, isCommand := agent.IsCommand(h.Task)
	prompt := h.Task
	if !isCommand {
		if prompt, err = skill.ExpandInput(setup.Skills, h.Task); err != nil {
			return run, err
		}
	}
	engine, err := h.OpenSidecar()
	if err != nil && !errors.Is(err, sidecar.ErrNoModel) {
		h.Warn(termsafe.OneLine(err.Error()) + "; the heuristic engine answers")
	}
	defer CloseEngine(engine)
	spec := AgentSpec{Name: "agent", DataDir: h.DataDir, Session: sess, Title: h.Task, Workspace: ws,
		Config: cfg, Overrides: setup.Overrides, Skills: setup.Skills, Params: setup.Params, Diet: h.Diet, Vault: v,
		Broker: permission.NewBroker(mode), Sandbox: sbx.Policy, Hidden: sbx.Hidden, HideEnv: h.HideEnv,
		Router: engine, Critic: engine, Summarizer: engine, History: history, OnEvent: h.OnEvent}
	if !isCommand && len(cfg.MCP.Servers) > 0 {
		servers := h.StartMCP(cfg, ws)
		defer servers.Close()
		for _, p := range servers.Problems() {
			h.Warn(termsafe.OneLine(p))
		}
		spec.External = servers
	}
	if isCommand {
		return run, runHeadlessCommand(spec, command, h.Resume != "", h.Command)
	}
	if err := h.approveHooks(ws, cfg.Hooks); err != nil {
		h.Warn("hooks: " + termsafe.OneLine(err.Error()))
	}
	if store, err := h.OpenMemory(); err == nil {
		spec.Memory = AgentMemory(store, v, ws, ws, "agent", engine, nil)
	} else {
		h.Warn("memory off: " + termsafe.OneLine(err.Error()))
	}
	a, err := BuildAgent(spec)
	if err != nil {
		return run, err
	}
	sess = a.Session()
	defer a.WaitMemory()
	// A background job ends with the run, its output kept first; then
	// the SessionEnd hooks run.
	defer a.End("other")
	if w := sbx.Warning(a.Policy(), mode == permission.AutoAllow); w != "" {
		h.Warn(w)
	}
	return h.run(ctx, a, prompt)
}

// approveHooks asks AskHooks about the workspace's hooks in set when the
// user has not approved them as they are, and records a yes.
func (h Headless) approveHooks(ws string, set config.Hooks) error {
	if h.AskHooks == nil {
		return nil
	}
	rec := trust.Open(h.DataDir)
	ok, _, err := hooks.Approved(rec, ws, ws, set)
	if err != nil || ok || !h.AskHooks(hooks.Describe(set.Workspace())) {
		return err
	}
	return hooks.Approve(rec, ws, set)
}

// resumed opens the transcript h resumes, if any: the workspace it ran in
// (see resumeWorkspace), the transcript, which the caller closes even on
// an error, and its messages. Without Resume it is h's workspace alone.
func (h Headless) resumed() (ws string, sess *transcript.Transcript, history []provider.Message, err error) {
	if h.Resume == "" {
		return h.Workspace, nil, nil, nil
	}
	if sess, _, err = transcript.Open(h.DataDir, h.Resume); err != nil {
		if errors.Is(err, transcript.ErrNotFound) {
			return "", nil, nil, fmt.Errorf("no transcript %s in %s; kws transcripts ls lists them", h.Resume, transcript.Dir(h.DataDir))
		}
		return "", nil, nil, err
	}
	if ws, err = resumeWorkspace(sess, h.Workspace, h.WorkspaceGiven); err != nil {
		return "", sess, nil, err
	}
	history = sess.Messages()
	if len(history) == 0 && h.Task == "" {
		return "", sess, nil, nothingToResume(sess)
	}
	return ws, sess, history, nil
}

// run goes on with a resumed conversation, then runs the task's prompt,
// recording the run's status in its transcript. Every run that made a
// transcript ends by naming it, failed or not: an interrupted run is the
// one --resume is for.
func (h Headless) run(ctx context.Context, a *Agent, prompt string) (HeadlessRun, error) {
	run := HeadlessRun{Transcript: a.Session().ID()}
	record := func(status string, runErr error) {
		run.Status = status
		_ = a.SetStatus(status, runErr)
	}
	record("running", nil)
	if h.Resume != "" {
		if _, _, err := a.Resume(ctx); err != nil {
			record("error", err)
			return run, err
		}
	}
	if h.Task != "" {
		if _, err := a.Run(ctx, prompt); err != nil {
			status := "error"
			if errors.Is(err, context.Canceled) {
				status = "interrupted"
			}
			record(status, err)
			return run, err
		}
	}
	record("done", nil)
	return run, nil
}

// runHeadlessCommand runs a /command on an agent built for it: on the
// resumed transcript, or, with none, on a throwaway data dir, so that
// asking what a prompt would hold leaves no transcript behind.
func runHeadlessCommand(spec AgentSpec, command string, resumed bool, do func(a *Agent, command string) error) error {
	if !resumed {
		if command == agent.CommandCompact {
			return fmt.Errorf("%s compacts a session's conversation: give it with --resume ID (kws transcripts ls lists them)", command)
		}
		dir, err := os.MkdirTemp("", "kws-context-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		spec.DataDir = dir
	}
	a, err := BuildAgent(spec)
	if err != nil {
		return err
	}
	if !resumed {
		defer a.Session().Close()
	}
	return do(a, command)
}

// resumeWorkspace is the workspace a resumed transcript continues in: the
// one it ran in. A different workspace given explicitly is refused, so a
// resume never edits another repository with this transcript's paths.
func resumeWorkspace(s *transcript.Transcript, ws string, explicit bool) (string, error) {
	recorded := s.Run().Workspace
	switch {
	case recorded == "":
		return ws, nil
	case explicit && recorded != ws:
		return "", fmt.Errorf("session %s ran in %s, not %s; resume it there (or omit --workspace)", s.ID(), recorded, ws)
	}
	return recorded, nil
}

// nothingToResume is the error for resuming, without a new task, a
// transcript that recorded no message: it stopped before its task was
// recorded, so there is nothing to continue and its status is left as
// Open set it.
func nothingToResume(s *transcript.Transcript) error {
	task := "the task"
	if t := s.Summary().Title; t != "" {
		task = fmt.Sprintf("%q", t)
	}
	return fmt.Errorf("session %s stopped before its first message was recorded, so there is nothing to resume; run %s again with kws run, or give --resume a new task", s.ID(), task)
}
