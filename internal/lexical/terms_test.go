package lexical

import (
	"slices"
	"testing"
)

func TestCodeTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"AssertionError in src/app_main.py:12", []string{"assertionerror", "assertion", "error", "in",
			"src/app_main.py", "app_main.py", "src", "app_main", "app", "main", "py", "12"}},
		{"./run.sh --fast", []string{"run.sh", "run", "sh", "fast"}},
		{"a x_y __init__ HTTPServer", []string{"x_y", "__init__", "httpserver"}},
		// ASCII only: other letters separate words, as the vault's
		// persisted terms were made.
		{"café naïve", []string{"caf", "na", "ve"}},
	}
	for _, tt := range tests {
		if got := Code.Terms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Code.Terms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestProseTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Caroline: I went to the LGBTQ support group yesterday", []string{"carolin", "went", "lgbtq", "support", "group", "yesterdai"}},
		{"What did Melanie paint? She painted sunsets.", []string{"melani", "paint", "sunset"}},
		{"Ich möchte Käse, naïve café", []string{"ich", "möchte", "käse", "naïve", "café"}},
		{"the runTests helper in memory/search.go", []string{"runtest", "run", "test", "helper", "memory/search.go", "search.go", "memori", "search", "go"}},
		{"didn't it's I'm", nil},
	}
	for _, tt := range tests {
		if got := Prose.Terms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Prose.Terms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestWordLength(t *testing.T) {
	long := make([]byte, 65)
	for i := range long {
		long[i] = 'x'
	}
	if got := Code.Terms(string(long[:64]) + " " + string(long)); len(got) != 1 || len(got[0]) != 64 {
		t.Errorf("64- and 65-letter words gave %q", got)
	}
	// Characters, not bytes, count for a Unicode word.
	if got := Prose.Terms("é ñandú"); !slices.Equal(got, []string{"ñandú"}) {
		t.Errorf("got %q", got)
	}
}
