package panes

import "testing"

// TestParseShellResult reads the shell tool's text back, empty streams
// and a label's note included: an empty stream is empty, never ":".
func TestParseShellResult(t *testing.T) {
	for _, tc := range []struct {
		name, text, stdout, stderr string
		exit                       int
	}{
		{"both", "STDOUT:\nbuilding\nSTDERR:\nerror: no rule\nEXIT CODE: 2", "building", "error: no rule", 2},
		{"no stderr", "STDOUT:\n1\n2\nSTDERR:\nEXIT CODE: 0", "1\n2", "", 0},
		{"no stdout", "STDOUT:\nSTDERR:\noops\nEXIT CODE: 1", "", "oops", 1},
		{"neither", "STDOUT:\nSTDERR:\nEXIT CODE: 0", "", "", 0},
		{"a note", "STDOUT (12000 bytes; the rest in the vault):\n1\nSTDERR:\nEXIT CODE: 0", "(12000 bytes; the rest in the vault)\n1", "", 0},
	} {
		r := parseShellResult(tc.text)
		if !r.ok || r.stdout != tc.stdout || r.stderr != tc.stderr || r.exit != tc.exit {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}
}
