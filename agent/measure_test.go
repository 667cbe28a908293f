package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// BenchmarkEditHeavySession drives 200 calls (10 turns of 19 tool calls,
// one in three a write_file of three observations, and an answer) over
// each split of the fixtures and reports what went on the wire, what the
// agent counted, what counting the contents alone would have said, and
// the cache-weighted cost against naive resend:
//
//	go test -run '^$' -bench EditHeavySession -benchtime 1x ./agent/
func BenchmarkEditHeavySession(b *testing.B) {
	for _, set := range []string{"tune", "measure"} {
		b.Run(set, func(b *testing.B) {
			// Sorted by name, index % 3 == 2 is the held-out MEASURE
			// set, the rest the TUNE set.
			obs := trajectoryObservations(b, func(k int) bool { return (k%3 == 2) == (set == "measure") })
			for range b.N {
				r := newRig(b, nil)
				for i := 0; i < 190; i++ {
					os.WriteFile(filepath.Join(r.ws, fmt.Sprintf("obs%03d.txt", i)), []byte(obs[i%len(obs)]), 0o644)
				}
				for turn := 0; turn < 10; turn++ {
					for k := 0; k < 19; k++ {
						i := turn*19 + k
						step := call(fmt.Sprint("c", i), "read_file", map[string]any{"path": fmt.Sprintf("obs%03d.txt", i), "mode": "full"})
						if k%3 == 2 {
							step = call(fmt.Sprint("c", i), "write_file", map[string]any{"path": fmt.Sprintf("out%03d.txt", i), "content": strings.Repeat(obs[i%len(obs)], 3)})
						}
						r.srv.Push(providertest.ToolStep(step))
					}
					r.srv.Push(providertest.TextStep(fmt.Sprintf("Turn %d done.", turn)))
					r.run(fmt.Sprintf("turn %d: read the next observation files, write the outputs", turn))
				}
				wire, contents, bytes, off, peak := 0, 0, 0, 0, 0
				diets := r.eventsOf(EvDiet)
				for i, req := range r.srv.Requests() {
					w := wireCount(req)
					wire, contents, bytes = wire+w, contents+contentsCount(req), bytes+len(req.Body)
					if w != diets[i].Diet.SentTokens {
						off++
					}
					peak = max(peak, w)
				}
				if off > 0 {
					b.Fatalf("%d calls counted other than the wire", off)
				}
				tot := r.a.Totals()
				b.ReportMetric(float64(wire), "wire-tokens")
				b.ReportMetric(float64(contents), "contents-only-tokens")
				b.ReportMetric(float64(bytes), "body-bytes")
				b.ReportMetric(float64(peak), "peak-tokens")
				b.ReportMetric(tot.Cost.Percent(), "cost-%-of-naive")
			}
		})
	}
}
