package config

import (
	"strings"
	"testing"
)

// TestDietLayers checks that the [diet] table layers key by key: the
// workspace's file replaces only what it sets over the user's.
func TestDietLayers(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, home, "kws/config.toml", "[diet]\ntrigger_tokens = 30000\nrecent = 6\ncompact_at = 0.8\n")
	writeFile(t, ws, ".kws/config.toml", "[diet]\nrecent = 12\nmin_block_chars = 900\ncompact_model = \"sidecar\"\n")
	c, _, err := Load(ws, fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	d := c.Diet
	if d.TriggerTokens == nil || *d.TriggerTokens != 30000 || d.Recent == nil || *d.Recent != 12 ||
		d.MinBlockChars == nil || *d.MinBlockChars != 900 || d.CompactAt == nil || *d.CompactAt != 0.8 || d.CompactModel != CompactSidecar {
		t.Errorf("diet = %+v; want trigger 30000 and compact_at 0.8 (user's), recent 12, min block 900 and sidecar (workspace's)", d)
	}
}

// TestDietErrorsNameTheKey checks that each bad setting is refused with
// the file, the key and what it wants, and that a misspelt key lists the
// [diet] keys.
func TestDietErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[diet]\ntrigger_tokens = -5\n", "diet.trigger_tokens = -5: want 0 or more"},
		{"[diet]\nrecent = -1\n", "diet.recent = -1: want 0 or more messages"},
		{"[diet]\nmin_block_chars = 0\n", "diet.min_block_chars = 0: want 1 or more"},
		{"[diet]\ncompact_at = 1.5\n", "diet.compact_at = 1.5: want a share of the window above 0 and at most 1"},
		{"[diet]\ncompact_at = 0.0\n", "diet.compact_at = 0: want a share"},
		{"[diet]\ncompact_model = \"gpt-4o\"\n", `diet.compact_model = "gpt-4o": want "extractive" or "sidecar"`},
		{"[diet]\ntrigger = 100\n", "unknown key diet.trigger (known keys: base_url"},
	} {
		home := t.TempDir()
		path := writeFile(t, home, "kws/config.toml", tc.toml)
		_, _, err := Load(t.TempDir(), fakeEnv(map[string]string{"XDG_CONFIG_HOME": home}))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: err = %v; want it to name %s and say %q", tc.toml, err, path, tc.want)
		}
		if err != nil && strings.Contains(tc.want, "unknown key") && !strings.Contains(err.Error(), "in [diet]: trigger_tokens, recent") {
			t.Errorf("%q: err = %v; want the [diet] keys listed", tc.toml, err)
		}
	}
}

// TestDietWith checks that a layer replaces only the fields it sets.
func TestDietWith(t *testing.T) {
	a, b := 100, 3
	got := Diet{TriggerTokens: &a, CompactModel: CompactSidecar}.With(Diet{Recent: &b})
	if *got.TriggerTokens != 100 || *got.Recent != 3 || got.CompactModel != CompactSidecar || got.MinBlockChars != nil {
		t.Errorf("With = %+v", got)
	}
	if !(Diet{}).IsZero() || got.IsZero() {
		t.Error("IsZero is wrong")
	}
}
