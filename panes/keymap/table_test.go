package keymap

import "testing"

func TestHintsShowTheShortWordAndHelpTheWholeDesc(t *testing.T) {
	tb := New("memory",
		Bind("approve", "a", "approve the candidate", true, nil).Short("approve"),
		Bind("search", "/", "search as you type", true, nil),
		Bind("refresh", "R", "refresh", false, nil),
	)
	hints := tb.Hints()
	if len(hints) != 2 || hints[0] != (Hint{Key: "a", Desc: "approve"}) || hints[1] != (Hint{Key: "/", Desc: "search as you type"}) {
		t.Fatalf("hints %+v", hints)
	}
	if a := tb.Actions()[0]; a.Desc != "approve the candidate" {
		t.Fatalf("Short replaced the description: %q", a.Desc)
	}
}
