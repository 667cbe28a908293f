package agent

import (
	"strings"

	"github.com/kwsdev/kws/agent/provider"
)

// NoticePrefix starts every notice message, so that neither the model nor
// the diet mistakes it for the human's turn.
const NoticePrefix = "[notice]"

// kindNotice is the diet kind of a notice message: user context, not a
// human turn, so the diet keeps protecting the turn the human typed.
const kindNotice = "notice"

// deliverNotices asks Config.Notices for what happened since the last
// model call and records it, each notice on its own line, as one user
// message before the next call.
func (a *Agent) deliverNotices() error {
	if a.cfg.Notices == nil {
		return nil
	}
	var lines []string
	for _, n := range a.cfg.Notices() {
		n = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(n), NoticePrefix))
		if n != "" {
			lines = append(lines, NoticePrefix+" "+n)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	text := strings.Join(lines, "\n")
	if err := a.record(provider.Message{Role: "user", Content: text}); err != nil {
		return err
	}
	a.emit(Event{Type: EvNotice, Text: text})
	return nil
}
