// The Go runtime would read the cgroup's CPU limit every second to
// follow changes to it; kws sits at 0 % CPU when idle instead.
//
//go:debug updatemaxprocs=0

// Command kws is a terminal workstation for AI coding agents: bare kws opens
// the full-screen workstation; its subcommands run agents headless, replay
// the context diet and browse the vault.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/internal/datadir"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

// exitError carries an exit code through cobra without printing usage.
type exitError struct {
	code int
	err  error
}

// Error returns the wrapped error's text.
func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *exitError) Unwrap() error { return e.err }

func main() {
	prepare()
	if filepath.Base(os.Args[0]) == "tmux" {
		os.Exit(runAsTmux(os.Args[1:]))
	}
	root := newRoot()
	root.g.argv = os.Args[1:]
	if err := root.Execute(); err != nil {
		if !errors.Is(err, errPrinted) {
			fmt.Fprintln(os.Stderr, errorLine(err))
		}
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

// prepare readies the process before any command runs: the API key moves
// out of its environment (protectKeys), and every descriptor it inherited
// past stderr is marked close-on-exec, or it would reach every command an
// agent runs, sandboxed or not.
func prepare() {
	if err := protectKeys(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "kws: warning:", err)
	}
	launch.CloseInherited()
}

// errorLine is how a command's error is printed. An error may quote a
// server, a file or a model, so its escape sequences and control
// characters are removed.
func errorLine(err error) string {
	return "kws: " + termsafe.Strip(err.Error())
}

// errPrinted is the error of a command whose message was printed already
// (by the server that ran it); main only exits with its code.
var errPrinted = errors.New("printed")

// globals are the flags every command shares, and where it runs.
type globals struct {
	dataDir      string
	json         bool
	sidecarModel string
	// argv is the command line as typed; main sets it, and a command that
	// a running server can run for it is forwarded there.
	argv []string
	// shared is set when the command runs inside the server, on the
	// server's open stores; cwd is then the client's directory.
	shared *app.Stores
	cwd    string
	// socket is the server's socket inside the server, which shell panes
	// export; session is the session the client runs in, the target of
	// the tmux verbs.
	socket  string
	session string
	// modelEnv holds the model variables set in the client's environment
	// (wire.Hello.ModelEnv).
	modelEnv map[string]string
	// memory is the memory store a command opened itself (no server),
	// which the memory commands close when they end.
	memory *memory.Store
}

// rootCmd is the kws command and its globals.
type rootCmd struct {
	*cobra.Command
	g *globals
}

func newRoot() rootCmd {
	g := &globals{}
	wf := &wsFlags{}
	root := &cobra.Command{
		Use:           "kws",
		Short:         "kws: a terminal workstation for AI coding agents with an exact context vault",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				return printVersion(cmd, g)
			}
			return runWorkstation(cmd, g, wf)
		},
	}
	addWSFlags(root.Flags(), wf)
	root.Flags().BoolP("version", "V", false, "print the version and how kws was built, as kws version does")
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", datadir.Default(), "data directory (vault, sessions, logs)")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print one JSON object per line")
	g.sidecarFlag(root.Flags())
	root.AddCommand(newDietCmd(g), newVaultCmd(g), newRunCmd(g), newTranscriptsCmd(g), newBenchCmd(g), newSidecarCmd(g), newVersionCmd(g))
	root.AddCommand(newMemoryCmd(g), newMcpCmd(g), newHooksCmd(g), newRewindCmd(g), newTeamCmd(g))
	root.AddCommand(newServerCmds(g)...)
	// A verb of the command language that shares a name with one of kws's
	// own commands (mcp) stays the palette's: two commands of one name
	// would leave which one runs to the order cobra sorts them in.
	for _, v := range newVerbCmds(g) {
		if !slices.ContainsFunc(root.Commands(), func(c *cobra.Command) bool { return c.Name() == v.Name() }) {
			root.AddCommand(v)
		}
	}
	// An unknown or malformed flag says where the flags are listed.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (%s --help lists its flags)", err, c.CommandPath())
	})
	forwardable(root, g)
	return rootCmd{Command: root, g: g}
}

// sidecarFlag adds --sidecar-model to fs: only the commands that load
// the sidecar model (or start the server that does) take it.
func (g *globals) sidecarFlag(fs *pflag.FlagSet) {
	fs.StringVar(&g.sidecarModel, "sidecar-model", "", "GGUF file of the local sidecar model (default: sidecar_model in config.toml, else the first .gguf in DATA/models)")
}

// openVault opens the vault in the data dir, or borrows the server's when
// the command runs in the server; release closes what openVault opened.
func (g *globals) openVault() (v *vault.Vault, release func(), err error) {
	return g.openVaultReserve(0)
}

// openVaultReserve is openVault for a command about to store n bytes:
// a vault it opens grows its file for them at once.
func (g *globals) openVaultReserve(n int64) (v *vault.Vault, release func(), err error) {
	if g.shared != nil {
		return g.shared.Vault(), func() {}, nil
	}
	var opts *vault.Options
	if n > 0 {
		opts = &vault.Options{Reserve: n}
	}
	v, err = vault.OpenDir(g.dataDir, opts)
	if err != nil {
		return nil, nil, err
	}
	return v, func() { _ = v.Close() }, nil
}

// vaultRun adapts a command body that needs the vault: it opens the vault
// in the data dir, runs fn and closes the vault.
func (g *globals) vaultRun(fn func(*cobra.Command, []string, *vault.Vault) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		v, release, err := g.openVault()
		if err != nil {
			return err
		}
		defer release()
		return fn(cmd, args, v)
	}
}

// overview is what bare `kws` prints when it has no terminal to draw the
// workstation on: where the data lives, what the vault holds, what to run.
func overview(cmd *cobra.Command, g *globals) error {
	out := cmd.OutOrStdout()
	// A running server holds the vault: show its sessions instead.
	if list, err := request(g, wire.Hello{Op: "ls"}); err == nil {
		var sessions []server.SessionInfo
		if err := json.Unmarshal(list, &sessions); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		fmt.Fprintf(out, "kws — exact context vault and context diet for coding agents\n\ndata dir  %s (a kws server runs it)\n\n", g.dataDir)
		printSessions(out, sessions)
		fmt.Fprint(out, `
Run kws attach in a terminal to see a session. From scripts:
  make test 2>&1 | kws vault put                 keep a build log, exactly, by id
  kws vault ls | search QUERY | get ID | stats   browse the vault
  kws ls                                         sessions, their agents, who waits
`)
		return nil
	}
	v, release, err := g.openVault()
	if err != nil {
		return err
	}
	defer release()
	n, err := v.Len()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, `kws — exact context vault and context diet for coding agents

data dir  %s
vault     %s (%d blocks)

Run kws in a terminal for the full-screen workstation. From scripts:
  kws diet replay testdata/trajectories/*.traj   replay agent sessions through the diet
  make test 2>&1 | kws vault put                 keep a build log, exactly, by id
  kws vault ls | search QUERY | get ID | stats   browse the vault
  kws --help                                     every command and flag
`, g.dataDir, v.Path(), n)
	return nil
}
