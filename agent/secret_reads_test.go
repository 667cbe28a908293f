package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// TestCompactionSummaryRedactsSecrets: issue 10 saw a compaction
// summary's Intents line keep an AWS key and a password.
func TestCompactionSummaryRedactsSecrets(t *testing.T) {
	msgs := []provider.Message{
		{Role: "user", Content: "deploy with AKIAIOSFODNN7EXAMPLE and password: Sup3rS3cretPass\nnever print the token ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		{Role: "assistant", Content: "I'll log in because the password is Hunter2x!"},
		{Role: "tool", Content: "error: login failed for postgres://app:hunter2pass@db/app"},
	}
	got := summarize(msgs, nil, []string{"config/.env"}, []string{"rotate aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
	for _, secret := range []string{"AKIAIOSFODNN7EXAMPLE", "Sup3rS3cretPass", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"Hunter2x", "hunter2pass", "wJalrXUtnFEMI"} {
		if strings.Contains(got, secret) {
			t.Errorf("compaction summary keeps %q:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "Intents:\n- deploy with [REDACTED] and password: [REDACTED]") {
		t.Errorf("Intents line lost its words:\n%s", got)
	}
}

func TestReadsSecretFile(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       bool
	}{
		{"read_file", `{"path":".env"}`, true},
		{"read_file", `{"path":"/home/u/.aws/credentials"}`, true},
		{"read_file", `{"path":"deploy/.pgpass"}`, true},
		{"grep", `{"pattern":"x","path":"~/.ssh/id_ed25519"}`, true},
		{"shell", `{"command":"cat ~/.aws/credentials | head"}`, true},
		{"shell", `{"command":"docker run --env-file=.env.production app"}`, true},
		{"read_file", `{"path":"main.go"}`, false},
		{"read_file", `{"path":".env.example"}`, false},
		{"shell", `{"command":"go test ./..."}`, false},
		{"read_file", `not json`, false},
	} {
		if got := readsSecretFile(provider.ToolCall{Name: tc.name, Arguments: tc.args}); got != tc.want {
			t.Errorf("readsSecretFile(%s %s) = %v", tc.name, tc.args, got)
		}
	}
}

// TestCredentialsFileReadIsWithheld: a .pgpass read through read_file is
// stored as a sensitive block whose summary quotes none of it, in the
// diet and in a compaction's vaulting.
func TestCredentialsFileReadIsWithheld(t *testing.T) {
	const password = "Wq9vTz2LkP4x"
	pgpass := strings.Repeat("db.internal:5432:app:app:"+password+"\n", 420)
	r := newRig(t, nil)
	if err := os.WriteFile(filepath.Join(r.ws, ".pgpass"), []byte(pgpass), 0o600); err != nil {
		t.Fatal(err)
	}
	r.srv.Push(providertest.ToolStep(call("c1", "read_file", map[string]any{"path": ".pgpass", "mode": "full"})), providertest.TextStep("ok"))
	r.run("check the db login")
	var metas []vault.Meta
	if err := r.vault.List(func(m vault.Meta) error { metas = append(metas, m); return nil }); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range metas {
		if strings.Contains(m.Summary, password) || strings.Contains(strings.Join(m.Topics, " "), password) {
			t.Fatalf("vault summary quotes the credentials file: %+v", m)
		}
		found = found || m.Sensitive
	}
	if !found {
		t.Fatalf("no sensitive block among %d: %+v", len(metas), metas)
	}

	msgs := r.a.history
	got, err := vaultIDs(vaulttest.MustOpen(t), msgs, 400, "t")
	if err != nil {
		t.Fatal(err)
	}
	withheld := false
	for i, v := range got {
		if msgs[i].Role == "tool" {
			withheld = v.desc.Sensitive && !strings.Contains(v.desc.Summary(400), password)
		}
	}
	if !withheld {
		t.Fatalf("compaction vaulted the credentials read unwithheld: %+v", got)
	}
}
