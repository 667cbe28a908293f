package app

import (
	"github.com/kwsdev/kws/sidecar"
)

// SidecarContext is the context window of each sidecar sequence: an agent
// turn in local-only mode carries the system prompt and every tool in the
// text protocol, several thousand tokens before the conversation starts.
// cmd/kws loads the model with it; the agents' profile of the sidecar
// says it.
const SidecarContext = 16384

// CloseEngine releases a loaded model; any other engine needs nothing.
func CloseEngine(e sidecar.Engine) {
	if l, ok := e.(*sidecar.Local); ok {
		_ = l.Model().Close()
	}
}
