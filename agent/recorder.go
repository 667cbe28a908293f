package agent

import (
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/transcript"
)

// SessionRecorder records an agent's transcript, events and calls in a
// session folder.
func SessionRecorder(s *transcript.Transcript) Recorder { return sessionRecorder{s} }

type sessionRecorder struct{ s *transcript.Transcript }

func (r sessionRecorder) AppendMessage(m provider.Message) error { return r.s.AppendMessage(m) }

func (r sessionRecorder) AppendEvent(typ string, data any) error { return r.s.AppendEvent(typ, data) }

func (r sessionRecorder) RecordCall(msgs []provider.Message, tools []string, u provider.Usage, attempts int) error {
	return r.s.RecordCall(transcript.SentCall{Messages: msgs, Tools: tools, Usage: u, Attempts: attempts})
}
