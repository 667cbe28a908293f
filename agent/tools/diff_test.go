package tools

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"new file", "", "a\nb\n", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
		{"one change", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"},
		{"no newline at end", "a\nb", "a\nc", "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"newline added", "a", "a\n", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "X\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nY\n",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+Y\n"},
		{"merged hunks", "1\n2\n3\n4\n5\n6\n7\n8\n", "X\n2\n3\n4\n5\n6\n7\nY\n",
			"--- a\n+++ b\n@@ -1,8 +1,8 @@\n-1\n+X\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+Y\n"},
		{"insert in middle", "a\nb\nc\n", "a\nb\nnew\nc\n", "--- a\n+++ b\n@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n"},
	}
	for _, tt := range tests {
		if got := unifiedDiff("a", "b", tt.a, tt.b); got != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// TestDiffApplies checks random edits: our diff, applied by patch(1),
// turns the old text into the new one exactly.
func TestDiffApplies(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) is not installed")
	}
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	for i := 0; i < 60; i++ {
		a := randomText(rng, rng.Intn(60))
		b := mutate(rng, a)
		if a == b {
			continue
		}
		d := unifiedDiff("a/f.txt", "b/f.txt", a, b)
		f := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(f, []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(patch, "-s", "-p1", "-f", "--no-backup-if-mismatch")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch failed: %v\n%s\ndiff:\n%s", i, err, out, d)
		}
		got, _ := os.ReadFile(f)
		if string(got) != b {
			t.Fatalf("case %d: patched text differs\nwant %q\ngot  %q\ndiff:\n%s", i, b, got, d)
		}
	}
}

// TestDiffOps checks that the edit script reproduces both sides, also past
// the edit-distance bound.
func TestDiffOps(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100; i++ {
		a := splitLines(randomText(rng, rng.Intn(300)))
		b := splitLines(mutate(rng, strings.Join(a, "")))
		if i%10 == 0 {
			b = splitLines(randomText(rng, 3000)) // D beyond maxEditDistance
		}
		var ga, gb strings.Builder
		for _, op := range diffLines(a, b) {
			if op.kind != opInsert {
				ga.WriteString(op.text)
			}
			if op.kind != opDelete {
				gb.WriteString(op.text)
			}
		}
		if ga.String() != strings.Join(a, "") || gb.String() != strings.Join(b, "") {
			t.Fatalf("case %d: ops do not reproduce the inputs", i)
		}
	}
}

func randomText(rng *rand.Rand, lines int) string {
	words := []string{"alpha", "beta", "gamma", "delta", "}", "{", "", "return x"}
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(words[rng.Intn(len(words))] + "\n")
	}
	s := b.String()
	if rng.Intn(4) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func mutate(rng *rand.Rand, s string) string {
	lines := splitLines(s)
	for n := rng.Intn(6); n >= 0; n-- {
		at := 0
		if len(lines) > 0 {
			at = rng.Intn(len(lines))
		}
		switch rng.Intn(3) {
		case 0:
			lines = append(lines[:at], append([]string{"inserted\n"}, lines[at:]...)...)
		case 1:
			if len(lines) > 0 {
				lines = append(lines[:at], lines[at+1:]...)
			}
		default:
			if len(lines) > 0 {
				lines[at] = "changed\n"
			}
		}
	}
	out := strings.Join(lines, "")
	if rng.Intn(5) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}
