package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/skill"
)

//go:embed skill.md
var skillDoc string

type skillTool struct {
	spec
	skills []skill.Skill
}

type skillArgs struct {
	Name string `json:"name"`
	Args string `json:"args"`
}

// Skill returns the skill tool for skills: the model invokes one of them
// by name and reads its expanded instructions. Its description lists the
// skills the model may invoke (those without disable_model_invocation);
// ok is false when there are none, and then the tool is not offered.
func Skill(skills []skill.Skill) (t Tool, ok bool) {
	list := skill.ModelList(skills)
	if list == "" {
		return nil, false
	}
	doc := strings.TrimSpace(skillDoc) + "\n\nSkills:\n" + list
	return skillTool{spec: spec{name: "skill", doc: doc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "the skill to run, e.g. \"review\""},
    "args": {"type": "string", "description": "its arguments, as typed after /name"}
  },
  "required": ["name"],
  "additionalProperties": false
}`}, skills: skills}, true
}

// Run expands the named skill with the arguments.
func (t skillTool) Run(_ context.Context, _ *Env, raw json.RawMessage) (Result, error) {
	var a skillArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("skill: %v", err), nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(a.Name), "/")
	s, found := skill.Find(t.skills, name)
	if !found || s.DisableModelInvocation {
		var names []string
		for _, s := range t.skills {
			if !s.DisableModelInvocation {
				names = append(names, s.Name)
			}
		}
		return errResult("skill: no skill %q you can run; the skills are: %s", name, strings.Join(names, ", ")), nil
	}
	return Result{Text: fmt.Sprintf("Skill %q, invoked with arguments %q. Follow these instructions:\n\n%s", s.Name, a.Args, s.Invoke(a.Args))}, nil
}
