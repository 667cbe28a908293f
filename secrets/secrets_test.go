package secrets

import (
	"strings"
	"testing"
)

// issueSecrets are the secrets issue 10 saw leave the vault, plus the
// ones the diet always redacted, each in the words it arrived in. The
// values are fake but shaped so the rules match them.
var issueSecrets = []struct {
	name, text, secret string
}{
	{"aws example key", "Intents: deploy with AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
	{"aws key", "key AKIAZ7VRSQ5TJN2RYX4M in a title", "AKIAZ7VRSQ5TJN2RYX4M"},
	{"password colon", "Intents: log in with password: Sup3rS3cretPass", "Sup3rS3cretPass"},
	{"aws secret ini", "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	{"password prose", "the staging password is tr0ub4dor&3", "tr0ub4dor&3"},
	{"password prose end", "remember that the db password is Hunter2x.", "Hunter2x"},
	{"stripe live", "charge with sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp", "sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp"},
	{"npm token", "//registry.npmjs.org/:_authToken=npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi", "npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi"},
	{"npm token prose", "publish with npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi please", "npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi"},
	{"gitlab pat", "use glpat-Xk3vR9mQ2tZ7wL1pN8sY for the api", "glpat-Xk3vR9mQ2tZ7wL1pN8sY"},
	{"slack webhook", "post to https://hooks.slack.com/services/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", "hooks.slack.com/services/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"},
	{"github token", "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	{"openai key", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv", "sk-proj-abcdefghijklmnopqrstuv"},
	{"quoted password", "password = \"correct horse battery\"", "correct horse battery"},
	{"env password", "DB_PASSWORD=s3cr3tvalue", "s3cr3tvalue"},
	{"url credentials", "url: postgres://app:hunter2pass@db:5432/x", "hunter2pass"},
	{"bearer", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"},
	{"short private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"},
	{"jwt", "tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "eyJhbGciOiJIUzI1NiJ9"},
}

func TestRedactIssueSecrets(t *testing.T) {
	for _, tc := range issueSecrets {
		t.Run(tc.name, func(t *testing.T) {
			if !Contains(tc.text) {
				t.Fatalf("Contains(%q) = false", tc.text)
			}
			out := Redact(tc.text)
			if strings.Contains(out, tc.secret) || !strings.Contains(out, Redacted) {
				t.Fatalf("Redact(%q) = %q", tc.text, out)
			}
		})
	}
}

// TestGitleaksRulesLoaded checks that the maintained rule set is the one
// running, not only the kws additions: its rules find the secrets the
// issue names, by their gitleaks ids.
func TestGitleaksRulesLoaded(t *testing.T) {
	if n := len(Rules()); n < 150 {
		t.Fatalf("%d rules loaded, want gitleaks' ~200 and kws's", n)
	}
	for text, want := range map[string]string{
		"sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp":                                             "stripe-access-token",
		"glpat-Xk3vR9mQ2tZ7wL1pN8sY":                                                    "gitlab-pat",
		"npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi":                                      "npm-access-token",
		"https://hooks.slack.com/services/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": "slack-webhook-url",
		"AKIAZ7VRSQ5TJN2RYX4M":                                                          "aws-access-token",
	} {
		found := false
		for _, s := range Find(text) {
			found = found || s.Rule == want
		}
		if !found {
			t.Errorf("Find(%q) = %v, want a %s span", text, Find(text), want)
		}
	}
}

func TestCleanTextKeepsItsWords(t *testing.T) {
	for _, clean := range []string{
		"token = next_token(stream)",
		"def get_password_hash(pw):",
		"the tokenizer counts tokens",
		"PASSWORD_MIN_LENGTH = 8",
		"the password is required for login",
		"secret := os.Getenv(\"KWS_SECRET\")",
		"api_key = config.get(\"api_key\")",
		"--- FAIL: TestAuthToken (0.01s)\n    auth_test.go:42: token expired",
		"go test ./... ok github.com/kwsdev/kws/vault 0.512s",
		"",
	} {
		if spans := Find(clean); len(spans) > 0 {
			t.Errorf("false positive in %q: %v → %q", clean, spans, Redact(clean))
		}
	}
}

func TestRedactMergesAndKeepsContext(t *testing.T) {
	text := "a AKIAIOSFODNN7EXAMPLE b\nDB_PASSWORD=s3cr3tvalue\nend"
	want := "a " + Redacted + " b\nDB_PASSWORD=" + Redacted + "\nend"
	if got := Redact(text); got != want {
		t.Fatalf("Redact = %q, want %q", got, want)
	}
	if got := Redact("no secrets here"); got != "no secrets here" {
		t.Fatalf("clean text changed: %q", got)
	}
}

func TestSpansAreSortedAndInside(t *testing.T) {
	var b strings.Builder
	for _, tc := range issueSecrets {
		b.WriteString("prefix é ")
		b.WriteString(tc.text)
		b.WriteString("\n")
	}
	text := b.String()
	spans := Find(text)
	if len(spans) < len(issueSecrets) {
		t.Fatalf("%d spans for %d secrets", len(spans), len(issueSecrets))
	}
	for i, s := range spans {
		if s.Start < 0 || s.End > len(text) || s.Start >= s.End || s.Rule == "" {
			t.Fatalf("bad span %+v", s)
		}
		if i > 0 && spans[i-1].Start > s.Start {
			t.Fatalf("spans out of order at %d: %v", i, spans)
		}
	}
}
