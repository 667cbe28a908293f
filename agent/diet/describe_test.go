package diet

import (
	"strings"
	"testing"
)

func TestDescribePytestFailure(t *testing.T) {
	out := `$ pytest tests/test_auth.py
============================= test session starts ==============================
collected 3 items

tests/test_auth.py ..F                                                   [100%]

=================================== FAILURES ===================================
____________________________ test_token_refresh ________________________________
    def test_token_refresh():
>       assert refresh_token(session) == "new"
E       AssertionError: assert 'old' == 'new'

auth/token.py:42: AssertionError
========================= 1 failed, 2 passed in 0.12s ==========================
`
	d := Describe("tool:shell", out)
	if d.Priority != "high" || d.Tests != "1 failed, 2 passed" {
		t.Fatalf("priority %q tests %q", d.Priority, d.Tests)
	}
	if len(d.Errors) == 0 || !strings.Contains(d.Errors[0], "AssertionError") {
		t.Fatalf("errors %q", d.Errors)
	}
	if len(d.Files) < 2 || d.Files[0] != "tests/test_auth.py" {
		t.Fatalf("files %q", d.Files)
	}
	if !contains(d.Topics, "assertionerror") {
		t.Fatalf("topics %q", d.Topics)
	}
	s := d.Summary(200)
	if len(s) > 200 || !strings.HasPrefix(s, "lines=") || !strings.Contains(s, "err=") {
		t.Fatalf("summary %q", s)
	}
	if small := d.Summary(30); len(small) > 30 || small == "" {
		t.Fatalf("small summary %q", small)
	}
}

func TestDescribeAssistantCommand(t *testing.T) {
	d := Describe("assistant", "Let me look at the file.\n```\nopen src/marshmallow/fields.py 1474\n```")
	if d.Command != "open src/marshmallow/fields.py 1474" {
		t.Fatalf("command %q", d.Command)
	}
	if s := d.Summary(40); !strings.HasPrefix(s, "cmd=open src/marshmallow") {
		t.Fatalf("summary %q", s)
	}
}

func TestDescribeIsDeterministicAndConfidenceBounded(t *testing.T) {
	text := strings.Repeat("alpha beta gamma delta\n", 50) + "error: boom\n"
	a, b := Describe("tool", text), Describe("tool", text)
	if a.Summary(100) != b.Summary(100) || strings.Join(a.Topics, ",") != strings.Join(b.Topics, ",") {
		t.Fatal("describe is not deterministic")
	}
	if a.Confidence < 0.05 || a.Confidence > 0.99 {
		t.Fatalf("confidence %v", a.Confidence)
	}
	if Describe("tool", "").Summary(50) != "" && Describe("tool", "x").Confidence <= 0 {
		t.Fatal("degenerate blocks")
	}
}

func TestClipKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", 20)
	for n := 0; n < 30; n++ {
		c := clip(s, n)
		if len(c) > n || !strings.HasPrefix(s+"…", strings.TrimSuffix(c, "…")) {
			t.Fatalf("clip(%d) = %q", n, c)
		}
		if !strings.HasSuffix(c, "…") && c != "" && c != s {
			t.Fatalf("clip(%d) = %q lost the ellipsis", n, c)
		}
	}
}

func TestRedact(t *testing.T) {
	cases := []struct {
		in, secret string
	}{
		{"key AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"},
		{"export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv", "sk-proj-abcdefghijklmnopqrstuv"},
		{"password = \"correct horse battery\"", "correct horse battery"},
		{"DB_PASSWORD=s3cr3tvalue", "s3cr3tvalue"},
		{"url: postgres://app:hunter2pass@db:5432/x", "hunter2pass"},
		{"Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow"},
		{"tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "eyJhbGciOiJIUzI1NiJ9"},
	}
	for _, tc := range cases {
		if !IsSensitive(tc.in) {
			t.Errorf("not sensitive: %q", tc.in)
		}
		if out := Redact(tc.in); strings.Contains(out, tc.secret) || !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q", tc.in, out)
		}
	}
	for _, clean := range []string{
		"token = next_token(stream)",
		"def get_password_hash(pw):",
		"the tokenizer counts tokens",
		"PASSWORD_MIN_LENGTH = 8",
	} {
		if IsSensitive(clean) {
			t.Errorf("false positive: %q → %q", clean, Redact(clean))
		}
	}
}

func TestCompactShortOutputWithLongLines(t *testing.T) {
	line := strings.Repeat("x", 20000)
	got := Compact(line+"\nok\n", `<ctx id="ctx:0011223344aa" n=20004/>`)
	if len(got) > 1000 || !strings.Contains(got, "[+19600 bytes]") || !strings.Contains(got, "ok") {
		t.Fatalf("compact: %.300q", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
