// Package agent runs the coding-agent loop: it builds each prompt (system
// prompt with the ref decoder, pinned project instructions, the dieted
// history), calls the model, answers page faults from the vault, runs tools
// behind permissions, compacts without lying when the window fills, and
// records everything in the session.
package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/hooks"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/sandbox"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/vault"
)

//go:embed system.md
var defaultSystem string

// Loop limits per user turn.
const (
	defaultMaxSteps    = 60
	defaultMaxFaults   = 8
	defaultMaxInjected = 256 << 10
)

// Vault is what the agent needs of the vault.
type Vault interface {
	diet.Store
	Search(query string, k int) ([]vault.Hit, error)
	Meta(id string) (vault.Meta, error)
	AppendStats(events ...vault.DietEvent) error
}

// Recorder is what the agent needs of the session store.
type Recorder interface {
	AppendMessage(m provider.Message) error
	AppendEvent(typ string, data any) error
	RecordCall(messages []provider.Message, tools []string, usage provider.Usage, attempts int) error
}

// Router judges whether a user turn wants a direct answer, which decides
// the dynamic tool schemas; the sidecar is one.
type Router interface {
	Route(ctx context.Context, turn string) (sidecar.Route, error)
}

// Critic writes a risk note on a call the user is asked to approve; the
// sidecar is one.
type Critic interface {
	Critique(ctx context.Context, tool, preview string) (string, error)
}

// Memory is what the agent needs of long-term memory: a <memory> hint block
// recalled for a user turn, each user turn to learn from, and search and
// save for the memory tools.
type Memory interface {
	tools.MemoryStore
	// Recall returns the hint block for the turn, or "" when nothing is
	// relevant.
	Recall(ctx context.Context, turn string) (string, error)
	// Observe offers a user turn as a source of memories; index is the
	// turn's number in the session, from 1.
	Observe(ctx context.Context, turn string, index int)
}

// Config wires one agent.
type Config struct {
	Name      string
	Workspace string
	Client    provider.Client
	Model     string
	Profile   profile.Profile
	Diet      diet.Params
	Vault     Vault
	// SessionID labels the blocks the diet keeps (with Name), so a search
	// knows which conversation asks and "N messages ago" counts in it.
	SessionID string
	Recorder  Recorder
	Policy    *permission.Policy
	Broker    *permission.Broker
	// Tools are the tools offered; nil means every tool, and the skill
	// tool when Skills holds a skill the model may invoke.
	Tools []tools.Tool
	// External, when set, returns the tools from outside kws as they are
	// now (the MCP servers' tools, which appear once their server has
	// connected), by group: they are offered besides Tools, tool_expand
	// offers them on a direct-answer turn, and a model may call one by
	// name.
	External func() []tools.Group
	// ExternalMissing, when set, says why a tool name the model called is
	// not among External's tools (its MCP server is not connected, and
	// why), or "" when the name is none of theirs.
	ExternalMissing func(name string) string
	// Skills are the skills the skill tool offers; read_file may also
	// open the files of the folder skills among them.
	Skills []skill.Skill
	// SystemPrompt replaces the built-in system prompt when set.
	SystemPrompt string
	// HideEnv names environment variables tools must not pass to shell
	// commands (the one holding the API key).
	HideEnv []string
	// Sandbox, when set, confines the agent's shell commands (see
	// tools.Env.Sandbox); nil runs them unconfined.
	Sandbox *sandbox.Policy
	// Hidden are paths the file tools refuse (tools.Env.Hidden): kws's
	// data dir and config, whatever the workspace.
	Hidden []string
	// History is a resumed transcript.
	History []provider.Message
	// Limits per user turn; zero means the defaults.
	MaxSteps, MaxPageFaults, MaxInjectedChars int
	// OnEvent receives every event; it must not block for long.
	OnEvent func(Event)
	// Router judges direct-answer turns; nil means the sidecar's heuristic.
	Router Router
	// Critic, when set, adds a risk note to each permission request.
	Critic Critic
	// Memory, when set, recalls hints into each user turn and learns from
	// them.
	Memory Memory
	// Mailbox, when set, carries agent_send's messages to the other agents
	// of the swarm; nil means the agent works alone.
	Mailbox tools.Mailbox
	// Notices, when set, is called before each model call; what it returns
	// (such as "agent-2 edited x.go after you read it") is recorded as one
	// user-context message starting with NoticePrefix.
	Notices func() []string
	// Board, when set, makes the todo tool the swarm's shared task board.
	Board tools.Board
	// CompactAt is the share of (window − completion reserve) a dieted
	// prompt may fill before older turns are summarized; 0 means 0.85.
	CompactAt float64
	// CompactGist, when set, adds its gist of the covered turns to each
	// compaction's extractive summary (compact_model = "sidecar").
	CompactGist Summarizer
	// Hooks, when set, runs the user's lifecycle hooks as the agent's
	// events happen (see package hooks and lifecycle.go); nil runs none.
	Hooks *hooks.Runner
	// Checkpoints, when set, records the workspace's files before each
	// turn's first change and after each call that may change them, for
	// a rewind (see package checkpoint); nil records nothing.
	Checkpoints Checkpointer
}

// Totals are the agent's running counters for the run record.
type Totals struct {
	NaiveTokens      int `json:"naive_tokens"`
	SentTokens       int `json:"sent_tokens"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	Calls            int `json:"calls"`
	PageFaults       int `json:"page_faults"`
	Compactions      int `json:"compactions"`
	ToolCalls        int `json:"tool_calls"`
	// Cost is the cache-weighted input cost against naive resend.
	Cost Cost `json:"cost"`
}

// Agent is one conversation with a model. It is not safe for concurrent
// use: one goroutine runs its turns.
type Agent struct {
	cfg    Config
	system string
	pinned string
	tools  map[string]tools.Tool
	env    *tools.Env

	history     []provider.Message
	dietS       *diet.State
	meta        []provider.Message
	compactFrom int
	summary     string
	changed     []string
	totals      Totals
	last        *sentPrompt // the latest prompt sent, for the stats tool

	turnStart int
	// turnCheckpointed is set once the turn's files were recorded before
	// its first change; turnNumber is then the turn's number among the
	// session's user turns, counted once for its checkpoints.
	turnCheckpointed bool
	turnNumber       int
	faults           int
	overCap          int
	injected         int
	expanded         map[string]bool
	requestSeq       int

	// What goes on the wire besides the diet's contents (wire.go), and
	// the figures of the last call (cost.go).
	wire       []wireInfo // per diet message, as a.meta
	argRefs    map[[32]byte]argsRef
	specTok    map[string]int
	naiveTok   int // the raw transcript, system prompt and pinned text sent whole
	naiveChars int // ... in bytes: contents, tool names and arguments
	// overflowTurn is 1 + the turn start of the last overflow shown.
	overflowTurn int
	// faultsLogged is totals.PageFaults when the last call was accounted:
	// each call's stats event counts the faults answered since.
	faultsLogged int
	// toolRefs are the tool calls whose result went to the model as a
	// vault ref, told to the panes once (EvToolRef).
	toolRefs    map[string]bool
	decoderDup  int // the decoder prompt the diet counts besides the system prompt
	directTurn  bool
	prev        *wirePrompt
	prevNaive   float64
	lastPrompt  int // the provider's prompt tokens on the last call
	compactGate int // no proactive compaction before the summary can end here

	// sessionStarted is set once SessionStart has fired; startContext is
	// what its hooks added for the model, until a user turn carries it.
	sessionStarted bool
	startContext   string
	// stored are the vault blocks VaultBlockStored announced; blocks are
	// also stored from background jobs' goroutines.
	storedMu sync.Mutex
	stored   map[string]bool
}

// New builds an agent. The workspace's AGENTS.md and KWS.md are pinned.
func New(cfg Config) (*Agent, error) {
	if cfg.Client == nil || cfg.Vault == nil {
		return nil, errors.New("agent: a client and a vault are required")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = defaultMaxSteps
	}
	if cfg.MaxPageFaults <= 0 {
		cfg.MaxPageFaults = defaultMaxFaults
	}
	if cfg.MaxInjectedChars <= 0 {
		cfg.MaxInjectedChars = defaultMaxInjected
	}
	if cfg.Name == "" {
		cfg.Name = "agent"
	}
	if cfg.CompactAt <= 0 || cfg.CompactAt > 1 {
		cfg.CompactAt = compactShare
	}
	// A preset's trigger is for a large window; on a small one the diet
	// must start well before compaction would (which breaks the cache and
	// loses detail the diet keeps), leaving the recent window room above it.
	if b := int(cfg.CompactAt * float64(max(cfg.Profile.ContextWindow-cfg.Profile.CompletionReserve, 0))); b > 0 {
		cfg.Diet.TriggerTokens = min(cfg.Diet.TriggerTokens, b*triggerShare/100)
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.All()
		if t, ok := tools.Skill(cfg.Skills); ok {
			cfg.Tools = append(cfg.Tools, t)
		}
	}
	a := &Agent{tools: map[string]tools.Tool{}, history: append([]provider.Message(nil), cfg.History...),
		argRefs: map[[32]byte]argsRef{}, specTok: map[string]int{}}
	cfg.Vault = scopedVault{Vault: cfg.Vault, workspace: cfg.Workspace, stored: a.blockStored}
	a.cfg = cfg
	for _, t := range cfg.Tools {
		a.tools[t.Name()] = t
	}
	sys := cfg.SystemPrompt
	if sys == "" {
		sys = strings.TrimSpace(defaultSystem)
	}
	a.system = sys + "\n\n" + diet.DecoderPrompt()
	a.pinned = pinnedInstructions(cfg.Workspace)
	a.env = &tools.Env{Workspace: cfg.Workspace, Vault: cfg.Vault, Todo: &tools.TodoList{}, Expand: a.expand, Keep: a.keep, HideEnv: cfg.HideEnv, Sandbox: cfg.Sandbox, Hidden: cfg.Hidden,
		ReadRoots: skill.Folders(cfg.Skills), Stats: a.statsReport, External: cfg.External}
	a.env.Jobs = tools.NewJobs(func() { a.emit(Event{Type: EvJobs, Jobs: a.env.Jobs.List()}) })
	if cfg.Memory != nil {
		a.env.Memory = cfg.Memory
	}
	if cfg.Board != nil {
		a.env.Board = hookedBoard{Board: cfg.Board, a: a}
	}
	if cfg.Mailbox != nil {
		a.env.Mailbox = cfg.Mailbox
	}
	if err := a.rebuildDiet(); err != nil {
		return nil, err
	}
	a.naiveTok, a.naiveChars = rawTokens(provider.Message{Role: "system", Content: a.system}), len(a.system)
	if a.pinned != "" {
		a.naiveTok += rawTokens(provider.Message{Role: "user", Content: a.pinned})
		a.naiveChars += len(a.pinned)
	}
	for _, m := range a.history {
		a.naiveTok += rawTokens(m)
		a.naiveChars += rawChars(m)
	}
	return a, nil
}

// keep stores a tool's oversized output exactly in the vault.
func (a *Agent) keep(kind string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", vault.ErrEmpty
	}
	// The bytes are not modified after this point, so the string view
	// avoids a second copy of a possibly huge output.
	text := unsafe.String(&data[0], len(data))
	c := tokens.Default().Count(text)
	meta := diet.Describe(kind, text).Meta(kind, -1, c.Tokens, !c.Exact)
	meta.Agent = a.cfg.Name
	ids, err := a.cfg.Vault.PutMany([]vault.Block{{Data: data, Meta: meta}})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// pinnedLimit bounds each pinned instruction file.
const pinnedLimit = 256 << 10

// pinnedInstructions reads AGENTS.md and KWS.md at the workspace root. A
// file must resolve inside the workspace and be a regular file, so a
// cloned repository cannot pin ~/.aws/credentials or /dev/zero into every
// prompt; each is read up to pinnedLimit bytes.
func pinnedInstructions(workspace string) string {
	var parts []string
	for _, name := range []string{"AGENTS.md", "KWS.md"} {
		abs, err := tools.Resolve(workspace, name)
		if err != nil {
			continue
		}
		data, cut, err := tools.ReadRegular(abs, pinnedLimit)
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
		if cut {
			text += fmt.Sprintf("\n[kws: %s is longer than %d bytes; the rest is not pinned]", name, pinnedLimit)
		}
		parts = append(parts, fmt.Sprintf("<project_instructions file=%q>\n%s\n</project_instructions>", name, text))
	}
	return strings.Join(parts, "\n")
}

// Totals returns the running counters.
func (a *Agent) Totals() Totals { return a.totals }

// History returns a copy of the raw transcript.
func (a *Agent) History() []provider.Message { return append([]provider.Message(nil), a.history...) }

// Todo returns the agent's todo list.
func (a *Agent) Todo() *tools.TodoList { return a.env.Todo }

// Jobs returns the agent's background jobs.
func (a *Agent) Jobs() *tools.Jobs { return a.env.Jobs }

// StopJobs stops the agent's running background jobs (the user asked)
// and returns how many; the agent may start others.
func (a *Agent) StopJobs() int { return a.env.Jobs.StopRunning() }

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent != nil {
		e.Agent = a.cfg.Name
		a.cfg.OnEvent(e)
	}
}

// rebuildDiet starts a diet state over the system prompt, the pinned
// instructions, the compaction summary (if any), the current user turn
// when the summary covers steps after it, and the raw history after the
// summary. Puts are idempotent, so re-adding vaulted messages costs no
// space.
func (a *Agent) rebuildDiet() error {
	s, err := diet.NewState(a.cfg.Diet, a.cfg.Vault, tokens.Default(), a.cfg.Name, a.cfg.SessionID)
	if err != nil {
		return err
	}
	a.dietS, a.meta, a.wire, a.decoderDup = s, nil, nil, 0
	a.addDiet(provider.Message{Role: "system", Content: a.system}, diet.Message{Role: "system", Content: a.system, Pinned: true})
	if a.pinned != "" {
		a.addDiet(provider.Message{Role: "user", Content: a.pinned}, diet.Message{Role: "user", Kind: "pinned", Content: a.pinned, Pinned: true})
	}
	if a.summary != "" {
		a.addDiet(provider.Message{Role: "user", Content: a.summary}, diet.Message{Role: "user", Kind: "compaction", Content: a.summary, Pinned: true})
	}
	if a.turnStart < a.compactFrom && a.turnStart < len(a.history) {
		turn := a.history[a.turnStart]
		a.addDiet(turn, dietMessage(turn))
	}
	for _, m := range a.history[a.compactFrom:] {
		a.addDiet(m, dietMessage(m))
	}
	return nil
}

func (a *Agent) addDiet(pm provider.Message, dm diet.Message) {
	if pm.Role == "tool" && answersSecretRead(a.meta, pm.ToolCallID) {
		dm.Sensitive = true
	}
	if pm.Role == "tool" {
		dm.Source = callSource(a.meta, pm.ToolCallID)
	}
	a.dietS.Add(dm)
	a.meta = append(a.meta, pm)
	a.wire = append(a.wire, newWireInfo(pm, a.dietS.Params().MinBlockChars))
}

// dietMessage is how the diet sees a transcript message. Page-in answers
// (exact blocks the model asked for) are "pagein": never compacted at
// ingestion, or the model would not get what it asked for; other tool
// results are tool output; notices are context, not the human's turn;
// typed user text is a human turn.
func dietMessage(m provider.Message) diet.Message {
	dm := diet.Message{Role: m.Role, Content: m.Content}
	switch {
	case strings.HasPrefix(m.Content, "<ctx_exact") || strings.HasPrefix(m.Content, "<ctx_results") || strings.HasPrefix(m.Content, "<ctx_error"):
		dm.Kind = diet.KindPageIn
	case m.Role == "user" && strings.HasPrefix(m.Content, NoticePrefix):
		dm.Kind = kindNotice
	case m.Role == "tool":
		dm.Kind = "tool"
	case m.Role == "user":
		dm.Kind = "user"
	}
	return dm
}

// record appends m to the transcript, the session and the diet.
func (a *Agent) record(m provider.Message) error {
	a.history = append(a.history, m)
	a.naiveTok += rawTokens(m)
	a.naiveChars += rawChars(m)
	a.addDiet(m, dietMessage(m))
	if a.cfg.Recorder != nil {
		if err := a.cfg.Recorder.AppendMessage(m); err != nil {
			return fmt.Errorf("agent: session: %w", err)
		}
	}
	return nil
}

func (a *Agent) event(typ string, data any) {
	if a.cfg.Recorder != nil {
		_ = a.cfg.Recorder.AppendEvent(typ, data)
	}
}

// SystemPromptWith returns the built-in system prompt followed by extra
// sections (such as the skills the model may invoke); empty sections are
// skipped.
func SystemPromptWith(sections ...string) string {
	parts := []string{strings.TrimSpace(defaultSystem)}
	for _, s := range sections {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}
