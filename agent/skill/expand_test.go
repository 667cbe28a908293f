package skill

import (
	"testing"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name, body, args, want string
	}{
		{"whole and positional", "Review $ARGUMENTS. First: $0, second: $1.", `"a b.go" c.go`,
			`Review "a b.go" c.go. First: a b.go, second: c.go.`},
		{"missing positional is empty", "[$0][$1][$2]", "only", "[only][][]"},
		{"multi-digit index", "$10|$1", "a b c d e f g h i j k", "k|b"},
		{"dollar dollar", "cost: $$5, $$ARGUMENTS, $$0", "", "cost: $5, $ARGUMENTS, $0"},
		{"other dollars stay", "$HOME $ $", "", "$HOME $ $"},
		{"adjacent text", "$ARGUMENTSx$0y", "a", "axay"},
		{"huge index", "[$99999999999999999999]", "a", "[]"},
		{"no placeholder appends args", "Summarise the diff.", " --staged ", "Summarise the diff.\n\nARGUMENTS:  --staged "},
		{"no placeholder, blank args", "Summarise the diff.", "  ", "Summarise the diff."},
		{"only $$ is no placeholder", "Pay $$1.", "now", "Pay $1.\n\nARGUMENTS: now"},
		{"empty body", "", "x", "ARGUMENTS: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Skill{Body: tt.body}).Expand(tt.args); got != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestParseInvocation(t *testing.T) {
	tests := []struct {
		in, name, args string
		ok             bool
	}{
		{"/review", "review", "", true},
		{"  /review  a.go 'b c'  ", "review", "a.go 'b c'", true},
		{"/fix\tthe bug\nand more", "fix", "the bug\nand more", true},
		{"/ns:tool-1.x arg", "ns:tool-1.x", "arg", true},
		{"review", "", "", false},
		{"/", "", "", false},
		{"/ args", "", "", false},
		{"/usr/bin/env", "", "", false},
		{"please /review", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := ParseInvocation(tt.in)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("ParseInvocation(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}
