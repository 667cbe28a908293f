package panes

import (
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/termsafe"
)

// maxCardArgs bounds the arguments a card's head shows, in bytes.
const maxCardArgs = 400

// toolHead is what a tool card shows after the tool's name: its main
// arguments, two spaces apart ("ls -la" for shell), or the compact JSON of
// the arguments. Collapsed it is one line without escape sequences, cut at
// maxCardArgs bytes; full keeps it whole, lines and all, for the expanded
// card (whose wrapping strips escapes).
func toolHead(tool, args string, full bool) string {
	s := tools.CallSummary(tool, args)
	if full {
		return strings.TrimSpace(s)
	}
	s = strings.TrimSpace(termsafe.OneLine(s))
	if len(s) > maxCardArgs {
		s = strings.ToValidUTF8(s[:maxCardArgs], "") + "…"
	}
	return s
}

// shellResult is a shell tool result read back from its labels (STDOUT:,
// STDERR:, EXIT CODE:) for the card: what the command printed, what it
// printed on stderr, its exit code and any note after it (timed out,
// cancelled). ok is false for a text of another shape.
type shellResult struct {
	stdout, stderr, notes string
	exit                  int
	ok                    bool
}

// parseShellResult reads res as the shell tool writes it.
func parseShellResult(res string) shellResult {
	out, rest, ok := strings.Cut(res, "\nSTDERR")
	stdout, okOut := strings.CutPrefix(out, "STDOUT")
	if !ok || !okOut {
		return shellResult{}
	}
	errText, tail, ok := strings.Cut(rest, "\nEXIT CODE: ")
	if !ok {
		return shellResult{}
	}
	var r shellResult
	code, notes, _ := strings.Cut(tail, "\n")
	if _, err := fmt.Sscanf(code, "%d", &r.exit); err != nil {
		return shellResult{}
	}
	r.stdout, r.stderr = labelText(stdout), labelText(errText)
	r.stdout, r.stderr, r.notes, r.ok = strings.TrimRight(r.stdout, "\n"), strings.TrimRight(r.stderr, "\n"), notes, true
	return r
}

// labelText is a stream's text after its label's name: the stream, after
// the note the label may carry before its colon ("STDOUT (12000 bytes;
// …):"), which stays with it. An empty stream leaves the colon alone
// (the newline after it was the next label's).
func labelText(s string) string {
	i := strings.Index(s, ":\n")
	if i < 0 {
		return strings.TrimSpace(strings.TrimSuffix(s, ":"))
	}
	if note := strings.TrimSpace(s[:i]); note != "" {
		return note + "\n" + s[i+2:]
	}
	return s[i+2:]
}
