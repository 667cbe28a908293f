package agent

import (
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
)

// Event types published by the loop, one JSON object per line in
// `kws run --json`.
const (
	EvTextDelta  = "text_delta"
	EvToolCall   = "tool_call"
	EvToolResult = "tool_result"
	EvPermission = "permission"
	EvDiet       = "diet"
	EvPageFault  = "page_fault"
	EvCompaction = "compaction"
	EvUsage      = "usage"
	EvError      = "error"
	EvDone       = "done"
	// EvNotice: a notice (Text, as recorded) joined the history before a
	// model call.
	EvNotice = "notice"
	// EvRetry: a model call failed and is retried; Text says which
	// attempt comes, when and why ("retrying 2/5 in 4s: HTTP 500 …").
	EvRetry = "retry"
	// EvToolRef: the result of tool call CallID went to the model as a
	// ref to vault block Text, its exact output.
	EvToolRef = "tool_ref"
	// EvJobs: a background job started or ended; Jobs lists them all.
	// It may come from any goroutine, between a turn's events.
	EvJobs = "jobs"
	// EvHook: a hook said something for the user (Text, safe for a
	// terminal), or failed, timed out or did not run (IsError). A hook
	// fired in the background reports from any goroutine.
	EvHook = "hook"
)

// Event is one thing that happened in a turn.
type Event struct {
	Type    string `json:"type"`
	Agent   string `json:"agent,omitempty"`
	Text    string `json:"text,omitempty"`
	Restart bool   `json:"restart,omitempty"`
	Tool    string `json:"tool,omitempty"`
	CallID  string `json:"call_id,omitempty"`
	Args    string `json:"args,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// Preview is a tool result's preview: the unified diff of an edit or
	// a write.
	Preview string `json:"preview,omitempty"`
	// Decision is the permission outcome: allow, allow_session, deny.
	Decision string           `json:"decision,omitempty"`
	Diet     *vault.DietEvent `json:"diet,omitempty"`
	Usage    *provider.Usage  `json:"usage,omitempty"`
	// Cost is the cache-weighted input cost of the call a usage event
	// reports.
	Cost       *Cost           `json:"cost,omitempty"`
	Fault      *diet.Fault     `json:"fault,omitempty"`
	Compaction *CompactionInfo `json:"compaction,omitempty"`
	Jobs       []tools.JobInfo `json:"jobs,omitempty"`
	Error      string          `json:"error,omitempty"`
}
