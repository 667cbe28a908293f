package skill

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/kwsdev/kws/config"
)

// The fences that open and close front matter, each on a line of its own:
// TOML between +++ lines, YAML (Claude Code's SKILL.md) between --- lines.
const (
	tomlFence = "+++"
	yamlFence = "---"
)

// frontMatter is what the front matter sets; pointers tell absent keys
// from false or zero ones.
type frontMatter struct {
	Name                   string      `toml:"name" yaml:"name"`
	Description            string      `toml:"description" yaml:"description"`
	ArgumentHint           string      `toml:"argument_hint" yaml:"argument_hint"`
	UserInvocable          *bool       `toml:"user_invocable" yaml:"user_invocable"`
	DisableModelInvocation bool        `toml:"disable_model_invocation" yaml:"disable_model_invocation"`
	Role                   bool        `toml:"role" yaml:"role"`
	Model                  string      `toml:"model" yaml:"model"`
	Temperature            *float64    `toml:"temperature" yaml:"temperature"`
	TopP                   *float64    `toml:"top_p" yaml:"top_p"`
	Diet                   config.Diet `toml:"diet" yaml:"diet"`
}

// ignoredYAMLKeys are Claude Code's SKILL.md keys that kws accepts and
// does without: allowed-tools grants nothing here (kws still asks before
// every call its permissions do not allow), and the others only describe
// the skill.
var ignoredYAMLKeys = map[string]bool{"allowed-tools": true, "license": true, "metadata": true, "version": true}

// yamlKeys are the keys Claude Code spells with '-' and their spelling in
// frontMatter; YAML front matter may use either.
var yamlKeys = map[string]string{
	"argument-hint":            "argument_hint",
	"user-invocable":           "user_invocable",
	"disable-model-invocation": "disable_model_invocation",
}

// yamlFrontMatter is the YAML form: frontMatter's keys, when_to_use
// (which adds to the description), and Unknown, every other key.
type yamlFrontMatter struct {
	frontMatter `yaml:",inline"`
	WhenToUse   string         `yaml:"when_to_use"`
	Unknown     map[string]any `yaml:",inline"`
}

// parseFrontMatter splits text into its front matter, decoded, and its
// body.
func parseFrontMatter(text string) (frontMatter, string, error) {
	first, _, _ := strings.Cut(text, "\n")
	fence := strings.TrimRight(first, " \t\r")
	if fence != tomlFence && fence != yamlFence {
		return frontMatter{}, trimBody(text), nil
	}
	raw, body, err := splitFrontMatter(text, fence)
	if err != nil {
		return frontMatter{}, "", err
	}
	var meta frontMatter
	if fence == tomlFence {
		md, err := toml.Decode(raw, &meta)
		if err != nil {
			return frontMatter{}, "", fmt.Errorf("front matter: %w", err)
		}
		if undecoded := md.Undecoded(); len(undecoded) > 0 {
			return frontMatter{}, "", fmt.Errorf("front matter: unknown key %q", undecoded[0].String())
		}
		return meta, body, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
		return frontMatter{}, "", fmt.Errorf("front matter: yaml: %w", err)
	}
	if len(doc.Content) == 0 {
		return frontMatter{}, body, nil
	}
	if m := doc.Content[0]; m.Kind == yaml.MappingNode {
		for i := 0; i < len(m.Content); i += 2 {
			if key, ok := yamlKeys[m.Content[i].Value]; ok {
				m.Content[i].Value = key
			}
		}
	}
	var y yamlFrontMatter
	if err := doc.Decode(&y); err != nil {
		return frontMatter{}, "", fmt.Errorf("front matter: yaml: %w", err)
	}
	for k := range y.Unknown {
		if !ignoredYAMLKeys[k] {
			return frontMatter{}, "", fmt.Errorf("front matter: unknown key %q", k)
		}
	}
	meta = y.frontMatter
	if y.WhenToUse != "" {
		meta.Description = strings.TrimSpace(meta.Description + " " + y.WhenToUse)
	}
	return meta, body, nil
}

// splitFrontMatter splits text, whose first line is fence, into the front
// matter and the body. An opening fence without a closing one is an
// error. The body loses its leading blank lines and trailing white space.
func splitFrontMatter(text, fence string) (fm, body string, err error) {
	_, rest, _ := strings.Cut(text, "\n")
	var b bytes.Buffer
	for line := range strings.Lines(rest) {
		if strings.TrimRight(line, " \t\r\n") == fence {
			return b.String(), trimBody(rest[b.Len()+len(line):]), nil
		}
		b.WriteString(line)
	}
	return "", "", fmt.Errorf("front matter: no closing %s line", fence)
}

func trimBody(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}
