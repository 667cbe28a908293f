package tools

import (
	"context"
	"strings"
	"testing"
)

func TestShellHidesAPIKeys(t *testing.T) {
	t.Setenv("KWS_API_KEY", "sk-hidden-1")
	t.Setenv("OPENAI_API_KEY", "sk-hidden-2")
	t.Setenv("MY_ROUTER_KEY", "sk-hidden-3")
	t.Setenv("HARMLESS", "visible")
	env := &Env{Workspace: t.TempDir(), HideEnv: []string{"MY_ROUTER_KEY"}}
	sh, _ := ByName("shell")
	res, err := sh.Run(context.Background(), env, []byte(`{"command":"env"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "sk-hidden") || !strings.Contains(res.Text, "HARMLESS=visible") {
		t.Fatalf("shell environment: %q", res.Text)
	}
}
