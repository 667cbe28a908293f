package swarm

import (
	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"time"
)

// EventType says what an Event reports.
type EventType string

// Event types.
const (
	// EvSpawned: a new agent exists (Info).
	EvSpawned EventType = "spawned"
	// EvRemoved: the agent is gone.
	EvRemoved EventType = "removed"
	// EvState: the agent's state changed (Info).
	EvState EventType = "state"
	// EvTurn: a queued user turn started (Text is the turn as given: as
	// typed, a /name skill line unexpanded, with its injected blocks).
	EvTurn EventType = "turn"
	// EvAgent: the agent loop published Agent.
	EvAgent EventType = "agent"
	// EvAsk: the agent waits for the user to approve Request.
	EvAsk EventType = "ask"
	// EvInjected: a vault block (Text is its id) rides the agent's next turn.
	EvInjected EventType = "injected"
	// EvFinished: a turn ended; Text is the answer, Err the failure.
	EvFinished EventType = "finished"
	// EvBoard: the shared task board changed; Agent made the change (empty
	// for the user) and Text is the task's id.
	EvBoard EventType = "board"
	// EvMessage: a message from another agent or the user (From) was
	// queued as the agent's turn (Text, marked with the sender).
	EvMessage EventType = "message"
	// EvCommand: the agent answered the user's /context (Context) or
	// /compact (Compact) line (Text), without calling its model.
	EvCommand EventType = "command"
)

// Event is one thing that happened to an agent.
type Event struct {
	Type  EventType
	Agent string
	// From is EvMessage's sender: an agent's name, or "" for the user.
	From    string
	Info    Info
	Text    string
	Err     string
	Request *permission.Request
	Loop    agent.Event
	// Context, Compact and Reply are EvCommand's answer: the view of the
	// next prompt, what compacting did, or what the command says.
	Context *agent.ContextView
	Compact *agent.CompactReport
	Reply   string
	// Fork is the session a /rewind of the conversation forked, which
	// the agent continues once restarted on it (Swarm.RestartOn).
	Fork string
	// Seq numbers the swarm's events from 1 in the order they were
	// published; Transcript.Seq says which of them a transcript covers.
	Seq uint64
}

// routine reports whether the event may be dropped for a slow listener:
// only figures that the next one supersedes.
func (e Event) routine() bool {
	if e.Type != EvAgent {
		return false
	}
	switch e.Loop.Type {
	case agent.EvDiet, agent.EvUsage:
		return true
	}
	return false
}

// State is what an agent is doing, taken from its own loop.
type State string

// Agent states.
const (
	StateIdle     State = "idle"
	StateThinking State = "thinking"
	StateTool     State = "tool"
	StateApproval State = "approval"
	StateError    State = "error"
	StateOffline  State = "offline"
)

// Info is an agent's current state and figures.
type Info struct {
	Name  string
	State State
	// Detail is the tool being run, or the error text.
	Detail string
	// Queued counts user turns waiting behind the running one.
	Queued int
	// Injected counts vault blocks waiting for the next turn.
	Injected int
	// Paused is set while queued turns wait for Resume.
	Paused bool
	// Role is the role the agent was spawned with, if any.
	Role string
	// Session is the id of the session the agent records, when its
	// runner is a Sessioner; a restored pane resumes it.
	Session string
	Stats   Stats
	// TurnStarted is when the running turn started; zero while the agent
	// is not working on one.
	TurnStarted time.Time
}

// Busy reports whether the agent is working or has work queued.
func (i Info) Busy() bool {
	switch i.State {
	case StateThinking, StateTool, StateApproval:
		return true
	}
	return i.Queued > 0
}

// Stats are an agent's diet and provider figures, summed over its calls.
type Stats struct {
	Calls        int
	NaiveTokens  int
	SentTokens   int
	Refs         int
	SeenRefs     int
	PageFaults   int
	AutoRestores int
	Compactions  int
	// PromptTokens and CompletionTokens are what the provider reported.
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
	// Cost is the cache-weighted input cost of the calls against naive
	// resend, from the provider's cached tokens where it reports them.
	Cost agent.Cost
	// Series holds naive and sent tokens per call, oldest first (the last
	// SeriesLen calls).
	Series []Point
	// Tools are the figures per tool, most output first, as the agent
	// reported them after its latest turn; Add leaves them out (the stats
	// pane sums them by tool).
	Tools []agent.ToolStat
}

// Point is one call's naive and sent prompt tokens.
type Point struct{ Naive, Sent int }

// SeriesLen is how many calls Stats.Series keeps.
const SeriesLen = 240

// SavedPercent is the share of naive tokens the diet did not send.
func (s Stats) SavedPercent() float64 {
	if s.NaiveTokens == 0 {
		return 0
	}
	return 100 * float64(s.NaiveTokens-s.SentTokens) / float64(s.NaiveTokens)
}

// CostPercent is the cache-weighted input cost as a share of naive
// resend's, or 0 before any call.
func (s Stats) CostPercent() float64 { return s.Cost.Percent() }

// Add sums two agents' figures; Series is not summed.
func (s Stats) Add(o Stats) Stats {
	s.Calls += o.Calls
	s.NaiveTokens += o.NaiveTokens
	s.SentTokens += o.SentTokens
	s.Refs += o.Refs
	s.SeenRefs += o.SeenRefs
	s.PageFaults += o.PageFaults
	s.AutoRestores += o.AutoRestores
	s.Compactions += o.Compactions
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.CachedTokens += o.CachedTokens
	s.Cost = s.Cost.Add(o.Cost)
	return s
}

// account adds one agent event to the figures.
func (s *Stats) account(e agent.Event) {
	switch e.Type {
	case agent.EvDiet:
		if d := e.Diet; d != nil {
			s.Calls++
			s.NaiveTokens += d.NaiveTokens
			s.SentTokens += d.SentTokens
			s.Refs += d.Refs
			s.SeenRefs += d.SeenRefs
			s.AutoRestores += d.AutoRestores
			s.Series = append(s.Series, Point{Naive: d.NaiveTokens, Sent: d.SentTokens})
			if len(s.Series) > SeriesLen {
				s.Series = append([]Point(nil), s.Series[len(s.Series)-SeriesLen:]...)
			}
		}
	case agent.EvPageFault:
		s.PageFaults++
	case agent.EvCompaction:
		if e.Compaction == nil || !e.Compaction.Skipped {
			s.Compactions++
		}
	case agent.EvUsage:
		if u := e.Usage; u != nil {
			s.PromptTokens += u.PromptTokens
			s.CompletionTokens += u.CompletionTokens
			s.CachedTokens += u.CachedTokens
		}
		if c := e.Cost; c != nil {
			s.Cost = s.Cost.Add(*c)
		}
	}
}
