package skill

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kwsdev/kws/internal/shellwords"
)

// argumentsVar is the placeholder for the whole argument string.
const argumentsVar = "ARGUMENTS"

// maxListDescription bounds a description in ModelList, in runes.
const maxListDescription = 160

// Expand fills in the skill's body: $ARGUMENTS becomes args as given; $0,
// $1, … become the arguments split the way a shell would ("a b" and 'a b'
// are one argument, a backslash escapes the next character outside
// quotes and ", \, $ or ` inside double quotes), a missing one becoming
// empty; $$ becomes $. Any other $ stays as it is. When the body uses no
// placeholder at all and args is not blank, args is appended as a final
// "ARGUMENTS: …" paragraph so that it is never silently dropped.
func (s Skill) Expand(args string) string {
	var (
		b         strings.Builder
		split     []string
		splitDone bool
		used      bool
	)
	body := s.Body
	for {
		i := strings.IndexByte(body, '$')
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		body = body[i+1:]
		switch {
		case strings.HasPrefix(body, "$"):
			b.WriteByte('$')
			body = body[1:]
		case strings.HasPrefix(body, argumentsVar):
			b.WriteString(args)
			body = body[len(argumentsVar):]
			used = true
		case body != "" && isDigit(body[0]):
			n, j := 0, 0
			for ; j < len(body) && isDigit(body[j]); j++ {
				n = min(n*10+int(body[j]-'0'), 1<<20)
			}
			if !splitDone {
				split, _ = shellwords.Split(args)
				splitDone = true
			}
			if n < len(split) {
				b.WriteString(split[n])
			}
			body = body[j:]
			used = true
		default:
			b.WriteByte('$')
		}
	}
	if !used && strings.TrimSpace(args) != "" {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("ARGUMENTS: " + args)
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ParseInvocation parses a "/name args" input line. It reports ok only
// when the input, with surrounding white space removed, starts with '/'
// followed by a valid skill name and then white space or the end; args
// is the rest with surrounding white space removed. Paths such as
// /usr/bin are not invocations.
func ParseInvocation(input string) (name, args string, ok bool) {
	input = strings.TrimSpace(input)
	rest, found := strings.CutPrefix(input, "/")
	if !found {
		return "", "", false
	}
	name, args = rest, ""
	if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
		name, args = rest[:i], strings.TrimSpace(rest[i:])
	}
	if !ValidName(name) {
		return "", "", false
	}
	return name, args, true
}

// Find returns the skill called name.
func Find(skills []Skill, name string) (Skill, bool) {
	for _, s := range skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// ModelList returns the skills the model may invoke (those without
// DisableModelInvocation) for the skill tool's description, one
// "- name [hint]: description" line each with the description on one line
// and shortened, or "" when there are none.
func ModelList(skills []Skill) string {
	var b strings.Builder
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		b.WriteString("- " + s.Name)
		if h := oneLine(s.ArgumentHint, maxListDescription); h != "" {
			b.WriteString(" " + h)
		}
		if d := oneLine(s.Description, maxListDescription); d != "" {
			b.WriteString(": " + d)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// oneLine collapses white space runs in s to single spaces and cuts the
// result to limit runes, ending it in "…" when cut.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit-1]) + "…"
}

// ErrNotUserInvocable is wrapped by ExpandInput's error for a skill whose
// front matter sets user_invocable = false.
var ErrNotUserInvocable = errors.New("skill: not user-invocable")

// ErrUnknownSkill is the error for a "/name" line that names no skill.
var ErrUnknownSkill = errors.New("skill: no such skill")

// ExpandInput is what a user's typed line becomes, in the workstation's
// agent panes and in kws run alike: "/name args" naming a skill becomes
// the skill invoked with args (see Invoke); a line starting with "//" is
// sent as text without its first '/'; any other line is returned as it
// is. A /name that names no skill is refused with an error wrapping
// ErrUnknownSkill, so a mistyped skill never reaches the model as a
// prompt, and one marked user_invocable = false with an error wrapping
// ErrNotUserInvocable.
func ExpandInput(skills []Skill, input string) (string, error) {
	if t := strings.TrimSpace(input); strings.HasPrefix(t, "//") {
		return t[1:], nil
	}
	name, args, ok := ParseInvocation(input)
	if !ok {
		return input, nil
	}
	s, found := Find(skills, name)
	if !found {
		return "", fmt.Errorf("%w: /%s (%s; start the line with // to send it as text)", ErrUnknownSkill, name, invocable(skills))
	}
	if !s.UserInvocable {
		return "", fmt.Errorf("%w: /%s can only be used by the model (user_invocable = false in %s)", ErrNotUserInvocable, name, s.Path)
	}
	return s.Invoke(args), nil
}

// invocable names the skills a user may invoke, for an error.
func invocable(skills []Skill) string {
	var names []string
	for _, s := range skills {
		if s.UserInvocable {
			names = append(names, "/"+s.Name)
		}
	}
	if len(names) == 0 {
		return "no skills are loaded; /help lists the commands"
	}
	return "skills: " + strings.Join(names, ", ") + "; /help lists the commands"
}

// Invoke is the skill expanded with args (see Expand) and, for a folder
// skill, a closing paragraph with the absolute paths of its files, which
// read_file opens.
func (s Skill) Invoke(args string) string {
	text := s.Expand(args)
	if s.Dir == "" || len(s.Files) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	fmt.Fprintf(&b, "\n\nThe %s skill's files (read them with read_file at these paths when the instructions above need them):", s.Name)
	for _, f := range s.Files {
		b.WriteString("\n- " + filepath.Join(s.Dir, filepath.FromSlash(f)))
	}
	if len(s.Files) >= maxFiles {
		fmt.Fprintf(&b, "\n(only the first %d files are listed)", maxFiles)
	}
	return b.String()
}

// Folders returns the resolved folders of the folder skills among skills:
// the places besides the workspace whose files read_file may open.
func Folders(skills []Skill) []string {
	var dirs []string
	for _, s := range skills {
		if s.Dir != "" {
			dirs = append(dirs, s.Dir)
		}
	}
	return dirs
}
