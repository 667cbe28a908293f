package themes

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// DefaultName is the name of the skin Default returns.
const DefaultName = "dark"

// maxExtends bounds a chain of skins extending one another.
const maxExtends = 8

// ErrNotFound is wrapped when no user folder or built-in has the skin.
var ErrNotFound = errors.New("skin not found")

//go:embed skins/*.yaml
var builtinFS embed.FS

// builtinDir is the folder of built-in skins inside builtinFS.
const builtinDir = "skins"

// ext is the file extension of a skin.
const ext = ".yaml"

// UserDir returns the conventional user skin folder,
// <user config dir>/kws/skins (~/.config/kws/skins on Linux). It does not
// check that the folder exists.
func UserDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("themes: locate user skin folder: %w", err)
	}
	return filepath.Join(dir, "kws", "skins"), nil
}

// defaultTheme loads the embedded default skin once.
var defaultTheme = sync.OnceValues(func() (*Theme, error) { return Load(DefaultName) })

// Default returns a copy of the built-in dark theme. It panics only if
// the embedded skin is broken, which the package's tests rule out.
func Default() *Theme {
	t, err := defaultTheme()
	if err != nil {
		panic(fmt.Sprintf("themes: built-in %s skin: %v", DefaultName, err))
	}
	c := *t
	return &c
}

// List returns the names of the built-in skins and of every <name>.yaml
// in the user folders, sorted and without duplicates. Folders that are
// missing or unreadable are skipped.
func List(userDirs ...string) []string {
	var names []string
	entries, _ := builtinFS.ReadDir(builtinDir)
	for _, dir := range userDirs {
		if dir == "" {
			continue
		}
		more, _ := os.ReadDir(dir)
		entries = append(entries, more...)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ext)
		if ok && !e.IsDir() && validName(name) == nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Load returns the theme called name. The first user folder holding
// <name>.yaml wins, earlier folders before later ones, and the built-in
// skins come last. A skin with "extends: other" starts from the skin
// other and lays its own palette and style attributes over it; a skin
// extending its own name starts from the next folder's skin of that name
// (or the built-in), which is how a user skin adjusts a built-in.
func Load(name string, userDirs ...string) (*Theme, error) {
	if err := validName(name); err != nil {
		return nil, fmt.Errorf("themes: %w", err)
	}
	var dirs []string
	for _, d := range userDirs {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	f, err := loadChain(name, dirs, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("themes: load %q: %w", name, err)
	}
	return f.theme(name)
}

// validName rejects names that are not a plain file name.
func validName(name string) error {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\:`+"\x00") {
		return fmt.Errorf("bad skin name %q, want a plain name such as dark: %w", name, ErrNotFound)
	}
	return nil
}

// loadChain reads skin name from the first source at or after start
// (sources are dirs, then the built-ins at index len(dirs)) and resolves
// its extends chain; via lists the files that led here.
func loadChain(name string, dirs []string, start int, via []string) (*skinFile, error) {
	if len(via) > maxExtends {
		return nil, fmt.Errorf("extends chain longer than %d: %s", maxExtends, strings.Join(via, " -> "))
	}
	data, label, at, err := find(name, dirs, start)
	if err != nil {
		if len(via) > 0 {
			err = fmt.Errorf("%s extends it: %w", via[len(via)-1], err)
		}
		return nil, err
	}
	if slices.Contains(via, label) {
		return nil, &SkinError{File: label, Key: "extends", Err: fmt.Errorf("extends cycle: %s -> %s", strings.Join(via, " -> "), label)}
	}
	f, err := parseSkin(label, data)
	if err != nil {
		return nil, err
	}
	if f.name != "" && f.name != name {
		return nil, &SkinError{File: label, Key: "name", Err: fmt.Errorf("%q does not match the file name %q", f.name, name)}
	}
	if f.extends == "" {
		return f, nil
	}
	if err := validName(f.extends); err != nil {
		return nil, &SkinError{File: label, Key: "extends", Err: err}
	}
	next := 0
	if f.extends == name {
		next = at + 1
	}
	parent, err := loadChain(f.extends, dirs, next, append(via, label))
	if err != nil {
		return nil, err
	}
	return overlay(parent, f), nil
}

// find returns the text, label and source index of the first skin called
// name in the sources from start on.
func find(name string, dirs []string, start int) ([]byte, string, int, error) {
	for i := start; i < len(dirs); i++ {
		p := filepath.Join(dirs[i], name+ext)
		data, err := os.ReadFile(p)
		switch {
		case err == nil:
			return data, p, i, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, "", 0, fmt.Errorf("read skin: %w", err)
		}
	}
	p := path.Join(builtinDir, name+ext)
	if data, err := builtinFS.ReadFile(p); err == nil {
		return data, "<built-in>/" + name + ext, len(dirs), nil
	}
	searched := append(slices.Clone(dirs[min(start, len(dirs)):]), "built-ins")
	return nil, "", 0, fmt.Errorf("%w: no %s%s in %s (available: %s)",
		ErrNotFound, name, ext, strings.Join(searched, ", "), strings.Join(List(dirs...), ", "))
}

// theme resolves the skin's inheritance into a Theme named name.
func (f *skinFile) theme(name string) (*Theme, error) {
	t := &Theme{Name: name}
	resolved := make([]Style, len(styleKeys))
	var errs []error
	for i, k := range styleKeys {
		var s Style
		if k.Parent != "" {
			s = resolved[styleIndex[k.Parent]]
		}
		if r := f.styles[k.Name]; r != nil {
			var bad []error
			s, bad = r.apply(s, f.colors, "styles."+k.Name)
			errs = append(errs, bad...)
		}
		resolved[i] = s
		t.set(i, s)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("themes: load %q: %w", name, errors.Join(errs...))
	}
	return t, nil
}
