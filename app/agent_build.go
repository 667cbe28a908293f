package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/checkpoint"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/trust"
	"github.com/kwsdev/kws/sandbox"
)

// Memory is one agent's memory as the assembly wires it: the agent
// recalls from it and saves to it, and it learns from the agent's events.
type Memory interface {
	agent.Memory
	// Watch returns an event handler that learns from each event, then
	// passes it on to next (which may be nil).
	Watch(next func(agent.Event)) func(agent.Event)
	// Wait returns when what it learned in the background is saved.
	Wait()
}

// AgentSpec is everything one agent is assembled from. The caller opens
// the shared stores (vault, memory, sidecar, broker) and reads the
// configuration; BuildAgent turns them into the agent, its session, policy and
// system prompt.
type AgentSpec struct {
	// Name is the agent's name: "agent" for kws run, "agent-2" in the
	// workstation.
	Name string
	// DataDir holds the sessions. Session, when set, is the session to
	// continue (kws run --resume); else BuildAgent creates one titled Title.
	DataDir string
	Session *transcript.Transcript
	Title   string
	// Workspace is the project's directory, recorded in the session; Dir,
	// when set, is where the agent works instead (its git worktree).
	Workspace, Dir string
	// Config gives the model's endpoint and key, the permissions, the
	// shell commands allowed without asking and the key's variable.
	Config config.Config
	// Overrides are the workspace's model profile overrides.
	Overrides []profile.Profile
	// Local, when set, is the model in local-only mode: no remote model is
	// configured, so a role's own model is not used.
	Local *Model
	// WrapClient, when set, wraps the remote model's client, such as the
	// swarm's limit on concurrent calls.
	WrapClient func(provider.Client) provider.Client
	// Role names the agent's role among skill.Roles(Skills), or is "".
	// Its prompt joins the system prompt, and its model, when it names one,
	// replaces Config.Model on the same endpoint, with its own profile.
	Role string
	// Skills are the loaded skills: the roles come from them, and the
	// agent's skill tool offers them.
	Skills []skill.Skill
	// Params are the diet mode's parameters; Diet, the session's own
	// diet settings (kws run's flags), replaces them over the
	// configuration's and the role's (see dietSettings).
	Params diet.Params
	Diet   config.Diet
	Vault  agent.Vault
	Broker *permission.Broker
	// Sandbox confines the agent's shell commands; nil runs them
	// unconfined, and then every shell command asks, whatever its prefix.
	Sandbox *sandbox.Policy
	// HideEnv names variables hidden from shell commands besides
	// Config.APIKeyEnv.
	HideEnv []string
	// Hidden are paths the agent's file tools refuse (agent.Config.Hidden).
	Hidden []string
	Router agent.Router
	Critic agent.Critic
	// Summarizer writes the gist a compaction adds when the diet settings
	// say compact_model = "sidecar" (the sidecar, as Router and Critic).
	Summarizer agent.Summarizer
	// History is a resumed transcript.
	History []provider.Message
	OnEvent func(agent.Event)
	// Memory, when set, returns the agent's memory for its session id;
	// nil leaves memory off.
	Memory func(sessionID string) Memory
	// External, when set, gives the agent tools from outside kws: the
	// configured MCP servers' tools (package mcp's Manager).
	External External
	// Board, Mailbox and Notices connect a swarm's agent to the others.
	Board   tools.Board
	Mailbox tools.Mailbox
	Notices func() []string
}

// External is a source of tools from outside kws, such as the MCP
// servers' tools.
type External interface {
	// Groups are the tools as they are now, by source; the agent asks
	// again before each model call, so tools that appear later are used.
	Groups() []tools.Group
	// Permissions are their configured policies in the form of the
	// permissions table (a name, or a prefix ending in "*"); the config's
	// own permissions table wins over them.
	Permissions() map[string]string
	// Prompt is the system prompt section that names them, or "".
	Prompt() string
	// Missing says why a tool name the model called is not among the
	// tools now (its source is not connected, and why), or "" when the
	// name is none of theirs.
	Missing(name string) string
}

// Agent is an assembled agent: the agent loop with its session, and the
// profile and diet parameters it runs with, which it records with its
// totals in the session's run.json.
type Agent struct {
	*agent.Agent
	sess *transcript.Transcript
	// rewind works on the agent's checkpoints; its tracker is nil when the
	// vault keeps none (a vault of the tests').
	rewind    rewinding
	workspace string
	prof      profile.Profile
	params    diet.Params
	policy    *permission.Policy
	mem       Memory
}

// BuildAgent assembles the agent spec describes and records its run. A session
// BuildAgent created is closed again when it fails; one passed in is left to
// the caller.
func BuildAgent(spec AgentSpec) (*Agent, error) {
	m, sections, err := spec.model()
	if err != nil {
		return nil, err
	}
	params, dietCfg, err := spec.dietSettings()
	if err != nil {
		return nil, err
	}
	if dietCfg.CompactModel == config.CompactSidecar && spec.Summarizer == nil {
		return nil, errors.New("diet.compact_model = \"sidecar\", but this agent has no sidecar to write the gist")
	}
	dir := spec.Dir
	if dir == "" {
		dir = spec.Workspace
	}
	policy := permission.DefaultPolicy()
	// A prefix is only as safe as the sandbox behind it: unconfined,
	// every shell command asks.
	policy.Workspace, policy.Unsandboxed = dir, spec.Sandbox == nil
	var external func() []tools.Group
	var missing func(string) string
	if spec.External != nil {
		if err := policy.Apply(spec.External.Permissions(), nil); err != nil {
			return nil, err
		}
		external, missing = spec.External.Groups, spec.External.Missing
		sections = append(sections, spec.External.Prompt())
	}
	if err := policy.Apply(spec.Config.Permissions, spec.Config.ShellAllow); err != nil {
		return nil, err
	}
	sess, created := spec.Session, false
	if sess == nil {
		if sess, err = newSession(spec.DataDir, spec.Workspace, spec.Title); err != nil {
			return nil, err
		}
		created = true
	}
	var mem Memory
	cfg := agent.Config{Name: spec.Name, Workspace: dir, Client: m.Client, Model: m.Name, Profile: m.Profile,
		Diet: params, Vault: spec.Vault, SessionID: sess.ID(), Recorder: agent.SessionRecorder(sess), Policy: policy, Broker: spec.Broker,
		SystemPrompt: agent.SystemPromptWith(sections...), History: spec.History, OnEvent: spec.OnEvent,
		HideEnv: nonEmpty(append([]string{spec.Config.APIKeyEnv}, spec.HideEnv...)), Router: spec.Router, Critic: spec.Critic,
		Sandbox: spec.Sandbox, Hidden: spec.Hidden, Board: spec.Board, Mailbox: spec.Mailbox, Notices: spec.Notices, Skills: spec.Skills,
		External: external, ExternalMissing: missing}
	if spec.Memory != nil {
		mem = spec.Memory(sess.ID())
		cfg.Memory, cfg.OnEvent = mem, mem.Watch(cfg.OnEvent)
	}
	if dietCfg.CompactAt != nil {
		cfg.CompactAt = *dietCfg.CompactAt
	}
	if dietCfg.CompactModel == config.CompactSidecar {
		cfg.CompactGist = spec.Summarizer
	}
	cfg.Hooks = spec.hooks(dir, sess, policy, cfg.HideEnv)
	a := &Agent{sess: sess, workspace: spec.Workspace, prof: m.Profile, params: params, policy: policy, mem: mem,
		rewind: rewinding{sess: sess, dataDir: spec.DataDir}}
	if store, ok := spec.Vault.(checkpoint.Store); ok {
		// Before each turn's first change and after each call that may
		// change files, the agent's files go to the vault (see /rewind).
		if a.rewind.tracker, err = checkpoint.NewTracker(store, dir, spec.Name, sess.ID()); err != nil {
			if created {
				err = errors.Join(err, sess.Close())
			}
			return nil, err
		}
		cfg.Checkpoints = a.rewind.tracker
	}
	if a.Agent, err = agent.New(cfg); err == nil {
		err = a.Record()
	}
	if err != nil {
		if created {
			err = errors.Join(err, sess.Close())
		}
		return nil, err
	}
	return a, nil
}

// hooks is the agent's hooks runner, or nil without hooks: run in dir
// (the workspace or the agent's worktree), confined as its shell commands
// are, with the host's network when the user's own config lets its shell
// commands have it without asking; the workspace's hooks only once the
// user approved them in the data dir's trust record.
func (spec AgentSpec) hooks(dir string, sess *transcript.Transcript, policy *permission.Policy, hideEnv []string) *hooks.Runner {
	return hooks.New(hooks.Options{Hooks: spec.Config.Hooks, Dir: dir, Workspace: spec.Workspace,
		Trust: trust.Open(spec.DataDir), SessionID: sess.ID(), Agent: spec.Name, Role: spec.Role,
		TranscriptPath: filepath.Join(transcript.Dir(spec.DataDir), sess.ID(), transcript.RawFile),
		Sandbox:        spec.Sandbox, HideEnv: hideEnv,
		Network: policy.Decide(tools.NetworkPermission, tools.Executes, "") == permission.Allow})
}

// newSession creates a session for workspace. Its title names the task at
// once, so a run killed before its first record still says which task it
// lost.
func newSession(dataDir, workspace, title string) (*transcript.Transcript, error) {
	sess, err := transcript.Create(dataDir, workspace)
	if err != nil || title == "" {
		return sess, err
	}
	if err := sess.SetSummary(func(s *transcript.Summary) { s.Title = transcript.Title(title) }); err != nil {
		return nil, errors.Join(err, sess.Close())
	}
	return sess, nil
}

// Run runs one user turn, then records the run with its new totals; a
// failure to record joins the turn's own error.
func (a *Agent) Run(ctx context.Context, task string) (string, error) {
	answer, err := a.Agent.Run(ctx, task)
	return answer, errors.Join(err, a.Record())
}

// Record writes the session's run.json: the workspace, the profile, the
// diet parameters and the totals so far.
func (a *Agent) Record() error {
	return a.sess.SetRun(func(r *transcript.Run) {
		r.Workspace, r.Profile, r.Params = a.workspace, a.prof, a.params
		t := a.Totals()
		r.Totals = transcript.Totals{NaiveTokens: t.NaiveTokens, SentTokens: t.SentTokens,
			PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, Calls: t.Calls,
			PageFaults: t.PageFaults, Compactions: t.Compactions, ToolCalls: t.ToolCalls}
	})
}

// SetStatus records the run and sets the session's status (one of the
// transcript.Status values) and, when runErr is not nil, its last error.
func (a *Agent) SetStatus(status string, runErr error) error {
	return errors.Join(a.Record(), a.sess.SetSummary(func(s *transcript.Summary) {
		s.Status = status
		if runErr != nil {
			s.LastError = runErr.Error()
		}
	}))
}

// Rewind answers a /rewind line (see RewindRequest) between the agent's
// turns; when it rewound the conversation it returns the forked session,
// which the agent continues once restarted on it.
func (a *Agent) Rewind(line string) (reply, fork string, err error) {
	if a.rewind.tracker == nil {
		return "", "", errors.New("this agent keeps no checkpoints")
	}
	r, err := ParseRewind(strings.Fields(strings.TrimPrefix(line, agent.CommandRewind)))
	if err != nil {
		return "", "", err
	}
	return a.rewind.do(r)
}

// Session returns the agent's session; the caller closes it once the
// agent has stopped.
func (a *Agent) Session() *transcript.Transcript { return a.sess }

// WaitMemory returns when what the agent's memory learned in the
// background is saved (at once when it has none).
func (a *Agent) WaitMemory() {
	if a.mem != nil {
		a.mem.Wait()
	}
}

// Policy returns the agent's permission policy.
func (a *Agent) Policy() *permission.Policy { return a.policy }

// nonEmpty returns the non-empty strings of xs.
func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
