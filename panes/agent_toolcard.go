package panes

import (
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
