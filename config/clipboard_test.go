package config

import (
	"strings"
	"testing"
)

// TestClipboardIsTheUsersChoice checks clipboard is read from the user's
// own file, refused from a repository's (its output could then set the
// clipboard), and validated.
func TestClipboardIsTheUsersChoice(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "kws/config.toml", "clipboard = \"on\"\n")
	cfg, _, err := Load(t.TempDir(), fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || cfg.Clipboard != ClipboardOn {
		t.Fatalf("Load = %q, %v; want clipboard on", cfg.Clipboard, err)
	}

	ws := t.TempDir()
	writeFile(t, ws, ".kws/config.toml", "clipboard = \"on\"\n")
	cfg, _, err = Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}))
	if err != nil || cfg.Clipboard != "" || len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "clipboard: it may only be set in your own") {
		t.Errorf("a repository's clipboard = on: %q, %q, %v", cfg.Clipboard, cfg.Warnings, err)
	}

	ok := Config{BaseURL: "http://localhost:11434/v1", Model: "m"}
	for _, v := range []string{"", ClipboardExternal, ClipboardOn, ClipboardOff} {
		c := ok
		c.Clipboard = v
		if err := c.Validate(); err != nil {
			t.Errorf("clipboard = %q: %v", v, err)
		}
	}
	ok.Clipboard = "yes"
	if err := ok.Validate(); err == nil || !strings.Contains(err.Error(), `clipboard = "yes": want external, on or off`) {
		t.Errorf("clipboard = yes: err = %v", err)
	}
}
