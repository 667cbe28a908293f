package agent

import (
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/session"
)

// SessionRecorder records an agent's transcript, events and calls in a
// session folder.
func SessionRecorder(s *session.Session) Recorder { return sessionRecorder{s} }

type sessionRecorder struct{ s *session.Session }

func (r sessionRecorder) AppendMessage(m provider.Message) error { return r.s.AppendMessage(m) }

func (r sessionRecorder) AppendEvent(typ string, data any) error { return r.s.AppendEvent(typ, data) }

func (r sessionRecorder) RecordCall(msgs []provider.Message, tools []string, u provider.Usage, attempts int) error {
	return r.s.RecordCall(session.SentCall{Messages: msgs, Tools: tools, Usage: u, Attempts: attempts})
}
