package transcript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// TestTitlesHoldNoSecrets: issue 10 saw kws transcripts ls show an AWS key
// in a title. A title is made from the first user message with its
// secrets redacted, and a summary written before that (or edited with a
// secret) is redacted when listed or opened.
func TestTitlesHoldNoSecrets(t *testing.T) {
	for _, tc := range []struct{ in, secret string }{
		{"deploy with AKIAIOSFODNN7EXAMPLE to prod", "AKIAIOSFODNN7EXAMPLE"},
		{"log in with password: Sup3rS3cretPass then run the tests", "Sup3rS3cretPass"},
		{"publish using npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi", "npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi"},
		{strings.Repeat("x", 70) + " AKIAIOSFODNN7EXAMPLE", "AKIAIOSF"},
	} {
		if got := Title(tc.in); strings.Contains(got, tc.secret) {
			t.Errorf("Title(%q) = %q keeps the secret", tc.in, got)
		}
	}

	data := t.TempDir()
	s := mustCreate(t, data)
	if err := s.AppendMessage(provider.Message{Role: "user", Content: "use AKIAIOSFODNN7EXAMPLE for the bucket"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Summary().Title; got != "use [REDACTED] for the bucket" {
		t.Errorf("title = %q", got)
	}
	// A summary.json written by an older kws, with the key in its title.
	old := s.Summary()
	old.Title, old.LastError = "use AKIAIOSFODNN7EXAMPLE", "401: bad key sk-proj-abcdefghijklmnopqrstuv"
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := writeJSONAtomic(filepath.Join(s.Dir(), SummaryFile), old); err != nil {
		t.Fatal(err)
	}
	list, err := List(data)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if strings.Contains(list[0].Title+list[0].LastError, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(list[0].LastError, "sk-proj-") {
		t.Errorf("listed summary keeps a secret: %+v", list[0])
	}
	r, _ := mustOpen(t, data, s.ID())
	if got := r.Summary().Title; strings.Contains(got, "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("opened summary title = %q", got)
	}
}
