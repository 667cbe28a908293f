package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/termsafe"
)

// eventPrinter streams a run: the answer text to stdout as it arrives and
// one line per tool call and permission decision to stderr, or with --json
// every event as one JSON line on stdout. Every string from the model or
// the network (answer text, tool names and arguments, denial reasons) is
// stripped of terminal escape sequences before it reaches the terminal;
// in the answer text a sequence cut between two deltas is removed whole.
type eventPrinter struct {
	mu      sync.Mutex
	out     io.Writer
	log     io.Writer
	json    bool
	newline bool
	text    termsafe.Stream // the answer text, whose escapes may be cut between deltas
	cost    agent.Cost      // summed over the run's calls
	ended   bool            // the session line is written
}

func newEventPrinter(out, log io.Writer, asJSON bool) *eventPrinter {
	return &eventPrinter{out: out, log: log, json: asJSON}
}

func (p *eventPrinter) print(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Type == agent.EvUsage && e.Cost != nil {
		p.cost = p.cost.Add(*e.Cost)
	}
	if p.json {
		_ = json.NewEncoder(p.out).Encode(e)
		return
	}
	switch e.Type {
	case agent.EvTextDelta:
		if e.Restart {
			p.text.Reset()
			fmt.Fprintln(p.log, "\nkws: the stream was cut; retrying")
		}
		text := p.text.Strip(e.Text)
		fmt.Fprint(p.out, text)
		if text != "" {
			p.newline = !strings.HasSuffix(text, "\n")
		}
	case agent.EvToolCall:
		p.text.Reset()
		p.endLine()
		fmt.Fprintf(p.log, "⏺ %s  %s\n", oneLine(e.Tool, 60), oneLine(tools.CallSummary(e.Tool, e.Args), 120))
	case agent.EvPermission:
		if e.Decision == "deny" {
			fmt.Fprintf(p.log, "  denied: %s\n", oneLine(e.Text, 120))
		}
	case agent.EvCompaction:
		fmt.Fprintf(p.log, "kws: %s\n", oneLine(e.Compaction.String(), 200))
	case agent.EvRetry:
		p.endLine()
		fmt.Fprintf(p.log, "kws: %s\n", oneLine(e.Text, 200))
	case agent.EvHook:
		p.endLine()
		fmt.Fprintf(p.log, "kws: %s\n", oneLine(e.Text, 400))
	case agent.EvDone:
		p.text.Reset()
		p.endLine()
	}
}

// waiting says that the run's tool call waits for approval in agent's
// pane of session, which kws attach opens: on the log, or with --json as
// an approval line.
func (p *eventPrinter) waiting(agent, session, tool string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.out).Encode(approvalLine{Type: "approval", Agent: agent, Session: session, Tool: tool})
		return
	}
	p.endLine()
	fmt.Fprintf(p.log, "kws: %s waits for approval in %s (kws attach -t %s)\n", oneLine(tool, 60), agent, session)
}

// approvalLine, in kws run --json through a running session, says that a
// tool call waits for the user's approval in the session.
type approvalLine struct {
	Type    string `json:"type"` // always "approval"
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Tool    string `json:"tool"`
}

func (p *eventPrinter) endLine() {
	if p.newline {
		fmt.Fprintln(p.out)
		p.newline = false
	}
}

// refused ends a --json run that failed before it had a session to name
// (an unknown --resume id, a bad config) with an error line, so a script
// reading the events learns why; the reason is on stderr as well.
func (p *eventPrinter) refused(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.json || p.ended {
		return
	}
	_ = json.NewEncoder(p.out).Encode(failLine{Type: "error", Error: err.Error()})
}

// failLine is the last line of kws run --json when the run failed before
// it had a session.
type failLine struct {
	Type  string `json:"type"`
	Error string `json:"error"`
}

// sessionLine is the last line of kws run --json: the session the run
// recorded, which kws run --resume takes, and how the run ended.
type sessionLine struct {
	Type    string `json:"type"` // always "session"
	Session string `json:"session"`
	Status  string `json:"status"` // done, error or interrupted
}

// costLine, before the session line of kws run --json when the run made
// calls, is the run's cache-weighted input cost against naive resend.
type costLine struct {
	Type string `json:"type"` // always "cost"
	agent.Cost
	// Percent is the weighted cost as a share of naive resend's.
	Percent float64 `json:"percent_of_naive"`
}

// finish ends a run of session id that ended with status: with --json
// the run's cost line, if it made calls, and a last line naming the
// session; else the session id on the log.
func (p *eventPrinter) finish(id, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		enc := json.NewEncoder(p.out)
		if p.cost.Calls > 0 {
			_ = enc.Encode(costLine{Type: "cost", Cost: p.cost, Percent: math.Round(10*p.cost.Percent()) / 10})
		}
		_ = enc.Encode(sessionLine{Type: "session", Session: id, Status: status})
		p.ended = true
		return
	}
	p.endLine()
	fmt.Fprintf(p.log, "kws: session %s\n", id)
}
