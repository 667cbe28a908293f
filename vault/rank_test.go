package vault

import (
	"fmt"
	"strings"
	"testing"
)

// put stores text as message i of conversation s with meta m.
func put(t *testing.T, v *Vault, text string, m Meta) string {
	t.Helper()
	id, err := v.Put([]byte(text), m)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// window renders an editor window of lines from..to of file.
func window(file string, from, to int, tag string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[File: /repo/%s (2000 lines total)]\n", file)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d:    x_%d = compute(%s)\n", i, i, tag)
	}
	return b.String()
}

func TestFindRanksEvidence(t *testing.T) {
	v := MustOpen(t)
	conv := func(i int, kind, cmd string) Meta {
		return Meta{Kind: kind, Agent: "dev", Session: "s1", MsgIndex: i, Command: cmd}
	}
	system := put(t, v, "You run python reproduce.py to reproduce issues; seq prints numbers; output of commands is shown.", conv(0, "system", ""))
	demo := put(t, v, "Demonstration: python reproduce.py printed 344 and the fix made it print 345.", conv(1, "demo", ""))
	run1 := put(t, v, "Traceback (most recent call last):\nValueError: bad precision 344\n", conv(4, "observation", "python reproduce.py"))
	win1 := put(t, v, window("seaborn/axisgrid.py", 1, 100, "a"), conv(6, "observation", "open seaborn/axisgrid.py"))
	win2 := put(t, v, window("seaborn/axisgrid.py", 1150, 1250, "b"), conv(8, "observation", "goto 1200"))
	run2 := put(t, v, "345\nall good now\n", conv(10, "observation", "python reproduce.py"))
	seq := put(t, v, "1\n2\n3\n4\n5\n", conv(12, "tool", "seq 1 100000"))
	_ = put(t, v, "Let me run it again.\n```\npython reproduce.py\n```", conv(13, "assistant", "python reproduce.py"))

	cases := []struct {
		q    Query
		want string
		not  []string
	}{
		{Query{Text: "seq"}, seq, nil},
		{Query{Text: "python reproduce.py"}, run2, []string{system, demo}},
		{Query{Text: "what did `python reproduce.py` print 10 messages ago?", Agent: "dev", Session: "s1", Now: 14}, run1, nil},
		{Query{Text: "what did `python reproduce.py` print 4 messages ago?", Agent: "dev", Session: "s1", Now: 14}, run2, nil},
		{Query{Text: "what did `python reproduce.py` print 10 messages ago?"}, run1, nil},
		{Query{Text: "what did the last run of `python reproduce.py` print?"}, run2, nil},
		{Query{Text: "in the editor window of seaborn/axisgrid.py, what exactly was line 1200?"}, win2, nil},
		{Query{Text: "line 40 of axisgrid.py"}, win1, nil},
	}
	for _, tc := range cases {
		hits, err := v.Find(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].ID != tc.want {
			t.Errorf("%q: top hit %v, want %s", tc.q.Text, hits, tc.want)
			continue
		}
		for _, h := range hits[:min(3, len(hits))] {
			for _, bad := range tc.not {
				if h.ID == bad {
					t.Errorf("%q: %s (%s) ranks in the top 3", tc.q.Text, bad, h.Meta.Kind)
				}
			}
		}
	}
	if hits, err := v.Search("zzzqqq", 5); err != nil || len(hits) != 0 {
		t.Errorf("nonsense query: %v %v", hits, err)
	}
}

// TestRepeatedBytesKeepEveryPlace puts the same output from two
// conversations: recency finds it in the second one too.
func TestRepeatedBytesKeepEveryPlace(t *testing.T) {
	v := MustOpen(t)
	out := "AUTHORS.rst\nCHANGELOG.rst\nREADME.rst\nsetup.py\nsrc/\ntests/\n"
	id := put(t, v, out, Meta{Kind: "observation", Agent: "a", Session: "one", MsgIndex: 3, Command: "ls -F"})
	put(t, v, out, Meta{Kind: "observation", Agent: "b", Session: "two", MsgIndex: 7, Command: "ls -F"})
	put(t, v, out, Meta{Kind: "observation", Agent: "b", Session: "two", MsgIndex: 7, Command: "ls -F"})
	other := put(t, v, "src/\ntests/\n", Meta{Kind: "observation", Agent: "b", Session: "two", MsgIndex: 2, Command: "ls -F"})
	m, err := v.Meta(id)
	if err != nil || len(m.Also) != 1 || m.Also[0] != (Place{Agent: "b", Session: "two", MsgIndex: 7}) {
		t.Fatalf("places %+v %v", m.Also, err)
	}
	hits, err := v.Find(Query{Text: "what did `ls -F` print 3 messages ago?", Agent: "b", Session: "two", Now: 10})
	if err != nil || len(hits) < 2 || hits[0].ID != id || hits[1].ID != other {
		t.Fatalf("hits %+v %v", hits, err)
	}
}

func TestParseQuery(t *testing.T) {
	p := parseQuery("in the editor window of seaborn/axisgrid.py shown 45 messages ago, what exactly was line 1200?")
	if p.ago != 45 || p.line != 1200 || p.file != "axisgrid.py" || p.last {
		t.Errorf("window question: %+v", p)
	}
	p = parseQuery("what did the last run of `Python  reproduce.py` print?")
	if !p.last || p.cmdText != "python reproduce.py" || strings.Join(p.terms, " ") != "python reproduce.py reproduce py" {
		t.Errorf("last-run question: %+v", p)
	}
	if p := parseQuery("what"); len(p.terms) != 1 {
		t.Errorf("a query of frame words alone keeps them: %+v", p)
	}
}

// TestFindWhilePutting searches by recency while other goroutines put
// blocks (run with -race): the place map stays consistent.
func TestFindWhilePutting(t *testing.T) {
	v := MustOpen(t)
	put(t, v, "warm up output\n", Meta{Kind: "tool", Agent: "a", MsgIndex: 0, Command: "make"})
	done := make(chan error, 2)
	for w := 0; w < 2; w++ {
		go func(w int) {
			for i := 1; i <= 50; i++ {
				text := fmt.Sprintf("build %d of worker %d\n", i, w)
				if _, err := v.Put([]byte(text), Meta{Kind: "tool", Agent: fmt.Sprint(w), MsgIndex: i, Command: "make"}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(w)
	}
	for i := 0; i < 20; i++ {
		if _, err := v.Search("what did the last run of `make` print?", 3); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Search("what did `make` print 3 messages ago?", 3); err != nil {
			t.Fatal(err)
		}
	}
	for w := 0; w < 2; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	hits, err := v.Find(Query{Text: "what did the last run of `make` print?", Agent: "1"})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Meta.Agent, "1") || hits[0].Meta.MsgIndex != 50 {
		t.Fatalf("last run in agent 1: %+v %v", hits, err)
	}
}

// TestRecencyCountsFromTheStatsLog: a conversation is as long as the
// messages its last diet call sent, though its last messages were too
// short to be stored.
func TestRecencyCountsFromTheStatsLog(t *testing.T) {
	v := MustOpen(t)
	early := put(t, v, "first build output\n", Meta{Kind: "tool", Agent: "a", MsgIndex: 2, Command: "make"})
	late := put(t, v, "second build output\n", Meta{Kind: "tool", Agent: "a", MsgIndex: 5, Command: "make"})
	q := "what did `make` print 4 messages ago?"
	if hits, err := v.Search(q, 1); err != nil || len(hits) != 1 || hits[0].ID != early {
		t.Fatalf("before the stats event: %+v %v", hits, err)
	}
	if err := v.AppendStats(DietEvent{Agent: "a", Call: 3, Messages: 9}); err != nil {
		t.Fatal(err)
	}
	if hits, err := v.Search(q, 1); err != nil || len(hits) != 1 || hits[0].ID != late {
		t.Fatalf("after the stats event: %+v %v", hits, err)
	}
}
