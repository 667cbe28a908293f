package tools

import (
	"context"
	_ "embed"
	"encoding/json"
)

//go:embed stats.md
var statsDoc string

type statsTool struct{ spec }

func newStats() Tool {
	return statsTool{spec{name: "stats", doc: statsDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {},
  "additionalProperties": false
}`}}
}

// Run returns the session's figures as Env.Stats reports them.
func (statsTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct{}
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("stats: %v", err), nil
	}
	if env == nil || env.Stats == nil {
		return errResult("stats: this session keeps no figures"), nil
	}
	text, err := env.Stats()
	if err != nil {
		return errResult("stats: %v", err), nil
	}
	return Result{Text: text}, nil
}
