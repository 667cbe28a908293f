package main

import (
	"encoding/json"
	"fmt"
	"io"
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
}

func newEventPrinter(out, log io.Writer, asJSON bool) *eventPrinter {
	return &eventPrinter{out: out, log: log, json: asJSON}
}

func (p *eventPrinter) print(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
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
		fmt.Fprintf(p.log, "kws: compacted older turns (%s): %d → %d tokens\n", oneLine(e.Compaction.Reason, 60), e.Compaction.BeforeTokens, e.Compaction.AfterTokens)
	case agent.EvDone:
		p.text.Reset()
		p.endLine()
	}
}

func (p *eventPrinter) endLine() {
	if p.newline {
		fmt.Fprintln(p.out)
		p.newline = false
	}
}

// sessionLine is the last line of kws run --json: the session the run
// recorded, which kws run --resume takes, and how the run ended.
type sessionLine struct {
	Type    string `json:"type"` // always "session"
	Session string `json:"session"`
	Status  string `json:"status"` // done, error or interrupted
}

// finish ends a run of session id that ended with status: a last JSON
// line with --json, else the session id on the log.
func (p *eventPrinter) finish(id, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		_ = json.NewEncoder(p.out).Encode(sessionLine{Type: "session", Session: id, Status: status})
		return
	}
	p.endLine()
	fmt.Fprintf(p.log, "kws: session %s\n", id)
}
