package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File is the file that makes a folder a skill.
const File = "SKILL.md"

// maxFiles bounds the files a folder skill lists.
const maxFiles = 200

// LoadFor loads the user's skills ($configHome/kws/skills) and then the
// workspace's (.kws/skills), so a workspace skill replaces a same-name
// user skill. Each folder must resolve, symlinks followed, inside its
// owner (the kws config folder, the workspace): a folder that leads
// elsewhere is refused with an error and not read.
func LoadFor(configHome, workspace string) ([]Skill, []error) {
	type folder struct{ owner, dir string }
	var folders []folder
	if configHome != "" {
		folders = append(folders, folder{filepath.Join(configHome, "kws"), filepath.Join(configHome, "kws", "skills")})
	}
	if workspace != "" {
		folders = append(folders, folder{workspace, filepath.Join(workspace, ".kws", "skills")})
	}
	var dirs []string
	var errs []error
	for _, f := range folders {
		switch err := inside(f.owner, f.dir); {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			errs = append(errs, err)
		default:
			dirs = append(dirs, f.dir)
		}
	}
	skills, lerrs := Load(dirs...)
	return skills, append(errs, lerrs...)
}

// inside reports an error unless dir, symlinks resolved, lies inside
// owner, symlinks resolved.
func inside(owner, dir string) error {
	realOwner, err := filepath.EvalSymlinks(owner)
	if err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("skill: %w", err)
	}
	if !within(realOwner, realDir) {
		return fmt.Errorf("skill: %s leads outside %s (to %s); its skills are not loaded", dir, owner, realDir)
	}
	return nil
}

// within reports whether p is root or lies below it; both are clean.
func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// Load reads the skills of each folder in dirs: every NAME.md file and
// every NAME/ folder holding a SKILL.md (hidden entries are ignored, a
// missing folder is skipped), and returns them sorted by name. A skill in
// a later folder replaces a same-name skill from an earlier one, so pass
// the user's folder before the workspace's. An entry that leads outside
// its folder through a symlink, a file that cannot be read or parsed, and
// a second file claiming a name already taken in the same folder each
// yield an error naming the file, and that skill is skipped.
func Load(dirs ...string) ([]Skill, []error) {
	byName := map[string]Skill{}
	var errs []error
	for _, dir := range dirs {
		root, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			errs = append(errs, fmt.Errorf("skill: %w", err))
			continue
		}
		seen := map[string]string{}
		for _, e := range entries {
			s, ok, err := loadEntry(root, filepath.Join(dir, e.Name()))
			if err != nil {
				errs = append(errs, err)
			}
			if !ok {
				continue
			}
			if first, dup := seen[s.Name]; dup {
				errs = append(errs, fmt.Errorf("skill: %s: name %q is already taken by %s", s.Path, s.Name, first))
				continue
			}
			seen[s.Name] = s.Path
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

// loadEntry loads the skill at path, an entry of the folder whose resolved
// path is root; ok is false when the entry is not a skill.
func loadEntry(root, path string) (s Skill, ok bool, err error) {
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") {
		return Skill{}, false, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return Skill{}, false, fmt.Errorf("skill: %w", err)
	}
	if !within(root, real) {
		return Skill{}, false, fmt.Errorf("skill: %s leads outside its skills folder (to %s); it is not loaded", path, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Skill{}, false, fmt.Errorf("skill: %w", err)
	}
	switch {
	case fi.IsDir():
		return loadFolder(real, path)
	case fi.Mode().IsRegular() && strings.HasSuffix(name, ".md"):
		s, err := loadFile(real, strings.TrimSuffix(name, ".md"), path)
		return s, err == nil, err
	}
	return Skill{}, false, nil
}

// loadFolder loads the folder skill whose resolved folder is dir: its
// SKILL.md and the list of the files beside it. A folder without SKILL.md
// is not a skill.
func loadFolder(dir, path string) (Skill, bool, error) {
	file := filepath.Join(dir, File)
	real, err := filepath.EvalSymlinks(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Skill{}, false, nil
	case err != nil:
		return Skill{}, false, fmt.Errorf("skill: %w", err)
	case !within(dir, real):
		return Skill{}, false, fmt.Errorf("skill: %s leads outside its folder (to %s); it is not loaded", filepath.Join(path, File), real)
	}
	s, err := loadFile(real, filepath.Base(path), filepath.Join(path, File))
	if err != nil {
		return Skill{}, false, err
	}
	s.Dir = dir
	s.Files = folderFiles(dir)
	return s, true, nil
}

// folderFiles lists the regular files below dir other than its SKILL.md,
// relative and slash-separated: hidden entries are skipped, and so is a
// symlink that leads outside dir or to anything but a regular file. The
// list stops at maxFiles.
func folderFiles(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !within(dir, real) {
			return nil
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); rel != File {
			files = append(files, rel)
		}
		if len(files) >= maxFiles {
			return filepath.SkipAll
		}
		return nil
	})
	return files
}

// loadFile parses the skill file at real (resolved), named shown in
// errors and in Skill.Path, whose name defaults to defaultName.
func loadFile(real, defaultName, shown string) (Skill, error) {
	data, err := os.ReadFile(real)
	if err != nil {
		return Skill{}, fmt.Errorf("skill: %w", err)
	}
	s, err := Parse(defaultName, string(data))
	if err != nil {
		return Skill{}, fmt.Errorf("skill: %s: %w", shown, err)
	}
	s.Path = shown
	return s, nil
}
