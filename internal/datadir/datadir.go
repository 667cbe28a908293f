// Package datadir says where kws keeps its data when no --data-dir is
// given. It imports only the standard library, so the thin client finds
// the server of the default data dir without loading the rest of kws.
package datadir

import (
	"os"
	"path/filepath"
)

// Env names the variable that sets the default data dir. The workstation
// exports it to its shell panes, so a kws typed in a pane uses the
// workstation's own data dir rather than an empty default one.
const Env = "KWS_DATA_DIR"

// Default returns $KWS_DATA_DIR, else $XDG_DATA_HOME/kws, else
// ~/.local/share/kws.
func Default() string {
	if x := os.Getenv(Env); x != "" {
		return x
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "kws")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "kws")
	}
	return filepath.Join(home, ".local", "share", "kws")
}
