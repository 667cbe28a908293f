package panes

import (
	"slices"
	"testing"

	"github.com/kwsdev/kws/panes/pane"
)

// TestEveryKindListsItsKeys: each kind of pane gives its key tables for
// the help before one is open, one per scope it declares, in its order.
func TestEveryKindListsItsKeys(t *testing.T) {
	for _, info := range []pane.Info{AgentInfo, ShellInfo, VaultInfo, StatsInfo, MemoryInfo, BoardInfo} {
		if info.Keys == nil {
			t.Errorf("%s: no Keys", info.Kind)
			continue
		}
		var scopes []string
		for _, tb := range info.Keys() {
			if len(tb.Actions()) == 0 {
				t.Errorf("%s: table %s has no keys", info.Kind, tb.Scope)
			}
			scopes = append(scopes, tb.Scope)
		}
		if !slices.Equal(scopes, info.Scopes) {
			t.Errorf("%s: tables %v, scopes %v", info.Kind, scopes, info.Scopes)
		}
	}
}
