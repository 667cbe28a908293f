package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

func TestCtxGetAndSearch(t *testing.T) {
	v := vaulttest.MustOpen(t)
	body := "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.parse()\n"
	id, err := v.Put([]byte(body), vault.Meta{Kind: "tool:shell", Summary: `panic: "index" out of range`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Put([]byte("unrelated build log line\n"), vault.Meta{Kind: "tool:shell"}); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, nil)
	env.Vault = v
	short := strings.TrimPrefix(id, "ctx:")
	tests := []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"ctx_get", map[string]any{"id": id, "reason": "see the panic"}, false,
			`<ctx_exact id="` + id + `" original_chars=` + strconv.Itoa(len(body)) + ">\n" + body + "\n</ctx_exact>"},
		{"ctx_get", map[string]any{"id": strings.ToUpper(short)}, false, `<ctx_exact id="` + id + `"`},
		{"ctx_get", map[string]any{"id": "ctx:deadbeefdeadbeef"}, true, "no block ctx:deadbeefdeadbeef in the vault"},
		{"ctx_get", map[string]any{"id": "not-an-id"}, true, `"not-an-id" is not a block id`},
		{"ctx_get", map[string]any{}, true, `"" is not a block id`},
		{"ctx_search", map[string]any{"query": "index out of range", "k": 3}, false,
			`<ctx k="tool:shell" id="` + id + `" n=` + strconv.Itoa(len(body)) + ` s="panic: 'index' out of range"/>`},
		{"ctx_search", map[string]any{"query": "zzzqqq"}, false, `<ctx_results query="zzzqqq" n=0>` + "\n" + diet.NoHits},
		{"ctx_search", map[string]any{"query": " "}, true, `"query" must not be empty`},
		{"ctx_search", map[string]any{"query": "x", "k": 500}, true, `"k" must be between 1 and 50`},
	}
	for _, tt := range tests {
		res := call(t, env, tt.tool, tt.args)
		checkResult(t, res, tt.isError, tt.want)
	}
	res := call(t, env, "ctx_search", map[string]any{"query": "panic index"})
	if strings.Contains(res.Text, "goroutine 1") {
		t.Errorf("ctx_search leaked exact text: %s", res.Text)
	}
	for _, r := range vault.ParseRefs(res.Text) {
		if r.ID == "" {
			t.Errorf("unparseable ref in %s", res.Text)
		}
	}
}

func TestCtxWithoutVault(t *testing.T) {
	env := newEnv(t, nil)
	checkResult(t, call(t, env, "ctx_get", `{"id":"ctx:0123456789ab"}`), true, "not available")
	checkResult(t, call(t, env, "ctx_search", `{"query":"x"}`), true, "not available")
}

// failingVault fails every call, as a closed or broken vault would.
type failingVault struct{}

func (failingVault) Get(string) ([]byte, error)      { return nil, vault.ErrClosed }
func (failingVault) Meta(string) (vault.Meta, error) { return vault.Meta{}, vault.ErrClosed }
func (failingVault) Search(string, int) ([]vault.Hit, error) {
	return nil, vault.ErrClosed
}

func TestCtxVaultFailureIsGoError(t *testing.T) {
	env := newEnv(t, nil)
	env.Vault = failingVault{}
	for _, c := range []struct{ tool, args string }{
		{"ctx_get", `{"id":"ctx:0123456789ab"}`},
		{"ctx_search", `{"query":"x"}`},
	} {
		tool, _ := ByName(c.tool)
		if _, err := tool.Run(context.Background(), env, json.RawMessage(c.args)); !errors.Is(err, vault.ErrClosed) {
			t.Errorf("%s: err = %v, want vault.ErrClosed", c.tool, err)
		}
	}
}

func TestCtxGetOfDamagedBlock(t *testing.T) {
	v := vaulttest.MustOpen(t)
	data := "token refresh failed for user 42\nretrying with the cached session\n"
	id, err := v.Put([]byte(data), vault.Meta{Kind: "tool:shell"})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, nil)
	env.Vault = vaulttest.DamageBlock(t, v, []byte(data))
	res := call(t, env, "ctx_get", map[string]any{"id": id})
	checkResult(t, res, true, "is damaged")
	if strings.Contains(res.Text, "refresh failed") || strings.Contains(res.Text, "cached session") {
		t.Fatalf("the damaged block's bytes were served: %q", res.Text)
	}
}

func TestCtxToolsScopeSensitiveBlocks(t *testing.T) {
	v := vaulttest.MustOpen(t)
	env := newEnv(t, nil)
	secret := "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	own := "deploy credentials for the staging cluster: password hunter2\n"
	foreign, err := v.Put([]byte(secret), vault.Meta{Kind: "file", Sensitive: true, Topics: []string{"credentials"},
		Workspaces: []string{"/elsewhere/other-project"}})
	if err != nil {
		t.Fatal(err)
	}
	mine, err := v.Put([]byte(own), vault.Meta{Kind: "file", Sensitive: true, Topics: []string{"credentials"},
		Workspaces: []string{env.Workspace}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := v.Put([]byte("credentials rotation notes from the other project\n"), vault.Meta{Kind: "file",
		Workspaces: []string{"/elsewhere/other-project"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Vault = v
	res := call(t, env, "ctx_search", map[string]any{"query": "credentials"})
	if strings.Contains(res.Text, foreign) || !strings.Contains(res.Text, mine) || !strings.Contains(res.Text, plain) {
		t.Fatalf("ctx_search must hide only the other workspace's sensitive block %s: %s", foreign, res.Text)
	}
	for _, tc := range []struct{ id, want, secret string }{
		{foreign, "stored by another workspace", "wJalr"},
		{mine, "only after the user approves", "hunter2"},
	} {
		res := call(t, env, "ctx_get", map[string]any{"id": tc.id})
		checkResult(t, res, true, tc.want)
		if strings.Contains(res.Text, tc.secret) {
			t.Fatalf("ctx_get served the sensitive block %s: %s", tc.id, res.Text)
		}
	}
	checkResult(t, call(t, env, "ctx_get", map[string]any{"id": plain}), false, "credentials rotation notes")
}
