// Package skill loads skills: Markdown prompt templates with front matter
// that the user runs as /name commands and the model invokes through the
// skill tool.
//
// A skill is a file NAME.md, or a folder NAME/ holding SKILL.md and any
// files the skill refers to (checklists, scripts, examples); the expanded
// skill lists those files' paths so the model can read them. Front matter
// is TOML between +++ lines:
//
//	+++
//	name = "review"
//	description = "Review the staged diff"
//	user_invocable = true
//	disable_model_invocation = false
//	+++
//	Review $ARGUMENTS carefully. First file: $0, second: $1.
//
// or, as in Claude Code's SKILL.md, YAML between --- lines, where the flags
// may be spelt user-invocable and disable-model-invocation. Every front
// matter key is optional; a file without front matter is all body.
package skill

import (
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/config"
)

// Skill is one loaded skill.
type Skill struct {
	// Name is what /name invokes; it defaults to the file's base name, or
	// the folder's name for a SKILL.md.
	Name        string
	Description string
	// ArgumentHint shows what the arguments are, such as "[file]".
	ArgumentHint string
	// Body is the prompt template that Expand fills in.
	Body string
	// Path is the file the skill was loaded from.
	Path string
	// Dir is the symlink-resolved folder of a folder skill, "" for a
	// single-file one; Files are the paths of the files in it besides
	// SKILL.md, relative to Dir, slash-separated and sorted.
	Dir   string
	Files []string
	// UserInvocable reports whether the user may run it as /name (default
	// true).
	UserInvocable bool
	// DisableModelInvocation hides the skill from the model: the skill
	// tool neither lists nor runs it.
	DisableModelInvocation bool
	// Role marks the skill as an agent role: an agent spawned with it gets
	// its body in the system prompt.
	Role bool
	// Model is the model a role's agents use; empty means the configured
	// one.
	Model string
	// Sampling is a role's temperature and top_p, over the profile's and
	// the configuration's.
	Sampling profile.Sampling
	// Diet is a role's context diet settings (a [diet] table, or diet: in
	// YAML), over the configuration's; a session's flags win over them.
	Diet config.Diet
}

// Parse parses the text of a skill file whose name, when the front matter
// gives none, is defaultName. Unknown front matter keys are errors, so a
// misspelt setting is never silently ignored.
func Parse(defaultName, text string) (Skill, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	meta, body, err := parseFrontMatter(text)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{
		Name:                   strings.TrimSpace(meta.Name),
		Description:            strings.TrimSpace(meta.Description),
		ArgumentHint:           strings.TrimSpace(meta.ArgumentHint),
		Body:                   body,
		UserInvocable:          meta.UserInvocable == nil || *meta.UserInvocable,
		DisableModelInvocation: meta.DisableModelInvocation,
		Role:                   meta.Role,
		Model:                  strings.TrimSpace(meta.Model),
		Sampling:               profile.Sampling{Temperature: meta.Temperature, TopP: meta.TopP},
		Diet:                   meta.Diet,
	}
	if s.Name == "" {
		s.Name = defaultName
	}
	if !ValidName(s.Name) {
		return Skill{}, fmt.Errorf("invalid skill name %q (use letters, digits, '-', '_', '.' or ':')", s.Name)
	}
	if err := s.Sampling.Validate(); err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	if err := s.Diet.Validate(); err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	return s, nil
}

// ValidName reports whether name can be invoked as /name: it is non-empty
// and made of ASCII letters, digits, '-', '_', '.' and ':'.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '.', r == ':':
		default:
			return false
		}
	}
	return true
}
