package memory

import (
	"context"
	"testing"
)

// TestSecretsAreNeverStored: issue 10 saw memory_save store
// "aws_secret_access_key = wJalr…" and memory add accept "password is X",
// sk_live_, npm_, glpat- tokens and Slack webhook URLs. A real store
// keeps none of them.
func TestSecretsAreNeverStored(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"the staging password is tr0ub4dor&3",
		"the stripe key is sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp",
		"publish with npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi",
		"the gitlab token glpat-Xk3vR9mQ2tZ7wL1pN8sY works for CI",
		"alerts go to https://hooks.slack.com/services/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",
		"deploy with AKIAIOSFODNN7EXAMPLE",
		"log in with password: Sup3rS3cretPass",
	} {
		act, _, err := s.Promote(context.Background(), Candidate{Text: text, Kind: "remember", Confidence: 1},
			GlobalScope, Provenance{Source: SourceManual})
		if err != nil || act != ActionNoop {
			t.Errorf("Promote(%q) = %s, %v; want noop", text, act, err)
		}
		if !IsSensitive(text) {
			t.Errorf("IsSensitive(%q) = false", text)
		}
	}
	if list, err := s.List(context.Background(), GlobalScope); err != nil || len(list) != 0 {
		t.Fatalf("stored %d memories (%v)", len(list), err)
	}
}
