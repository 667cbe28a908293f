package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/app"
)

// contextWidth is the width kws run draws /context's bars for.
const contextWidth = 80

// commandLine is kws run --json's answer to a command: a "context" line
// holding the view, or a "compact" line holding the report.
type commandLine struct {
	Type    string               `json:"type"`
	Context *agent.ContextView   `json:"context,omitempty"`
	Compact *agent.CompactReport `json:"compact,omitempty"`
	Reply   string               `json:"reply,omitempty"`
}

// runCommand answers command (see agent.IsCommand) for a's conversation
// without calling the model: the view of the next prompt, what compacting
// it did, or what the command says, as text or one JSON line.
func runCommand(out io.Writer, asJSON bool, a *app.Agent, command string) error {
	line := commandLine{Type: command[1:]}
	var text string
	switch command {
	case agent.CommandContext:
		v, err := a.Context()
		if err != nil {
			return fail("%v", err)
		}
		line.Context, text = &v, v.Render(contextWidth)
	case agent.CommandCompact:
		r, err := a.Compact()
		if err != nil {
			return fail("%v", err)
		}
		if err := a.Record(); err != nil {
			return fail("%v", err)
		}
		line.Compact, text = &r, r.String()
	default:
		text = a.Explain(command)
		line.Reply = text
	}
	if asJSON {
		return json.NewEncoder(out).Encode(line)
	}
	_, err := fmt.Fprintln(out, text)
	return err
}
