package datadir

import "testing"

func TestDefaultFollowsKWSDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	t.Setenv(Env, "")
	if got := Default(); got != "/xdg/kws" {
		t.Errorf("without %s: %q", Env, got)
	}
	t.Setenv(Env, "/from/the/workstation")
	if got := Default(); got != "/from/the/workstation" {
		t.Errorf("with %s set: %q", Env, got)
	}
	t.Setenv(Env, "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := Default(); got != "/home/u/.local/share/kws" {
		t.Errorf("with neither: %q", got)
	}
}
