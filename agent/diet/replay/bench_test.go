package replay

import (
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// BenchmarkLongSessionCalls replays the fixtures as multi-agent sessions
// concatenated seven times (3,633 messages, 1,576 calls) at the default
// mode on the real vault, and reports the diet's time per call: the
// median and the slowest (ms-p50, ms-max), vault writes included.
func BenchmarkLongSessionCalls(b *testing.B) {
	var sessions []Conversation
	for range 7 {
		sessions = append(sessions, swarmSessions(b, fixtureFiles(b))...)
	}
	long := Concat("swarm-all-x7", sessions)
	var p50, worst float64
	for b.Loop() {
		o, err := Run(long, diet.Defaults(), vaulttest.MustOpen(b), tokens.Default(), nil)
		if err != nil {
			b.Fatal(err)
		}
		p50, worst = o.Row.DietMsP50, max(worst, o.Row.DietMsMax)
	}
	b.ReportMetric(p50, "ms-p50")
	b.ReportMetric(worst, "ms-max")
	b.ReportMetric(float64(len(long.Messages)), "messages")
}
