package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/vault"
)

// newRewindCmd is kws rewind: a session's turns and what each changed,
// and a rewind of its files, its conversation or both to before a turn.
func newRewindCmd(g *globals) *cobra.Command {
	var r app.RewindRequest
	var to int
	cmd := &cobra.Command{
		Use:   "rewind SESSION [--to TURN] [--files|--conversation|--both] [--yes] [--force] [--undo]",
		Short: "List a session's turns and the files each changed, or rewind its files and conversation to before a turn",
		Long: `Without --to, lists the session's turns (counted from 1) with the files each changed.
With --to TURN, previews going back to just before that turn's first change: the files (each
with its diff; files changed since by you or another agent are kept unless --force), the
conversation (a new session continues from before the turn; this one stays saved), or both (the
default); --yes does it. A rewind is itself a checkpoint: --undo goes back on the last one.`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().IntVar(&to, "to", 0, "the turn to go back to just before (from 1)")
	cmd.Flags().BoolVar(&r.Files, "files", false, "rewind the files only")
	cmd.Flags().BoolVar(&r.Conversation, "conversation", false, "rewind the conversation only")
	both := cmd.Flags().Bool("both", false, "rewind the files and the conversation (the default)")
	cmd.Flags().BoolVar(&r.Yes, "yes", false, "do it, without only showing the preview")
	cmd.Flags().BoolVar(&r.Force, "force", false, "overwrite files changed since the agent's last checkpoint")
	cmd.Flags().BoolVar(&r.Undo, "undo", false, "go back on the last rewind of the files")
	cmd.RunE = g.vaultRun(func(cmd *cobra.Command, args []string, v *vault.Vault) error {
		r.Turn = to
		if *both {
			r.Files, r.Conversation = true, true
		}
		req, err := r.Checked()
		if err != nil {
			return err
		}
		reply, fork, err := app.RewindSession(v, g.dataDir, args[0], req)
		fmt.Fprint(cmd.OutOrStdout(), reply)
		if err == nil && fork != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "kws run --resume %s continues it\n", fork)
		}
		return err
	})
	return cmd
}
