package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sidecar"
)

// Options are what the stores of a data dir are opened with: the things
// only the command line knows.
type Options struct {
	// DataDir is the data dir: vault, memory, sessions and logs.
	DataDir string
	// LogName is the log file's path under DataDir; "" means kws.log.
	LogName string
	// Config is the first workspace's configuration. It names the
	// memory's embedder and the sidecar model.
	Config config.Config
	// SidecarModel is the GGUF file --sidecar-model names; "" leaves the
	// choice to Config, then to the first model in DATA/models.
	SidecarModel string
	// SidecarLoader loads GGUF models. When it is nil, the heuristic
	// engine answers instead of a model.
	SidecarLoader sidecar.Loader
	// EmbedLoader loads the embedding GGUF of memory_embedder =
	// "gguf:PATH" (sidecar/llamacpp's loader, which refuses a generation
	// model; app does not import llama.cpp). When it is nil a gguf
	// embedder fails on its first use.
	EmbedLoader sidecar.Loader
	// Socket is the server's socket, which shell panes export so that a
	// kws typed there reaches its own server; "" outside a server.
	Socket string
	// ConfigHome is the user's configuration dir ($XDG_CONFIG_HOME, else
	// ~/.config). Its kws directory holds the user's skills and is hidden
	// from the agents' shell commands.
	ConfigHome string
	// Getenv reads the environment, the API keys kws holds included; nil
	// means os.Getenv.
	Getenv func(string) string
	// MCP, when set, starts the MCP servers a workspace's configuration
	// names (package mcp's client); the workstation's agents get their
	// tools.
	MCP func(cfg config.Config, workspace string, log *slog.Logger) MCPClient
}

// MCPClient is the running MCP servers of one workstation.
type MCPClient interface {
	External
	// Summary is every server's state, one line each, at once.
	Summary() string
	// Problems are the servers that did not start and the tools skipped,
	// with why, once every server has started or failed.
	Problems() []string
	// Failed is how many of the configured servers are failed or
	// refused now, and how many there are, at once.
	Failed() (failed, total int)
	// Close stops the servers.
	Close()
}

// getenv is o.Getenv, or os.Getenv when it is nil.
func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// Flags are the workstation's flags, which every new session takes.
type Flags struct {
	// Theme names the skin; "" means KWS_THEME, then the configuration,
	// then the default.
	Theme string
	// Workspace is the directory the agents and shells work in; ""
	// means the current one. A server's session takes its workspace from
	// its spec instead.
	Workspace string
	// Shell is the program of shell panes; "" means $SHELL, else bash.
	Shell string
	// Emulator names the terminal emulator of shell panes.
	Emulator string
	// Worktree gives each agent its own git worktree and branch.
	Worktree bool
}

// ResolveWorkspace is dir as an absolute path with its symbolic links
// resolved, the form every session and run records its workspace in.
func ResolveWorkspace(dir string) (string, error) {
	ws, err := filepath.Abs(dir)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	return ws, nil
}
