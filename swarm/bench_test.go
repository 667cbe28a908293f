package swarm

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// benchLatency is the scripted model's latency per call: a turn is a tool
// call (list_files) and an answer, two calls.
const benchLatency = 40 * time.Millisecond

// BenchmarkThreeAgents runs the same scripted workload for three agents on
// one vault, in parallel and one after another; compare the ms/op of the
// two sub-benchmarks (serial ÷ parallel is the speed-up).
func BenchmarkThreeAgents(b *testing.B) {
	for _, parallel := range []bool{true, false} {
		name := map[bool]string{true: "parallel", false: "serial"}[parallel]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				runThree(b, parallel)
			}
		})
	}
}

// runThree times only the turns: the swarm, servers and vault are set up
// with the timer stopped.
func runThree(b *testing.B, parallel bool) {
	b.StopTimer()
	v := vaulttest.MustOpen(b)
	servers := make([]*providertest.Server, 3)
	for i := range servers {
		servers[i] = providertest.New(b,
			providertest.Step{Delay: benchLatency, ToolCalls: []provider.ToolCall{{ID: "c1", Name: "list_files", Arguments: `{}`}}},
			providertest.Step{Delay: benchLatency, Text: fmt.Sprintf("agent %d done", i)})
	}
	next := 0
	sw := New(Config{Vault: v, Broker: permission.NewBroker(permission.AutoAllow), Factory: func(name string, onEvent func(agent.Event)) (Runner, error) {
		srv := servers[next]
		next++
		client, err := provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", NativeTools: true, MaxRetries: -1})
		if err != nil {
			return nil, err
		}
		ws, _ := filepath.EvalSymlinks(b.TempDir())
		return agent.New(agent.Config{Name: name, Workspace: ws, Client: client, Model: "m",
			Profile: profile.Profile{ID: "m", ContextWindow: 128000, CompletionReserve: 4096},
			Diet:    diet.Defaults(), Vault: v, Policy: permission.DefaultPolicy(), OnEvent: onEvent})
	}})
	sw.Start()
	defer sw.Stop()
	events, unsub := sw.Subscribe()
	defer unsub()
	names := []string{sw.Spawn(), sw.Spawn(), sw.Spawn()}
	b.StartTimer()
	defer b.StopTimer()
	wait := func(n int) {
		for n > 0 {
			e := <-events
			if e.Type == EvFinished {
				if e.Err != "" {
					b.Fatal(e.Err)
				}
				n--
			}
		}
	}
	for _, n := range names {
		if err := sw.Send(n, "list the files"); err != nil {
			b.Fatal(err)
		}
		if !parallel {
			wait(1)
		}
	}
	if parallel {
		wait(3)
	}
}
