package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	Name                   string      `toml:"name"`
	Description            string      `toml:"description"`
	ArgumentHint           string      `toml:"argument_hint"`
	UserInvocable          *bool       `toml:"user_invocable"`
	DisableModelInvocation bool        `toml:"disable_model_invocation"`
	Role                   bool        `toml:"role"`
	Model                  string      `toml:"model"`
	Temperature            *float64    `toml:"temperature"`
	TopP                   *float64    `toml:"top_p"`
	Diet                   config.Diet `toml:"diet"`
}

// ignoredYAMLKeys are Claude Code's SKILL.md keys that kws accepts and
// does without: allowed-tools grants nothing here (kws still asks before
// every call its permissions do not allow), and the others only describe
// the skill.
var ignoredYAMLKeys = map[string]bool{"allowed-tools": true, "license": true, "metadata": true, "version": true}

// yamlFrontMatter is the YAML form. The flags may be spelt with '-', as
// Claude Code does, or with '_'; Unknown collects every other key.
type yamlFrontMatter struct {
	Name           string         `yaml:"name"`
	Description    string         `yaml:"description"`
	ArgumentHint   string         `yaml:"argument-hint"`
	ArgumentHintU  string         `yaml:"argument_hint"`
	UserInvocable  *bool          `yaml:"user-invocable"`
	UserInvocableU *bool          `yaml:"user_invocable"`
	DisableModel   bool           `yaml:"disable-model-invocation"`
	DisableModelU  bool           `yaml:"disable_model_invocation"`
	Role           bool           `yaml:"role"`
	Model          string         `yaml:"model"`
	Temperature    *float64       `yaml:"temperature"`
	TopP           *float64       `yaml:"top_p"`
	WhenToUse      string         `yaml:"when_to_use"`
	Diet           config.Diet    `yaml:"diet"`
	Unknown        map[string]any `yaml:",inline"`
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
	var y yamlFrontMatter
	dec := yaml.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(&y); err != nil && !errors.Is(err, io.EOF) {
		return frontMatter{}, "", fmt.Errorf("front matter: yaml: %w", err)
	}
	for k := range y.Unknown {
		if !ignoredYAMLKeys[k] {
			return frontMatter{}, "", fmt.Errorf("front matter: unknown key %q", k)
		}
	}
	meta = frontMatter{Name: y.Name, Description: y.Description, ArgumentHint: y.ArgumentHint + y.ArgumentHintU,
		UserInvocable: y.UserInvocable, DisableModelInvocation: y.DisableModel || y.DisableModelU, Role: y.Role,
		Model: y.Model, Temperature: y.Temperature, TopP: y.TopP, Diet: y.Diet}
	if meta.UserInvocable == nil {
		meta.UserInvocable = y.UserInvocableU
	}
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
