package agent

import (
	"context"
	"strings"
	"time"

	"github.com/kwsdev/kws/secrets"
)

// Summarizer writes a short summary of a text of the given kind; the
// sidecar is one. A compaction with compact_model = "sidecar" asks it for
// a gist of the turns it covers.
type Summarizer interface {
	Summarize(ctx context.Context, kind, text string) (string, error)
}

// Gist limits: how long a compaction waits for the summarizer, and how
// much of the covered conversation (its newest part) it is given.
const (
	gistTimeout = 30 * time.Second
	gistChars   = 6000
)

// withGist adds the summarizer's gist of the conversation before end to
// summary, marked as a model's hint that the ids and sections above
// outrank. Without a summarizer, or when it fails or says nothing, summary
// is returned as it is: the extractive summary stands on its own.
func (a *Agent) withGist(summary string, end int) string {
	g := a.cfg.CompactGist
	if g == nil {
		return summary
	}
	var b strings.Builder
	for _, m := range a.history[:end] {
		if (m.Role == "user" && dietMessage(m).Kind == "user" || m.Role == "assistant") && strings.TrimSpace(m.Content) != "" {
			b.WriteString(m.Role + ": " + strings.TrimSpace(m.Content) + "\n")
		}
	}
	text := b.String()
	if r := []rune(text); len(r) > gistChars {
		text = string(r[len(r)-gistChars:])
	}
	ctx, cancel := context.WithTimeout(context.Background(), gistTimeout)
	defer cancel()
	gist, err := g.Summarize(ctx, "conversation", text)
	if gist = strings.TrimSpace(gist); err != nil || gist == "" {
		return summary
	}
	section := "Gist (written by the compaction model; a hint, not evidence):\n" + secrets.Redact(gist) + "\n"
	return strings.TrimSuffix(summary, "</compaction>") + section + "</compaction>"
}
