package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// editTurn changes the workspace as turn k's tool calls would: direct
// writes (the edit tools), then a shell command that creates, modifies,
// moves and deletes files and directories, then a chmod. It returns what
// each call changed, by the call's id.
func editTurn(t *testing.T, root string, k int, files []string, pick func(int) int) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for range 3 {
		rel := files[pick(len(files))]
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			continue // a shell command of an earlier turn deleted it
		}
		put(t, root, rel, lines(rel, 18)+fmt.Sprintf("edited in turn %d\n", k))
		want["edit"] = append(want["edit"], rel)
	}
	victim, appendTo := files[pick(len(files))], files[k*37%len(files)]
	script := fmt.Sprintf(`set -e
mkdir -p new%02d/deep/er && printf 'made in turn %d\n' > new%02d/deep/er/made.txt
mkdir -p empty%02d
if [ -f %s ]; then printf 'appended in turn %d\n' >> %s; fi
rm -f %s
if [ -d pkg%02d/sub3 ] && [ %d -eq 7 ]; then rm -r pkg%02d/sub3; fi
if [ -f new%02d/deep/er/made.txt ] && [ %d -gt 1 ]; then mv new%02d/deep/er/made.txt moved%02d.txt; fi
`, k, k, k, k, appendTo, k, appendTo, victim, k%25, k, k%25, k-1, k, k-1, k)
	sh(t, root, script)
	if k%3 == 0 {
		sh(t, root, fmt.Sprintf("chmod 755 %s 2>/dev/null || true", files[k*11%len(files)]))
	}
	return want
}

func TestTwentyTurnsRewindExactly(t *testing.T) {
	_, tr, root := setup(t)
	files := generate(t, root, 1000, false)
	put(t, root, ".env", "API_KEY=first\n")
	odd := "odd\nname \x1b[31mred\x1b[0m.txt"
	put(t, root, odd, "a file with a hostile name\n")
	r := rng()
	pick := func(n int) int { return r.IntN(n) }

	before := map[int]tree{}
	for k := 1; k <= 20; k++ {
		before[k] = readTree(t, root)
		if err := tr.BeginTurn(k, 2*k); err != nil {
			t.Fatal(err)
		}
		edits := editTurn(t, root, k, files, pick)
		got, err := tr.AfterTool(k, fmt.Sprintf("call-%d-1", k), "edit_file")
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range edits["edit"] {
			if !slices.Contains(changed(got), rel) {
				t.Fatalf("turn %d: AfterTool missed %s (saw %v)", k, rel, changed(got))
			}
		}
		if k == 10 {
			put(t, root, ".env", "API_KEY=tenth\n")
			put(t, root, odd, "rewritten\n")
		}
		if _, err := tr.AfterTool(k, fmt.Sprintf("call-%d-2", k), "shell"); err != nil {
			t.Fatal(err)
		}
	}
	final := readTree(t, root)
	for _, k := range []int{1, 5, 11, 15} {
		if len(before[k]) == len(final) && len(before[k][".env"].data) == len(final[".env"].data) {
			t.Fatalf("turn %d's state looks like the final one: the test would prove nothing", k)
		}
	}

	turns, err := tr.Turns()
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 20 {
		t.Fatalf("Turns lists %d turns, want 20", len(turns))
	}
	for i, tn := range turns {
		if tn.N != i+1 || tn.MsgIndex != 2*(i+1) || len(tn.Changes) == 0 || tn.Added == 0 {
			t.Fatalf("turn %d = N %d msg %d, %d changes, +%d", i+1, tn.N, tn.MsgIndex, len(tn.Changes), tn.Added)
		}
	}

	// Rewind to several turns, then undo those rewinds one by one.
	rewind(t, tr, 15, 0)
	sameTree(t, "rewound to turn 15", readTree(t, root), before[15])
	rewind(t, tr, 5, 0)
	sameTree(t, "rewound to turn 5", readTree(t, root), before[5])
	rewinds, err := tr.Rewinds()
	if err != nil || len(rewinds) != 2 {
		t.Fatalf("Rewinds = %v, %v", rewinds, err)
	}
	rewind(t, tr, 0, rewinds[1].Undo)
	sameTree(t, "undid the rewind to turn 5", readTree(t, root), before[15])
	rewind(t, tr, 0, rewinds[0].Undo)
	sameTree(t, "undid the rewind to turn 15", readTree(t, root), final)
	rewind(t, tr, 1, 0)
	sameTree(t, "rewound to turn 1", readTree(t, root), before[1])
	rewind(t, tr, 11, 0)
	sameTree(t, "rewound to turn 11", readTree(t, root), before[11])
	if !strings.Contains(string(readTree(t, root)[".env"].data), "tenth") {
		t.Fatal(".env was not restored with the rest")
	}
}
