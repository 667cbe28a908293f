package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
)

// newVerbCmds are the commands of kws's command language for a program in
// a kws shell pane, with tmux's meaning where tmux has the verb: one for
// each command of the table (app.Commands) the palette and the keys run
// too. Each runs in the server, on the session the pane belongs to
// ($KWS_SESSION); the session parses the flags (tmux's: -t N names a pane
// or a window, without it the focused pane or the window shown). Only
// rename-session is the kws command's own: it may name another session
// (-t NAME) and waits for the server to rename it.
func newVerbCmds(g *globals) []*cobra.Command {
	var sessionTarget string
	run := func(cmd *cobra.Command, session string, do func(w *app.Workstation) (string, error)) error {
		if g.shared == nil {
			return fail("%s works on a running session: run it in one of its shell panes", cmd.Name())
		}
		w, err := g.shared.Session(session)
		if err == nil {
			var out string
			out, err = do(w)
			fmt.Fprint(cmd.OutOrStdout(), out)
		}
		if err != nil {
			return fail("%s: %v", cmd.Name(), err)
		}
		return nil
	}
	renameSession := &cobra.Command{Use: "rename-session [-t NAME] NEW-NAME", Args: cobra.ExactArgs(1),
		Short: "Rename the session (the pane's own, or -t NAME's): kws attach -t and kws ls use the new name"}
	renameSession.RunE = g.viaServer(func(cmd *cobra.Command, args []string) error {
		session := g.session
		if sessionTarget != "" {
			session = sessionTarget
		}
		return run(cmd, session, func(w *app.Workstation) (string, error) { return "", w.RenameSession(args[0]) })
	})
	renameSession.Flags().StringVarP(&sessionTarget, "target", "t", "", "the session to rename (default: the pane's)")
	out := []*cobra.Command{renameSession}
	for _, c := range app.Commands() {
		if !slices.ContainsFunc(out, func(o *cobra.Command) bool { return o.Name() == c.Name }) {
			out = append(out, commandVerb(g, c, run))
		}
	}
	return out
}

// commandVerb is the kws command for c: cobra reads its flags (tmux's
// one-letter ones, so that -t 2 and the global --data-dir both work) and
// the session gets the command line back, flags first.
func commandVerb(g *globals, c app.CommandInfo, run func(*cobra.Command, string, func(*app.Workstation) (string, error)) error) *cobra.Command {
	verb := &cobra.Command{Use: strings.TrimSpace(c.Name + " " + c.Usage), Short: c.Doc}
	if strings.Contains(c.Flags, "h") {
		// -h is tmux's here, so help is --help alone.
		verb.Flags().Bool("help", false, "help for "+c.Name)
	}
	values := map[byte]*string{}
	bools := map[byte]*bool{}
	for i := 0; i < len(c.Flags); i++ {
		f := c.Flags[i]
		if i+1 < len(c.Flags) && c.Flags[i+1] == ':' {
			values[f] = verb.Flags().StringP(string(f), string(f), "", "")
			i++
			continue
		}
		bools[f] = verb.Flags().BoolP(string(f), string(f), false, "")
	}
	verb.RunE = g.viaServer(func(cmd *cobra.Command, args []string) error {
		line := []string{c.Name}
		for i := 0; i < len(c.Flags); i++ {
			f := c.Flags[i]
			switch {
			case values[f] != nil && cmd.Flags().Changed(string(f)):
				line = append(line, "-"+string(f), *values[f])
			case bools[f] != nil && *bools[f]:
				line = append(line, "-"+string(f))
			}
		}
		if len(args) > 0 {
			// What cobra left is arguments, even a word with a dash.
			line = append(append(line, "--"), args...)
		}
		return run(cmd, g.session, func(w *app.Workstation) (string, error) { return w.Exec(line) })
	})
	return verb
}
