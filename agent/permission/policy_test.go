package permission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/tools"
)

func TestDecide(t *testing.T) {
	p := DefaultPolicy()
	if err := p.Apply(map[string]string{"write_file": "allow", "grep": "deny", "edit_file": "Ask"}, []string{"git status", " "}); err != nil {
		t.Fatal(err)
	}
	deny := DefaultPolicy()
	deny.Apply(map[string]string{"shell": "deny"}, []string{"git status"})
	unsandboxed := DefaultPolicy()
	unsandboxed.Apply(nil, []string{"git status"})
	unsandboxed.Unsandboxed = true
	allowFetch := DefaultPolicy()
	allowFetch.Apply(map[string]string{"web_fetch": "allow"}, nil)
	tests := []struct {
		policy  *Policy
		tool    string
		access  tools.Access
		preview string
		want    Decision
	}{
		{DefaultPolicy(), "read_file", tools.ReadOnly, "", Allow},
		{DefaultPolicy(), "write_file", tools.Writes, "diff", Ask},
		{DefaultPolicy(), "shell", tools.Executes, "ls", Ask},
		{nil, "read_file", tools.ReadOnly, "", Allow},
		{nil, "shell", tools.Executes, "git status", Ask},
		{p, "write_file", tools.Writes, "diff", Allow},
		{p, "grep", tools.ReadOnly, "", Deny},
		{p, "edit_file", tools.Writes, "", Ask},
		{p, "shell", tools.Executes, "git status", Allow},
		{p, "shell", tools.Executes, "git status; rm -rf /", Ask},
		{p, "shell", tools.Executes, `{"command":"git status"}`, Ask},
		{deny, "shell", tools.Executes, "git status", Deny},
		{p, "mcp_tool", tools.Writes, "git status", Ask},
		{unsandboxed, "shell", tools.Executes, "git status", Ask},
		// web_fetch asks like shell, and no shell prefix allows it.
		{DefaultPolicy(), "web_fetch", tools.Network, "GET https://example.com/", Ask},
		{p, "web_fetch", tools.Network, "git status", Ask},
		{allowFetch, "web_fetch", tools.Network, "GET https://example.com/", Allow},
	}
	for _, tt := range tests {
		if got := tt.policy.Decide(tt.tool, tt.access, tt.preview); got != tt.want {
			t.Errorf("Decide(%s, %d, %q) = %v, want %v", tt.tool, tt.access, tt.preview, got, tt.want)
		}
	}
	if len(p.ShellAllow) != 1 {
		t.Errorf("blank prefix kept: %q", p.ShellAllow)
	}
}

func TestApplyReportsInvalid(t *testing.T) {
	p := DefaultPolicy()
	err := p.Apply(map[string]string{"shell": "sometimes", "grep": "allow_once", "read_file": "deny"}, nil)
	if err == nil || !strings.Contains(err.Error(), `grep = "allow_once", shell = "sometimes"`) {
		t.Errorf("err = %v", err)
	}
	if p.Tools["read_file"] != Deny {
		t.Error("the valid entry was not applied")
	}
	if _, ok := p.Tools["shell"]; ok {
		t.Error("an invalid entry was applied")
	}
}

func TestDecisionText(t *testing.T) {
	for _, d := range []Decision{Ask, Allow, Deny, AllowOnce, AllowSession, AllowAll} {
		b, err := json.Marshal(map[string]Decision{"d": d})
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]Decision
		if err := json.Unmarshal(b, &back); err != nil || back["d"] != d {
			t.Errorf("%v: round trip gave %v, %v (%s)", d, back["d"], err, b)
		}
	}
	tests := []struct {
		in   string
		want Decision
		ok   bool
	}{
		{"allow", Allow, true}, {" DENY ", Deny, true}, {"allow-session", AllowSession, true},
		{"allow_once", AllowOnce, true}, {"ask", Ask, true}, {"yes", Ask, false},
	}
	for _, tt := range tests {
		got, err := ParseDecision(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseDecision(%q) = %v, %v", tt.in, got, err)
		}
	}
	if s := Decision(42).String(); s != "Decision(42)" {
		t.Errorf("String = %q", s)
	}
}

// TestPrefixDecisions: a name ending in "*" sets the decision of every
// tool it begins (an MCP server's tools); the longest prefix wins, and a
// tool's own entry wins over any prefix.
func TestPrefixDecisions(t *testing.T) {
	p := DefaultPolicy()
	if err := p.Apply(map[string]string{"mcp__gh__*": "allow", "mcp__gh__delete*": "deny", "mcp__gh__delete_label": "ask"}, nil); err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]Decision{
		"mcp__gh__list_issues": Allow, "mcp__gh__delete_repo": Deny, "mcp__gh__delete_label": Ask, "mcp__other__x": Ask,
	} {
		if got := p.Decide(tool, tools.Network, ""); got != want {
			t.Errorf("%s: %v, want %v", tool, got, want)
		}
	}
}
