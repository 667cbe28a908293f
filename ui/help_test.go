package ui

import (
	"strings"
	"testing"
)

// section returns the lines of the help under title, up to the next blank
// line.
func section(help, title string) string {
	_, rest, ok := strings.Cut(help, title+"\n")
	if !ok {
		return ""
	}
	body, _, _ := strings.Cut(rest, "\n\n")
	return body
}

func TestHelpListsEachKeyUnderItsOwnSection(t *testing.T) {
	d, _ := newTestDriver(t, 120, 40, "shell")
	s := d.Script(t)
	var help string
	s.Do(func() { help = d.App.helpText() })
	prefix, copyMode := section(help, "After the prefix C-b:"), section(help, "In copy mode:")
	if !strings.Contains(prefix, "0…9            select-N       focus pane N") {
		t.Errorf("the prefix section does not list 0…9:\n%s", prefix)
	}
	if strings.Contains(copyMode, "focus pane") || !strings.Contains(copyMode, "V              select-lines   select lines") {
		t.Errorf("copy mode lists a prefix key or loses its own select-lines:\n%s", copyMode)
	}
	if n := strings.Count(help, "0…9"); n != 1 {
		t.Errorf("0…9 is listed %d times:\n%s", n, help)
	}
}
