package memory

import (
	"reflect"
	"strings"
	"testing"
)

func TestRenamesIn(t *testing.T) {
	cases := []struct {
		cmd  string
		want []Rename
	}{
		{"git mv internal/parse internal/parser", []Rename{{"internal/parse", "internal/parser", true}}},
		{"mv old.go new.go", []Rename{{"old.go", "new.go", false}}},
		{"git mv -f a.go b.go && go build ./... && cd x && mv c d", []Rename{{"a.go", "b.go", true}}},
		{"mv -v -- 'my file.txt' \"your file.txt\"; mv c d", []Rename{{"my file.txt", "your file.txt", false}, {"c", "d", false}}},
		{"GIT_TRACE=1 git mv ./a/ b", []Rename{{"a", "b", true}}},
		{"mv a\\ b c", []Rename{{"a b", "c", false}}},
		{"mv -fv a b\nmv e f", []Rename{{"a", "b", false}, {"e", "f", false}}},
		// Not renames, or not knowable before the command runs.
		{"git mv -n a b", nil},
		{"git mv --dry-run a b", nil},
		{"mv a b c", nil},
		{"mv a", nil},
		{"mv /tmp/a b", nil},
		{"mv a ../b", nil},
		{"mv ~/a b", nil},
		{"mv a a/", nil},
		{"mv $OLD b", nil},
		{"mv \"$OLD\" b", nil},
		{"mv *.go src", nil},
		{"mv -t dir a", nil},
		{"mv $(ls) x", nil},
		{"mv 'unterminated b", nil},
		{"echo mv a b", nil},
		{"git commit -m 'mv a b'", nil},
		{"mv a b > log", nil},
		{"cd sub && mv a b", nil},
		{"cd \"$DIR\"; mv a b", nil},
		{"pushd x\nmv a b", nil},
		{"ls # old; mv a.go b.go", nil},
		{"ls # old\nmv a.go b.go", []Rename{{"a.go", "b.go", false}}},
		{"mv a#b c", []Rename{{"a#b", "c", false}}},
		{"mv 'a`b' c", nil},
		{"mv 'a  b' c", nil},
		{"mv ' a' c", nil},
	}
	for _, tc := range cases {
		if got := RenamesIn(tc.cmd); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RenamesIn(%q) = %+v, want %+v", tc.cmd, got, tc.want)
		}
	}
}

func TestRenameCandidateIsReadAsARename(t *testing.T) {
	c := RenameCandidate(Rename{Old: "README", New: "docs/README.md"}, 0.75)
	if old, repl, ok := parseRename(c.Text); !ok || old != "README" || repl != "docs/README.md" || c.Kind != KindRename {
		t.Fatalf("%+v parses as %q → %q (%v)", c, old, repl, ok)
	}
}

// FuzzRenamesIn checks that any command line parses without panicking
// and yields only renames between distinct plain relative paths.
func FuzzRenamesIn(f *testing.F) {
	for _, s := range []string{"git mv a b", "mv -fv -- 'x y' \"z\\\"\" && mv c d", "mv a\\", "mv 'a", "x=1 mv a b; git mv -n c d\nmv e/ f/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, r := range RenamesIn(cmd) {
			if !plainPath(r.Old) || !plainPath(r.New) || r.Old == r.New {
				t.Fatalf("RenamesIn(%q) gave %+v", cmd, r)
			}
			// The memory's sentence, as promotion folds it, reads back as
			// the same rename.
			text := strings.Join(strings.Fields(RenameCandidate(r, 0.75).Text), " ")
			if old, repl, ok := parseRename(text); !ok || old != r.Old || repl != r.New {
				t.Fatalf("RenamesIn(%q) gave %+v, whose memory %q reads back as %q → %q (%v)", cmd, r, text, old, repl, ok)
			}
		}
	})
}
