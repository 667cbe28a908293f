// Package keymap holds the key-action tables of the workstation: every pane
// and the application itself declare their bindings as one table of named
// actions, from which the hints bar and the help screen are generated and
// which users rebind by action name in config.toml.
package keymap

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Key is one key press a table matches: a special key, or a rune with
// optional Alt. Ctrl plus a letter is the special key tcell reports for it
// (tcell.KeyCtrlB for Ctrl-b).
type Key struct {
	Code tcell.Key
	Rune rune
	Alt  bool
}

// names maps the spelled-out key names users write in config.toml to
// tcell keys. Lookups are case-insensitive.
var names = map[string]tcell.Key{
	"enter": tcell.KeyEnter, "esc": tcell.KeyEscape, "escape": tcell.KeyEscape,
	"tab": tcell.KeyTab, "backtab": tcell.KeyBacktab, "shift-tab": tcell.KeyBacktab,
	"backspace": tcell.KeyBackspace2, "delete": tcell.KeyDelete, "del": tcell.KeyDelete,
	"insert": tcell.KeyInsert, "up": tcell.KeyUp, "down": tcell.KeyDown,
	"left": tcell.KeyLeft, "right": tcell.KeyRight, "home": tcell.KeyHome, "end": tcell.KeyEnd,
	"pgup": tcell.KeyPgUp, "pageup": tcell.KeyPgUp, "pgdn": tcell.KeyPgDn, "pagedown": tcell.KeyPgDn,
	"f1": tcell.KeyF1, "f2": tcell.KeyF2, "f3": tcell.KeyF3, "f4": tcell.KeyF4, "f5": tcell.KeyF5,
	"f6": tcell.KeyF6, "f7": tcell.KeyF7, "f8": tcell.KeyF8, "f9": tcell.KeyF9, "f10": tcell.KeyF10,
	"f11": tcell.KeyF11, "f12": tcell.KeyF12,
}

// display is the name a special key is shown under.
var display = map[tcell.Key]string{
	tcell.KeyEnter: "Enter", tcell.KeyEscape: "Esc", tcell.KeyTab: "Tab", tcell.KeyBacktab: "S-Tab",
	tcell.KeyBackspace2: "Backspace", tcell.KeyDelete: "Del", tcell.KeyInsert: "Ins",
	tcell.KeyUp: "↑", tcell.KeyDown: "↓", tcell.KeyLeft: "←", tcell.KeyRight: "→",
	tcell.KeyHome: "Home", tcell.KeyEnd: "End", tcell.KeyPgUp: "PgUp", tcell.KeyPgDn: "PgDn",
}

// Parse reads one key as users write it: a single character ("%", "z"),
// "Space", a name such as "Enter", "Esc", "Up", "PgDn", "F5", or a name or
// character after "Ctrl-" or "Alt-" ("Ctrl-b", "Alt-x").
func Parse(s string) (Key, error) {
	orig := s
	if s == "" {
		return Key{}, fmt.Errorf("keymap: empty key")
	}
	if utf8.RuneCountInString(s) == 1 {
		r, _ := utf8.DecodeRuneInString(s)
		return Key{Code: tcell.KeyRune, Rune: r}, nil
	}
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "ctrl-") || strings.HasPrefix(lower, "c-"):
		rest := s[strings.IndexByte(s, '-')+1:]
		if utf8.RuneCountInString(rest) == 1 {
			r := []rune(strings.ToLower(rest))[0]
			switch {
			case r >= 'a' && r <= 'z':
				return Key{Code: tcell.KeyCtrlA + tcell.Key(r-'a')}, nil
			case r == ' ' || r == '@':
				return Key{Code: tcell.KeyCtrlSpace}, nil
			case r == '\\':
				return Key{Code: tcell.KeyCtrlBackslash}, nil
			case r == ']':
				return Key{Code: tcell.KeyCtrlRightSq}, nil
			}
		}
		if strings.EqualFold(rest, "space") {
			return Key{Code: tcell.KeyCtrlSpace}, nil
		}
		return Key{}, fmt.Errorf("keymap: %q: Ctrl- takes a letter, Space, \\ or ]", orig)
	case strings.HasPrefix(lower, "alt-") || strings.HasPrefix(lower, "m-"):
		k, err := Parse(s[strings.IndexByte(s, '-')+1:])
		if err != nil {
			return Key{}, fmt.Errorf("keymap: %q: %w", orig, err)
		}
		k.Alt = true
		return k, nil
	case lower == "space":
		return Key{Code: tcell.KeyRune, Rune: ' '}, nil
	}
	if code, ok := names[lower]; ok {
		return Key{Code: code}, nil
	}
	return Key{}, fmt.Errorf("keymap: unknown key %q (write a character, Space, Enter, Esc, Tab, Up, PgDn, F1…F12, Ctrl-x or Alt-x)", orig)
}

// MustParse is Parse for keys written in the program itself.
func MustParse(s string) Key {
	k, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return k
}

// String returns the key as the hints bar and help show it.
func (k Key) String() string {
	var s string
	switch {
	case k.Code == tcell.KeyRune && k.Rune == ' ':
		s = "Space"
	case k.Code == tcell.KeyRune:
		s = string(k.Rune)
	case k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ:
		s = "C-" + string(rune('a'+k.Code-tcell.KeyCtrlA))
	case k.Code == tcell.KeyCtrlSpace:
		s = "C-Space"
	case k.Code >= tcell.KeyF1 && k.Code <= tcell.KeyF12:
		s = fmt.Sprintf("F%d", k.Code-tcell.KeyF1+1)
	default:
		if d, ok := display[k.Code]; ok {
			s = d
		} else {
			s = fmt.Sprintf("key%d", k.Code)
		}
	}
	if k.Alt {
		s = "M-" + s
	}
	return s
}

// Of returns the Key an event is, normalised so that Backspace and its
// ASCII twin compare equal and Ctrl-letters carry no modifier bits.
func Of(ev *tcell.EventKey) Key {
	code := ev.Key()
	k := Key{Code: code, Alt: ev.Modifiers()&tcell.ModAlt != 0}
	switch {
	case code == tcell.KeyRune:
		k.Rune = ev.Rune()
	case code == tcell.KeyBackspace:
		k.Code = tcell.KeyBackspace2
	}
	return k
}
