package pane

import (
	"slices"
	"testing"
)

func TestFitWordsNeverCutsAWord(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"agent-1 · offline", 20, "agent-1 · offline"},
		{"agent-1 · offline", 16, "agent-1…"},
		{"agent-1 · offline", 10, "agent-1…"},
		{"agent-1 · offline", 5, "agen…"},
		{"5 agent-5 · offline", 8, "5…"},
		{"kept ctx:5f2a9c1e7b3d in the vault", 25, "kept ctx:5f2a9c1e7b3d in…"},
		{"hidden at this width: refs, seen, faults", 38, "hidden at this width: refs, seen…"},
		{"x", 0, ""},
	} {
		if got := FitWords(c.s, c.w); got != c.want {
			t.Errorf("FitWords(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

func TestWrapWordsBreaksBetweenWords(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want []string
	}{
		{"The vault is empty: old context lands here.", 80, []string{"The vault is empty: old context lands here."}},
		{"The vault is empty: old context lands here.", 20, []string{"The vault is empty:", "old context lands", "here."}},
		{"a ctx:5f2a9c1e7b3d b", 8, []string{"a", "ctx:5f2…", "b"}},
		{"", 10, []string{""}},
	} {
		if got := WrapWords(c.s, c.w); !slices.Equal(got, c.want) {
			t.Errorf("WrapWords(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}
