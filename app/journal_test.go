package app

import (
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// TestSessionStateRoundTrip reads back what the journal writes: the
// layout and each agent's figures; an unreadable journal gives none.
func TestSessionStateRoundTrip(t *testing.T) {
	want := sessionState{
		Layout: ui.Snapshot{Windows: []ui.WindowSnapshot{{Root: &ui.SnapshotNode{Pane: &pane.Spec{Kind: pane.KindAgent, State: map[string]string{pane.StateAgent: "agent-1"}}}}}},
		Stats:  map[string]swarm.Stats{"agent-1": {Calls: 3, NaiveTokens: 900, SentTokens: 400, Series: []swarm.Point{{Naive: 300, Sent: 100}}}},
	}
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	got := parseSessionState(data, log)
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	for _, bad := range [][]byte{nil, []byte("{"), []byte(`{"layout": 7}`)} {
		if got := parseSessionState(bad, log); got != nil {
			t.Errorf("parseSessionState(%q) = %+v, want none", bad, got)
		}
	}
}
