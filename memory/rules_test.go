package memory

import (
	"context"
	"reflect"
	"testing"
)

func TestRulesExtract(t *testing.T) {
	tests := []struct {
		text string
		want []Candidate
	}{
		{"Remember that the staging database is db-staging.internal.",
			[]Candidate{{"the staging database is db-staging.internal", "remember", 0.95}}},
		{"Please note: the CI runs on Go 1.26.",
			[]Candidate{{"the CI runs on Go 1.26", "remember", 0.95}}},
		{"Don't forget to run make generate after editing the schema.",
			[]Candidate{{"run make generate after editing the schema", "remember", 0.95}}},
		{"I prefer table-driven tests. Always run go vet before committing!",
			[]Candidate{{"I prefer table-driven tests", "preference", 0.85}, {"Always run go vet before committing", "preference", 0.8}}},
		{"Never use panics in library code.", []Candidate{{"Never use panics in library code", "preference", 0.8}}},
		{"Please use pnpm instead of npm.", []Candidate{{"use pnpm instead of npm", "preference", 0.85}}},
		{"I like short commit messages.", []Candidate{{"I like short commit messages", "preference", 0.65}}},
		{"We prefer composition over inheritance.", []Candidate{{"We prefer composition over inheritance", "preference", 0.8}}},
		{"We decided to store sessions as JSONL.", []Candidate{{"We decided to store sessions as JSONL", "decision", 0.85}}},
		{"Let's go with bbolt for the vault.", []Candidate{{"Let's go with bbolt for the vault", "decision", 0.7}}},
		{"No, the config lives in ~/.config/kws/config.toml.",
			[]Candidate{{"the config lives in ~/.config/kws/config.toml", KindCorrection, 0.8}}},
		{"Actually the API server listens on port 9090.",
			[]Candidate{{"the API server listens on port 9090", KindCorrection, 0.75}}},
		{"That's wrong: the tests need Docker.", []Candidate{{"the tests need Docker", KindCorrection, 0.8}}},
		{"I renamed parseArgs to parseFlags.", []Candidate{{"parseArgs was renamed to parseFlags", KindRename, 0.85}}},
		{"config.go was renamed to settings.go", []Candidate{{"config.go was renamed to settings.go", KindRename, 0.85}}},
		{"`Lexer` is now `Scanner`", []Candidate{{"`Lexer` was renamed to `Scanner`", KindRename, 0.7}}},
		{"The session recorder lives in agent/session/recorder.go.",
			[]Candidate{{"The session recorder lives in agent/session/recorder.go", "path", 0.7}}},
		{"Forget that the API server listens on port 9090.",
			[]Candidate{{"the API server listens on port 9090", KindForget, 0.9}}},
		{"The old deploy script is no longer valid.", []Candidate{{"The old deploy script", KindForget, 0.8}}},
		{"It's no longer true that we deploy on Fridays.", []Candidate{{"we deploy on Fridays", KindForget, 0.8}}},
		// Several sentences and list items; a repeat is proposed once.
		{"- Remember that the vault is bbolt.\n- remember that the vault is bbolt\n* We agreed on cobra.",
			[]Candidate{{"the vault is bbolt", "remember", 0.95}, {"We agreed on cobra", "decision", 0.85}}},
		// Nothing to remember.
		{"The build is now green.", nil},
		{"The bug is in the parser.", nil},
		{"Run the tests.", nil},
		{"Never mind, it works now.", nil},
		{"No, thanks.", nil},
		{"Do you remember where the config is?", nil},
		{"", nil},
		// Secrets are never proposed.
		{"Remember my password is hunter22!", nil},
		{"remember the api key is sk-abcdefghijklmnopqrstuvwx", nil},
		{"Note that DATABASE_URL=postgres://admin:s3cret@db/prod", nil},
	}
	for _, tt := range tests {
		got, err := Rules{}.Extract(context.Background(), tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Extract(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
		}
	}
}

func TestRulesUseTheGivenSecretCheck(t *testing.T) {
	r := Rules{Sensitive: func(s string) bool { return len(s) > 0 && s[0] == 'R' }}
	got, _ := r.Extract(context.Background(), "Remember that the vault is bbolt. remember that the UI is tview.")
	if len(got) != 1 || got[0].Text != "the UI is tview" {
		t.Fatalf("custom Sensitive not applied: %+v", got)
	}
	var e Extractor = ExtractorFunc(func(context.Context, string) ([]Candidate, error) {
		return []Candidate{{Text: "x y", Kind: "note", Confidence: 1}}, nil
	})
	if c, _ := e.Extract(context.Background(), ""); len(c) != 1 {
		t.Fatal("ExtractorFunc did not call its function")
	}
}

func TestIsSensitive(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"-----BEGIN OPENSSH PRIVATE KEY-----", true},
		{"the key is AKIAABCDEFGHIJKLMNOP", true},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx", true},
		{"Authorization: Bearer abcdefghijklmnop1234", true},
		{"clone https://bob:hunter22@example.com/repo.git", true},
		{`password: "correct horse"`, true},
		{"my password is hunter22", true},
		{"the token is stored in the OS keychain", false},
		{"the api key lives in .env, never commit it", false},
		{"use pnpm instead of npm", false},
	}
	for _, tt := range tests {
		if got := IsSensitive(tt.text); got != tt.want {
			t.Errorf("IsSensitive(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
