// Package skill loads skills: Markdown prompt templates with TOML front
// matter that the user runs as /name commands and the model may invoke.
//
// A skill file looks like this:
//
//	+++
//	name = "review"
//	description = "Review the staged diff"
//	user_invocable = true
//	disable_model_invocation = false
//	+++
//	Review $ARGUMENTS carefully. First file: $0, second: $1.
//
// Every front matter key is optional; a file without front matter is all
// body.
package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// fence opens and closes the front matter, each on a line of its own.
const fence = "+++"

// Skill is one loaded skill.
type Skill struct {
	// Name is what /name invokes; it defaults to the file's base name.
	Name        string
	Description string
	// Body is the prompt template that Expand fills in.
	Body string
	// Path is the file the skill was loaded from.
	Path string
	// UserInvocable reports whether the user may run it as /name (default
	// true).
	UserInvocable bool
	// DisableModelInvocation hides the skill from the model's listing.
	DisableModelInvocation bool
	// Role marks the skill as an agent role: an agent spawned with it gets
	// its body in the system prompt.
	Role bool
	// Model is the model a role's agents use; empty means the configured
	// one.
	Model string
}

// frontMatter is the TOML between the fences; pointers tell absent keys
// from false ones.
type frontMatter struct {
	Name                   string `toml:"name"`
	Description            string `toml:"description"`
	UserInvocable          *bool  `toml:"user_invocable"`
	DisableModelInvocation bool   `toml:"disable_model_invocation"`
	Role                   bool   `toml:"role"`
	Model                  string `toml:"model"`
}

// Load reads the *.md files of each folder in dirs (hidden files and
// sub-folders are ignored, a missing folder is skipped) and returns the
// skills sorted by name. A skill in a later folder replaces a same-name
// skill from an earlier one, so pass the user's folder before the
// workspace's. Every file that cannot be read or parsed, and every second
// file claiming a name already taken in the same folder, yields an error
// naming the file, and that skill is skipped.
func Load(dirs ...string) ([]Skill, []error) {
	byName := map[string]Skill{}
	var errs []error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("skill: %w", err))
			continue
		}
		seen := map[string]string{}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
				continue
			}
			path := filepath.Join(dir, name)
			s, err := loadFile(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if first, dup := seen[s.Name]; dup {
				errs = append(errs, fmt.Errorf("skill: %s: name %q is already taken by %s", path, s.Name, first))
				continue
			}
			seen[s.Name] = path
			byName[s.Name] = s
		}
	}
	skills := make([]Skill, 0, len(byName))
	for _, s := range byName {
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return skills, errs
}

func loadFile(path string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("skill: %w", err)
	}
	s, err := Parse(strings.TrimSuffix(filepath.Base(path), ".md"), string(data))
	if err != nil {
		return Skill{}, fmt.Errorf("skill: %s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// Parse parses the text of a skill file whose name, when the front matter
// gives none, is defaultName. Unknown front matter keys are errors, so a
// misspelt setting is never silently ignored.
func Parse(defaultName, text string) (Skill, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	fm, body, err := splitFrontMatter(text)
	if err != nil {
		return Skill{}, err
	}
	var meta frontMatter
	md, err := toml.Decode(fm, &meta)
	if err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return Skill{}, fmt.Errorf("front matter: unknown key %q", undecoded[0].String())
	}
	s := Skill{
		Name:                   strings.TrimSpace(meta.Name),
		Description:            strings.TrimSpace(meta.Description),
		Body:                   body,
		UserInvocable:          meta.UserInvocable == nil || *meta.UserInvocable,
		DisableModelInvocation: meta.DisableModelInvocation,
		Role:                   meta.Role,
		Model:                  strings.TrimSpace(meta.Model),
	}
	if s.Name == "" {
		s.Name = defaultName
	}
	if !ValidName(s.Name) {
		return Skill{}, fmt.Errorf("invalid skill name %q (use letters, digits, '-', '_', '.' or ':')", s.Name)
	}
	return s, nil
}

// splitFrontMatter splits text into its front matter and body. Text that
// does not open with a fence line has no front matter and is all body; an
// opening fence without a closing one is an error. The body loses its
// leading blank lines and trailing white space.
func splitFrontMatter(text string) (fm, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != fence {
		return "", trimBody(text), nil
	}
	var b strings.Builder
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
