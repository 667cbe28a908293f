package skill

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed roles/*.md
var builtinRoles embed.FS

// Roles returns the agent roles: the built-in planner, coder, tester and
// reviewer, replaced or joined by the skills marked role = true in
// skills, sorted by name.
func Roles(skills []Skill) []Skill {
	byName := map[string]Skill{}
	entries, _ := fs.ReadDir(builtinRoles, "roles")
	for _, e := range entries {
		data, err := fs.ReadFile(builtinRoles, "roles/"+e.Name())
		if err != nil {
			continue
		}
		if r, err := Parse(strings.TrimSuffix(e.Name(), ".md"), string(data)); err == nil {
			r.Path = "<built-in>/" + e.Name()
			byName[r.Name] = r
		}
	}
	for _, s := range skills {
		if s.Role {
			byName[s.Name] = s
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, r := range byName {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
