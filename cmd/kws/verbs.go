package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/ui"
)

// newVerbCmds are tmux's verbs for a program in a kws shell pane: each
// runs in the server, on the session the pane belongs to ($KWS_SESSION),
// with tmux's meaning. A pane is named by its number (-t N); without -t
// the verb works on the focused pane.
func newVerbCmds(g *globals) []*cobra.Command {
	var target int
	targetFlag := func(c *cobra.Command) *cobra.Command {
		c.Flags().IntVarP(&target, "target", "t", -1, "pane number (default: the focused pane)")
		return c
	}
	verb := func(use, short string, args cobra.PositionalArgs, run func(a *ui.App, args []string, out io.Writer) error) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: args}
		c.RunE = g.viaServer(func(cmd *cobra.Command, args []string) error {
			if g.shared == nil {
				return fail("%s works on a running session: run it in one of its shell panes", cmd.Name())
			}
			w, err := g.shared.Session(g.session)
			if err != nil {
				return fail("%s: %v", cmd.Name(), err)
			}
			var runErr error
			var out strings.Builder
			if err := w.OnUI(func(a *ui.App) { runErr = run(a, args, &out) }); err != nil {
				return fail("%s: %v", cmd.Name(), err)
			}
			fmt.Fprint(cmd.OutOrStdout(), out.String())
			if runErr != nil {
				return fail("%s: %v", cmd.Name(), runErr)
			}
			return nil
		})
		return c
	}
	var horizontal, vertical, print bool
	split := verb("split-window [-h|-v]", "Split the focused pane: -h left/right, -v (the default) top/bottom", cobra.NoArgs,
		func(a *ui.App, _ []string, _ io.Writer) error {
			if horizontal && vertical {
				return errors.New("-h and -v: choose one")
			}
			if horizontal {
				a.Command("split-right")
			} else {
				a.Command("split-down")
			}
			return nil
		})
	// -h is tmux's, so help is --help alone here.
	split.Flags().Bool("help", false, "help for split-window")
	split.Flags().BoolVarP(&horizontal, "horizontal", "h", false, "side by side (left/right)")
	split.Flags().BoolVarP(&vertical, "vertical", "v", false, "one above the other (the default)")
	capture := targetFlag(verb("capture-pane -p [-t N]", "Print the text a pane shows", cobra.NoArgs,
		func(a *ui.App, _ []string, out io.Writer) error {
			if !print {
				return errors.New("kws has no paste buffers for capture-pane to fill: give -p to print")
			}
			text, err := a.CapturePane(target)
			fmt.Fprint(out, text)
			return err
		}))
	capture.Flags().BoolVarP(&print, "print", "p", false, "print the text")
	display := targetFlag(verb("display-message -p [-t N] FORMAT", "Print FORMAT with #{session_name}, #{pane_index}, #{pane_id}, #{pane_title}, #{pane_width}, #{pane_height}, #{window_width}, #{window_height} filled in", cobra.ExactArgs(1),
		func(a *ui.App, args []string, out io.Writer) error {
			if !print {
				return errors.New("kws shows messages in the status bar only for itself: give -p to print")
			}
			text, err := a.DisplayMessage(target, g.session, args[0])
			fmt.Fprintln(out, text)
			return err
		}))
	display.Flags().BoolVarP(&print, "print", "p", false, "print the message")
	return []*cobra.Command{
		verb("list-panes", "List the session's panes: number, title, size, the focused one marked", cobra.NoArgs,
			func(a *ui.App, _ []string, out io.Writer) error {
				for _, p := range a.Panes() {
					active := ""
					if p.Active {
						active = " (active)"
					}
					fmt.Fprintf(out, "%d: %s [%dx%d] %%%d%s\n", p.Index, p.Title, p.Width, p.Height, p.Index, active)
				}
				return nil
			}),
		verb("select-layout NAME", "Arrange the panes as a preset layout (tiled, even-horizontal, even-vertical, main-vertical, main-horizontal)", cobra.ExactArgs(1),
			func(a *ui.App, args []string, _ io.Writer) error {
				if !slices.Contains(ui.Presets, ui.Preset(args[0])) {
					var names []string
					for _, p := range ui.Presets {
						names = append(names, string(p))
					}
					return fmt.Errorf("no layout %q (layouts: %s)", args[0], strings.Join(names, ", "))
				}
				a.Command("select-layout " + args[0])
				return nil
			}),
		targetFlag(verb("select-pane -t N", "Focus pane N", cobra.NoArgs,
			func(a *ui.App, _ []string, _ io.Writer) error { return a.SelectPane(target) })),
		split,
		targetFlag(verb("send-keys [-t N] KEY...", "Send keys to a pane: a key name (Enter, C-c, M-x, Up, Escape) is that key, other words are typed", cobra.MinimumNArgs(1),
			func(a *ui.App, args []string, _ io.Writer) error { return a.SendKeys(target, args) })),
		capture,
		display,
	}
}
