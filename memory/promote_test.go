package memory

import (
	"context"
	"strings"
	"testing"
)

// step is one promotion and what it must do.
type step struct {
	cand     Candidate
	action   Action
	count    int    // memories in the scope afterwards
	wantText string // a substring of the returned memory's text
}

func TestPromote(t *testing.T) {
	prov := Provenance{Session: "s1", Turn: 3, Source: SourceUser}
	tests := []struct {
		name  string
		opts  Options
		steps []step
	}{
		{"dedupe", Options{}, []step{
			{Candidate{"use pnpm instead of npm", "preference", 0.85}, ActionAdd, 1, "pnpm"},
			{Candidate{"Use pnpm instead of npm.", "preference", 0.85}, ActionNoop, 1, "pnpm"},
			{Candidate{"use pnpm instead of npm", "remember", 0.95}, ActionUpdate, 1, "pnpm"},
		}},
		{"correction updates", Options{}, []step{
			{Candidate{"the API server listens on port 8080", "remember", 0.95}, ActionAdd, 1, "8080"},
			{Candidate{"the session recorder lives in agent/session", "path", 0.7}, ActionAdd, 2, "recorder"},
			{Candidate{"the API server listens on port 9090", KindCorrection, 0.75}, ActionUpdate, 2, "9090"},
		}},
		{"unrelated correction adds", Options{}, []step{
			{Candidate{"the API server listens on port 8080", "remember", 0.95}, ActionAdd, 1, "8080"},
			{Candidate{"the tests need Docker", KindCorrection, 0.8}, ActionAdd, 2, "Docker"},
		}},
		{"similar non-correction adds", Options{}, []step{
			{Candidate{"the parser lives in internal/parse/parser.go", "path", 0.7}, ActionAdd, 1, "parser"},
			{Candidate{"the lexer lives in internal/lex/lexer.go", "path", 0.7}, ActionAdd, 2, "lexer"},
		}},
		{"forget deletes", Options{}, []step{
			{Candidate{"the API server listens on port 8080", "remember", 0.95}, ActionAdd, 1, "8080"},
			{Candidate{"we deploy on Fridays", "decision", 0.85}, ActionAdd, 2, "Fridays"},
			{Candidate{"the API server listens on port 8080", KindForget, 0.9}, ActionDelete, 1, "8080"},
			{Candidate{"the moon is made of cheese", KindForget, 0.9}, ActionNoop, 1, ""},
		}},
		{"rename rewrites", Options{}, []step{
			{Candidate{"flags are parsed by parseArgs in cmd/kws/main.go", "path", 0.7}, ActionAdd, 1, "parseArgs"},
			{Candidate{"parseArgs was renamed to parseFlags", KindRename, 0.85}, ActionUpdate, 1, "parsed by parseFlags in"},
			{Candidate{"config.go was renamed to settings.go", KindRename, 0.85}, ActionAdd, 2, "settings.go"},
		}},
		{"a rename said twice stays as said", Options{}, []step{
			{Candidate{"config.go was renamed to settings.go", KindRename, 1}, ActionAdd, 1, "config.go was renamed to settings.go"},
			{Candidate{"config.go was renamed to settings.go", KindRename, 1}, ActionNoop, 1, "config.go was renamed to settings.go"},
			{Candidate{"`a` was renamed to `b`", KindRename, 1}, ActionAdd, 2, "`a` was renamed to `b`"},
			{Candidate{"`a` was renamed to `b`", KindRename, 1}, ActionNoop, 2, "`a` was renamed to `b`"},
			{Candidate{"`a` was renamed to `c`", KindRename, 1}, ActionAdd, 3, "`a` was renamed to `c`"},
		}},
		{"a rename follows a later rename of its new name", Options{}, []step{
			{Candidate{"config.go was renamed to settings.go", KindRename, 1}, ActionAdd, 1, "config.go was renamed to settings.go"},
			{Candidate{"settings.go was renamed to prefs.go", KindRename, 1}, ActionUpdate, 1, "config.go was renamed to prefs.go"},
			{Candidate{"prefs.go was renamed to config.go", KindRename, 1}, ActionAdd, 2, "prefs.go was renamed to config.go"},
		}},
		{"threshold", Options{}, []step{
			{Candidate{"I like short commit messages", "preference", 0.5}, ActionNoop, 0, ""},
			{Candidate{"I like short commit messages", "preference", 0.6}, ActionAdd, 1, "short"},
		}},
		{"review queues", Options{Review: true, MinConfidence: 0.7}, []step{
			{Candidate{"I like short commit messages", "preference", 0.65}, ActionPending, 0, "short"},
			{Candidate{"my password is hunter22", "remember", 0.5}, ActionNoop, 0, ""},
			{Candidate{"I like snake case for test names", "preference", 0.3}, ActionPending, 0, "snake"},
			{Candidate{"I dislike long functions", "preference", 0.29}, ActionNoop, 0, ""},
		}},
		{"no secrets, no blanks", Options{}, []step{
			{Candidate{"the deploy key is AKIAABCDEFGHIJKLMNOP", "remember", 0.95}, ActionNoop, 0, ""},
			{Candidate{"  ", "remember", 0.95}, ActionNoop, 0, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := mustOpen(t, t.TempDir(), tt.opts)
			for i, st := range tt.steps {
				act, m, err := s.Promote(ctx, st.cand, proj, prov)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if act != st.action || s.Count(proj) != st.count || !strings.Contains(m.Text, st.wantText) {
					t.Fatalf("step %d (%q): %s %q, %d memories; want %s %q, %d",
						i, st.cand.Text, act, m.Text, s.Count(proj), st.action, st.wantText, st.count)
				}
				if (act == ActionAdd || act == ActionUpdate) && m.Provenance.Session != "s1" {
					t.Fatalf("step %d: provenance lost: %+v", i, m.Provenance)
				}
			}
		})
	}
}

func TestPromoteKeepsKindOnCorrection(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	_, orig, _ := s.Promote(ctx, Candidate{"the API server listens on port 8080", "path", 0.9}, proj, Provenance{Source: SourceUser})
	act, m, err := s.Promote(ctx, Candidate{"the API server listens on port 9090", KindCorrection, 0.8}, proj, Provenance{Source: SourceSidecar})
	if err != nil || act != ActionUpdate {
		t.Fatalf("%s %v", act, err)
	}
	if m.ID != orig.ID || m.Kind != "path" || m.Confidence != 0.8 || m.Provenance.Source != SourceSidecar || !m.Created.Equal(orig.Created) {
		t.Fatalf("corrected memory %+v, original %+v", m, orig)
	}
	if _, _, err := s.Promote(ctx, Candidate{"x y", "note", 1}, "elsewhere", Provenance{}); err == nil {
		t.Fatal("Promote accepted a bad scope")
	}
}

// TestPipeline runs user turns through the rules and promotion.
func TestPipeline(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir(), Options{})
	turns := []string{
		"Remember that the API server listens on port 8080. Please use pnpm instead of npm.",
		"Remember that the API server listens on port 8080.",
		"Actually, the API server listens on port 9090.",
		"Forget that we use pnpm instead of npm.",
	}
	for i, turn := range turns {
		cands, _ := Rules{}.Extract(ctx, turn)
		for _, c := range cands {
			if _, _, err := s.Promote(ctx, c, proj, Provenance{Turn: i + 1, Source: SourceUser}); err != nil {
				t.Fatal(err)
			}
		}
	}
	list, err := s.List(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Text != "the API server listens on port 9090" || list[0].Provenance.Turn != 3 {
		t.Fatalf("after the pipeline: %+v", list)
	}
}

func TestReplaceName(t *testing.T) {
	cases := []struct {
		text, name, repl, want string
	}{
		{"parseArgs calls parseArgsV2 and parseArgs.", "parseArgs", "parseFlags", "parseFlags calls parseArgsV2 and parseFlags."},
		{"main.go and cmd/kws/main.go and main.go.bak", "main.go", "app.go", "app.go and cmd/kws/main.go and main.go.bak"},
		{"the parser lives in internal/parse.", "internal/parse", "internal/parser", "the parser lives in internal/parser."},
		{"see internal/parse/lexer.go", "internal/parse", "internal/parser", "see internal/parser/lexer.go"},
		{"see internal/parsed", "internal/parse", "internal/parser", "see internal/parsed"},
		{"see `internal/parse` and (internal/parse)", "internal/parse", "pkg/parse", "see `pkg/parse` and (pkg/parse)"},
		{"run make test first", "test", "tests", "run make tests first"},
		{"a-test-b test_x", "test", "tests", "a-tests-b test_x"},
	}
	for _, tc := range cases {
		if got, _ := replaceName(tc.text, tc.name, tc.repl); got != tc.want {
			t.Errorf("replaceName(%q, %q, %q) = %q, want %q", tc.text, tc.name, tc.repl, got, tc.want)
		}
	}
}

// TestDuplicatesNeedTheSameWords: a candidate whose vector is as good as
// identical to a memory's is still a new memory when its words differ,
// as with a negation or an embedding model that finds all short sentences
// alike; the same words in another case and punctuation are a duplicate.
func TestDuplicatesNeedTheSameWords(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"hash", Options{}},
		{"one vector for everything", Options{EmbedderID: "const", Embedder: func(context.Context, string) ([]float32, error) {
			return []float32{1, 0, 0}, nil
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, t.TempDir(), tc.opts)
			promote := func(text string) (Action, Memory) {
				t.Helper()
				act, m, err := s.Promote(ctx, Candidate{Text: text, Confidence: 1}, GlobalScope, Provenance{Source: SourceManual})
				if err != nil {
					t.Fatal(err)
				}
				return act, m
			}
			_, first := promote("use pnpm instead of npm")
			for _, text := range []string{"do not use pnpm instead of npm", "the staging database is on port 5433"} {
				if act, m := promote(text); act != ActionAdd || m.ID == first.ID {
					t.Errorf("%q: %s %s, want a new memory", text, act, m.ID)
				}
			}
			if act, m := promote("Use pnpm, instead of npm!"); act != ActionNoop || m.ID != first.ID {
				t.Errorf("the same words: %s %s, want noop on %s", act, m.ID, first.ID)
			}
			if n := s.Count(); n != 3 {
				t.Errorf("%d memories, want 3", n)
			}
		})
	}
}
