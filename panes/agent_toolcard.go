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
	// Each label may carry a note before its colon ("STDOUT (12000
	// bytes; …):"): it stays with the stream.
	r.stdout = strings.TrimPrefix(stdout, ":\n")
	r.stderr = strings.TrimPrefix(errText, ":\n")
	if i := strings.Index(stdout, ":\n"); i > 0 {
		r.stdout = strings.TrimSpace(stdout[:i]) + "\n" + stdout[i+2:]
	}
	if i := strings.Index(errText, ":\n"); i > 0 {
		r.stderr = strings.TrimSpace(errText[:i]) + "\n" + errText[i+2:]
	}
	r.stdout, r.stderr, r.notes, r.ok = strings.TrimRight(r.stdout, "\n"), strings.TrimRight(r.stderr, "\n"), notes, true
	return r
}
