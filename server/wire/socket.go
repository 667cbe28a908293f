package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SessionEnv names the variable a session's shell panes export: the
// session's name, which the verbs a client runs there target.
const SessionEnv = "KWS_SESSION"

// SocketEnv names the variable that points kws at a server's socket.
// Shell panes export it, so a kws typed in a pane reaches its own server.
const SocketEnv = "KWS_SOCKET"

// maxSocketPath is the longest path a Unix socket may have on Linux,
// less the terminating NUL.
const maxSocketPath = 107

// SocketPath is where the server of dataDir listens: $KWS_SOCKET when set,
// else a name derived from the data dir in a 0700 directory under
// $XDG_RUNTIME_DIR, else under the data dir itself. When that path is too
// long for a socket, a 0700 directory of the user's in the system's
// temporary directory is used.
func SocketPath(dataDir string) (string, error) {
	if p := os.Getenv(SocketEnv); p != "" {
		return p, nil
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("socket: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	name := "kws-" + hex.EncodeToString(sum[:6]) + ".sock"
	dir := filepath.Join(abs, "run")
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "kws")
	}
	if len(filepath.Join(dir, name)) > maxSocketPath {
		dir = filepath.Join(os.TempDir(), "kws-"+strconv.Itoa(os.Getuid()))
	}
	return filepath.Join(dir, name), nil
}

// DataDirArg returns the value of the last --data-dir flag before a "--"
// in a kws command line, and whether there is one: the thin client picks
// the server's socket by it. The server checks that pflag reads the same
// before it runs a command for the thin client.
func DataDirArg(args []string) (string, bool) {
	dir, ok := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if v, found := strings.CutPrefix(a, "--data-dir="); found {
			dir, ok = v, true
		} else if a == "--data-dir" && i+1 < len(args) {
			dir, ok = args[i+1], true
			i++
		}
	}
	return dir, ok
}
