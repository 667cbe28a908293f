// Command kws is a terminal workstation for AI coding agents: bare kws opens
// the full-screen workstation; its subcommands run agents headless, replay
// the context diet and browse the vault.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/pty"
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
	if err := protectKeys(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "kws: warning:", err)
	}
	root := newRoot()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

// errorLine is how a command's error is printed. An error may quote a
// server, a file or a model, so its escape sequences and control
// characters are removed.
func errorLine(err error) string {
	return "kws: " + termsafe.Strip(err.Error())
}

// globals are the flags every command shares.
type globals struct {
	dataDir      string
	json         bool
	sidecarModel string
}

func newRoot() *cobra.Command {
	g := &globals{}
	wf := &wsFlags{}
	root := &cobra.Command{
		Use:           "kws",
		Short:         "kws: a terminal workstation for AI coding agents with an exact context vault",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorkstation(cmd, g, wf)
		},
	}
	root.Flags().StringVar(&wf.theme, "theme", "", "skin: dark, light, high-contrast or one in ~/.config/kws/skins (env KWS_THEME)")
	root.Flags().StringVar(&wf.workspace, "workspace", ".", "workspace directory the agents and shells work in")
	root.Flags().StringVar(&wf.shell, "shell", "", "program for shell panes (default $SHELL, else bash)")
	root.Flags().BoolVar(&wf.worktree, "worktree", false, "give each agent its own git worktree of the workspace (WORKSPACE/.kws/worktrees/NAME, branch kws/NAME)")
	root.Flags().StringVar(&wf.emulator, "emulator", pty.EmulatorFast, "terminal emulator of shell panes: "+pty.EmulatorFast+" or "+pty.EmulatorVT)
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", vault.DefaultDataDir(), "data directory (vault, sessions, logs)")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print one JSON object per line")
	root.PersistentFlags().StringVar(&g.sidecarModel, "sidecar-model", "", "GGUF file of the local sidecar model (default: sidecar_model in config.toml, else the first .gguf in DATA/models)")
	root.AddCommand(newDietCmd(g), newVaultCmd(g), newRunCmd(g), newSessionsCmd(g), newBenchCmd(g), newSidecarCmd(g))
	root.AddCommand(newMemoryCmd(g))
	return root
}

// openVault opens the vault in the data dir.
func (g *globals) openVault() (*vault.Vault, error) {
	return vault.OpenDir(g.dataDir, nil)
}

// vaultRun adapts a command body that needs the vault: it opens the vault
// in the data dir, runs fn and closes the vault.
func (g *globals) vaultRun(fn func(*cobra.Command, []string, *vault.Vault) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		v, err := g.openVault()
		if err != nil {
			return err
		}
		defer v.Close()
		return fn(cmd, args, v)
	}
}

// overview is what bare `kws` prints when it has no terminal to draw the
// workstation on: where the data lives, what the vault holds, what to run.
func overview(cmd *cobra.Command, g *globals) error {
	v, err := g.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	n, err := v.Len()
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), `kws — exact context vault and context diet for coding agents

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
