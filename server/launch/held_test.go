package launch

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// TestKeyNames checks which variables count as API keys: kws's and
// OpenAI's always, the one the user config's api_key_env names, and the
// one --api-key-env names in either form.
func TestKeyNames(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "kws"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "kws", "config.toml"), []byte("api_key_env = \"ROUTER_KEY\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"kws", "run", "--api-key-env", "FLAG_KEY", "x"}, {"kws", "run", "--api-key-env=FLAG_KEY"}} {
		got := KeyNames(args)
		for _, want := range []string{"KWS_API_KEY", "OPENAI_API_KEY", "ROUTER_KEY", "FLAG_KEY"} {
			if !slices.Contains(got, want) {
				t.Errorf("%q: %q lacks %s", args, got, want)
			}
		}
	}
	keys, rest := SplitKeys([]string{"PATH=/bin", "ROUTER_KEY=k=1", "KWS_API_KEY=", "HOME=/h"}, KeyNames(nil))
	if want := map[string]string{"ROUTER_KEY": "k=1", "KWS_API_KEY": ""}; !maps.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if !slices.Equal(rest, []string{"PATH=/bin", "HOME=/h"}) {
		t.Errorf("the rest: %q", rest)
	}
}

// TestHeldKeysRoundTrip passes keys through Hold's pipe to ReadHeld as a
// started kws reads them, and checks that the variable naming the
// descriptor is gone afterwards; a variable that names no descriptor is
// an error, not keys.
func TestHeldKeysRoundTrip(t *testing.T) {
	want := map[string]string{"KWS_API_KEY": "sk-test", "ROUTER_KEY": "r;1\n"}
	r, err := Hold(want)
	if err != nil {
		t.Fatal(err)
	}
	// ReadHeld closes the descriptor it reads; r's own is left to r.
	fd, err := syscall.Dup(int(r.Fd()))
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(HeldEnv, strconv.Itoa(fd))
	got, err := ReadHeld()
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("ReadHeld: %q, %v; want %q", got, err, want)
	}
	if v, ok := os.LookupEnv(HeldEnv); ok {
		t.Errorf("%s is still set (%q)", HeldEnv, v)
	}
	t.Setenv(HeldEnv, "2")
	if _, err := ReadHeld(); err == nil {
		t.Error("ReadHeld took stderr for a key pipe")
	}
}
