package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/memory"
)

// TestMemoryAddRefusesSecrets: issue 10 saw kws memory add accept
// "password is X", sk_live_, npm_ and glpat- tokens and Slack webhook
// URLs. Each is refused with memory.ErrSensitive and nothing is listed.
func TestMemoryAddRefusesSecrets(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	mem := func(args ...string) (string, error) {
		t.Helper()
		return run(t, dir, nil, append([]string{"memory", "--workspace", ws}, args...)...)
	}
	for _, text := range []string{
		"the staging password is tr0ub4dor&3",
		"the stripe key is sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp",
		"publish with npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi",
		"CI uses glpat-Xk3vR9mQ2tZ7wL1pN8sY",
		"alerts go to https://hooks.slack.com/services/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",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	} {
		if out, err := mem("add", text); !errors.Is(err, memory.ErrSensitive) {
			t.Errorf("memory add %q = %q, %v; want ErrSensitive", text, out, err)
		}
	}
	if out, err := mem("ls", "--scope", "all"); err != nil || strings.Contains(out, "mem:") {
		t.Fatalf("memory ls after refused adds: %q %v", out, err)
	}
}

// TestSessionsListHidesSecretTitles: issue 10 saw kws transcripts ls show an
// AWS key in a title.
func TestSessionsListHidesSecretTitles(t *testing.T) {
	data := t.TempDir()
	s, err := transcript.Create(data, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(provider.Message{Role: "user", Content: "upload with AKIAIOSFODNN7EXAMPLE to the bucket"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, nil, "sessions", "ls")
	if err != nil || strings.Contains(out, "AKIA") || !strings.Contains(out, "upload with [REDACTED] to the bucket") {
		t.Fatalf("sessions ls: %q %v", out, err)
	}
}
