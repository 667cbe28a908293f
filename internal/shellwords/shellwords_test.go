package shellwords

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		open rune
	}{
		{"", nil, 0},
		{"   \t\n ", nil, 0},
		{"a b  c", []string{"a", "b", "c"}, 0},
		{`"a b" 'c d'`, []string{"a b", "c d"}, 0},
		{`pre"mid dle"post x`, []string{"premid dlepost", "x"}, 0},
		{`"" ''`, []string{"", ""}, 0},
		{`"say \"hi\" \\ \$HOME \n"`, []string{`say "hi" \ $HOME \n`}, 0},
		{`'no \"escapes\" here'`, []string{`no \"escapes\" here`}, 0},
		{`a\ b c\'d`, []string{"a b", "c'd"}, 0},
		{`trailing\`, []string{`trailing\`}, 0},
		{`"unterminated one`, []string{"unterminated one"}, '"'},
		{`spawn 2 'it's`, []string{"spawn", "2", "its"}, 0},
		{`spawn 2 'open`, []string{"spawn", "2", "open"}, '\''},
		{"héllo 'wörld ✓'", []string{"héllo", "wörld ✓"}, 0},
	}
	for _, tt := range tests {
		got, open := Split(tt.in)
		if !reflect.DeepEqual(got, tt.want) || open != tt.open {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.in, got, open, tt.want, tt.open)
		}
	}
}
