package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
)

// newVerbCmds are tmux's verbs for a program in a kws shell pane: each
// runs in the server, on the session the pane belongs to ($KWS_SESSION),
// with tmux's meaning. A pane is named by its number (-t N); without -t
// the verb works on the focused pane.
func newVerbCmds(g *globals) []*cobra.Command {
	var target int
	// sessionTarget is rename-session's -t: the session to rename, by
	// name, instead of the pane's own.
	var sessionTarget string
	var horizontal, vertical, print bool
	targetFlag := func(c *cobra.Command) *cobra.Command {
		c.Flags().IntVarP(&target, "target", "t", -1, "pane number (default: the focused pane)")
		return c
	}
	printFlag := func(c *cobra.Command) *cobra.Command {
		c.Flags().BoolVarP(&print, "print", "p", false, "print the result")
		return c
	}
	verb := func(use, short string, args cobra.PositionalArgs, run func(w *app.Workstation, args []string) (string, error)) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: args}
		c.RunE = g.viaServer(func(cmd *cobra.Command, args []string) error {
			if g.shared == nil {
				return fail("%s works on a running session: run it in one of its shell panes", cmd.Name())
			}
			session := g.session
			if sessionTarget != "" {
				session = sessionTarget
			}
			w, err := g.shared.Session(session)
			if err == nil {
				var out string
				out, err = run(w, args)
				fmt.Fprint(cmd.OutOrStdout(), out)
			}
			if err != nil {
				return fail("%s: %v", cmd.Name(), err)
			}
			return nil
		})
		return c
	}
	split := verb("split-window [-h|-v]", "Split the focused pane: -h side by side, -v (the default) one above the other", cobra.NoArgs,
		func(w *app.Workstation, _ []string) (string, error) {
			if horizontal && vertical {
				return "", errors.New("-h and -v: choose one")
			}
			return "", w.SplitWindow(horizontal)
		})
	// -h is tmux's, so help is --help alone here.
	split.Flags().Bool("help", false, "help for split-window")
	split.Flags().BoolVarP(&horizontal, "horizontal", "h", false, "side by side")
	split.Flags().BoolVarP(&vertical, "vertical", "v", false, "one above the other (the default)")
	var window int
	windowFlag := func(c *cobra.Command) *cobra.Command {
		c.Flags().IntVarP(&window, "target", "t", -1, "window number (default: the window shown)")
		return c
	}
	var every bool
	listPanes := verb("list-panes [-s]", "List the window's panes: number, title, size, id, the focused one marked; -s every window's", cobra.NoArgs,
		func(w *app.Workstation, _ []string) (string, error) { return w.ListPanes(every) })
	listPanes.Flags().BoolVarP(&every, "session", "s", false, "every window's panes, each number after its window's")
	var name string
	newWindow := verb("new-window [-n NAME] [KIND]", "Open a window with a pane of the kind (a shell by default) and show it", cobra.MaximumNArgs(1),
		func(w *app.Workstation, args []string) (string, error) {
			kind := ""
			if len(args) == 1 {
				kind = args[0]
			}
			return "", w.NewWindow(kind, name)
		})
	newWindow.Flags().StringVarP(&name, "name", "n", "", "the window's name (default: after its pane)")
	renameSession := verb("rename-session [-t NAME] NEW-NAME", "Rename the session (the pane's own, or -t NAME's): kws attach -t and kws ls use the new name", cobra.ExactArgs(1),
		func(w *app.Workstation, args []string) (string, error) { return "", w.RenameSession(args[0]) })
	renameSession.Flags().StringVarP(&sessionTarget, "target", "t", "", "the session to rename (default: the pane's)")
	return []*cobra.Command{
		renameSession,
		listPanes,
		verb("list-windows", "List the session's windows: number, name (* on the one shown, ‼ when a pane waits for you), panes", cobra.NoArgs,
			func(w *app.Workstation, _ []string) (string, error) { return w.ListWindows() }),
		newWindow,
		windowFlag(verb("select-window -t N", "Show window N", cobra.NoArgs,
			func(w *app.Workstation, _ []string) (string, error) {
				if window < 0 {
					return "", errors.New("give the window's number: -t N")
				}
				return "", w.SelectWindow(window)
			})),
		windowFlag(verb("rename-window [-t N] NAME", "Name a window (the one shown by default); \"\" gives back the automatic name", cobra.ExactArgs(1),
			func(w *app.Workstation, args []string) (string, error) { return "", w.RenameWindow(window, args[0]) })),
		windowFlag(verb("kill-window [-t N]", "Close a window (the one shown by default) and its panes", cobra.NoArgs,
			func(w *app.Workstation, _ []string) (string, error) { return "", w.KillWindow(window) })),
		verb("select-layout NAME", "Arrange the panes as a preset layout (tiled, even-horizontal, even-vertical, main-horizontal, main-vertical)", cobra.ExactArgs(1),
			func(w *app.Workstation, args []string) (string, error) { return "", w.SelectLayout(args[0]) }),
		targetFlag(verb("select-pane -t N", "Focus pane N", cobra.NoArgs,
			func(w *app.Workstation, _ []string) (string, error) { return "", w.SelectPane(target) })),
		split,
		targetFlag(verb("send-keys [-t N] KEY...", "Send keys to a pane: a key name (Enter, C-c, M-x, Up, Escape) is that key, other words are typed", cobra.MinimumNArgs(1),
			func(w *app.Workstation, args []string) (string, error) { return "", w.SendKeys(target, args) })),
		printFlag(targetFlag(verb("capture-pane -p [-t N]", "Print the text a pane shows", cobra.NoArgs,
			func(w *app.Workstation, _ []string) (string, error) {
				if !print {
					return "", errors.New("kws has no paste buffers for capture-pane to fill: give -p to print")
				}
				return w.CapturePane(target)
			}))),
		printFlag(targetFlag(verb("display-message -p [-t N] FORMAT", "Print FORMAT with #{session_name}, #{pane_index}, #{pane_id}, #{pane_title}, #{pane_width}, #{pane_height}, #{window_width}, #{window_height} filled in", cobra.ExactArgs(1),
			func(w *app.Workstation, args []string) (string, error) {
				if !print {
					return "", errors.New("kws shows messages in the status bar only for itself: give -p to print")
				}
				text, err := w.DisplayMessage(target, w.SessionName(), args[0])
				return text + "\n", err
			}))),
	}
}
