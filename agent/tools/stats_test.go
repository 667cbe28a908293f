package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestStatsTool checks that the stats tool returns the session's figures,
// refuses arguments, and says so when the session keeps none.
func TestStatsTool(t *testing.T) {
	tool, ok := ByName("stats")
	if !ok || tool.Access() != ReadOnly {
		t.Fatal("no read-only stats tool")
	}
	env := &Env{Stats: func() (string, error) { return "session figures of agent-1", nil }}
	if res, err := tool.Run(context.Background(), env, []byte(`{}`)); err != nil || res.IsError || res.Text != "session figures of agent-1" {
		t.Errorf("stats = %+v, %v", res, err)
	}
	if res, _ := tool.Run(context.Background(), env, []byte(`{"agent":"agent-2"}`)); !res.IsError {
		t.Errorf("an argument was accepted: %+v", res)
	}
	if res, _ := tool.Run(context.Background(), &Env{}, nil); !res.IsError || !strings.Contains(res.Text, "keeps no figures") {
		t.Errorf("without figures: %+v", res)
	}
	env.Stats = func() (string, error) { return "", errors.New("vault closed") }
	if res, _ := tool.Run(context.Background(), env, nil); !res.IsError || !strings.Contains(res.Text, "vault closed") {
		t.Errorf("a failure: %+v", res)
	}
}
