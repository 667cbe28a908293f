package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestAllToolsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range All() {
		name := tool.Name()
		if seen[name] {
			t.Errorf("duplicate tool %s", name)
		}
		seen[name] = true
		if !strings.Contains(tool.Description(), "Arguments") {
			t.Errorf("%s: description lacks an Arguments section", name)
		}
		var schema struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Errorf("%s: schema is not valid JSON: %v", name, err)
			continue
		}
		if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema must be a closed object", name)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", name, r)
			}
		}
		for p := range schema.Properties {
			if !strings.Contains(tool.Description(), "`"+p+"`") {
				t.Errorf("%s: description does not mention argument %q", name, p)
			}
		}
		// Every tool names an unknown argument in its error.
		res := call(t, newEnv(t, nil), name, `{"bogus_field": 1}`)
		checkResult(t, res, true, "bogus_field")
	}
	for _, n := range Core() {
		// The skill tool is made per agent, from its skills, by Skill.
		if !seen[n] && n != "skill" {
			t.Errorf("core tool %s is not in All", n)
		}
	}
	if got := len(Core()); got != 8 {
		t.Errorf("Core has %d tools, want 8", got)
	}
	if _, ok := ByName("nope"); ok {
		t.Error("ByName found a tool that does not exist")
	}
	if !slices.Equal(names(), names()) {
		t.Error("All is not stable")
	}
}

func TestDecodeArgs(t *testing.T) {
	type args struct {
		Path  string `json:"path"`
		Count int    `json:"count"`
		Flag  bool   `json:"flag"`
	}
	tests := []struct {
		raw     string
		want    args
		wantErr string
	}{
		{raw: `{"path":"a","count":2,"flag":true}`, want: args{"a", 2, true}},
		{raw: ``, want: args{}},
		{raw: `null`, want: args{}},
		{raw: `{"path":"a","extra":1}`, wantErr: `unknown argument "extra"`},
		{raw: `{"count":"two"}`, wantErr: `argument "count" must be an integer, not string`},
		{raw: `{"count":1.5}`, wantErr: `argument "count" must be an integer`},
		{raw: `{"path":3}`, wantErr: `argument "path" must be a string, not number`},
		{raw: `{"flag":"yes"}`, wantErr: `argument "flag" must be a boolean`},
		{raw: `["a"]`, wantErr: "must be a JSON object"},
		{raw: `{"path":"a"} {}`, wantErr: "trailing data"},
		{raw: `{"path":`, wantErr: "not valid JSON"},
	}
	for _, tt := range tests {
		var got args
		err := decodeArgs(json.RawMessage(tt.raw), &got)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.raw, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.raw, err, tt.wantErr)
		case tt.wantErr == "" && !reflect.DeepEqual(got, tt.want):
			t.Errorf("%s: got %+v, want %+v", tt.raw, got, tt.want)
		}
	}
}

func TestToolExpand(t *testing.T) {
	var asked []string
	var ext []Group
	env := newEnv(t, nil)
	env.Expand = func(n []string) []string { asked = n; return n }
	tests := []struct {
		args    string
		isError bool
		want    string
	}{
		{`{"names":["shell","edit_file"],"reason":"run tests"}`, false, "offered from the next call on: shell, edit_file"},
		{`{"names":["shell","rm_rf"]}`, true, "unknown tool(s) rm_rf; valid names: read_file"},
		{`{"names":[]}`, true, "at least one tool"},
		{`{"names":"shell"}`, true, `argument "names" must be an array`},
	}
	for _, tt := range tests {
		res := call(t, env, "tool_expand", tt.args)
		checkResult(t, res, tt.isError, tt.want)
	}
	if !slices.Equal(asked, []string{"shell", "edit_file"}) {
		t.Errorf("Expand got %v", asked)
	}
	env.External = func() []Group { return ext }
	ext = []Group{{Name: "mcp__ev", Label: "MCP server ev", Tools: []Tool{namedTool{"mcp__ev__echo"}, namedTool{"mcp__ev__add"}}}}
	checkResult(t, call(t, env, "tool_expand", `{"names":["mcp__ev__add"]}`), false, "offered from the next call on: mcp__ev__add")
	checkResult(t, call(t, env, "tool_expand", `{"names":["mcp__ev","shell"]}`), false, "mcp__ev__echo, mcp__ev__add, shell")
	checkResult(t, call(t, env, "tool_expand", `{"names":["mcp__ev__rm"]}`), true,
		"mcp__ev (all of MCP server ev, or one of: mcp__ev__echo, mcp__ev__add)")
	env.Expand = nil
	checkResult(t, call(t, env, "tool_expand", `{"names":["shell"]}`), true, "cannot offer")
}

// namedTool is an external tool that only has a name.
type namedTool struct{ name string }

func (n namedTool) Name() string            { return n.name }
func (n namedTool) Description() string     { return "" }
func (n namedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (n namedTool) Access() Access          { return Network }
func (n namedTool) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, nil
}
