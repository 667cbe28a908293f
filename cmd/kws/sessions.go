package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/session"
	"github.com/kwsdev/kws/panes"
)

func newSessionsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "Agent sessions in the data dir"}
	cmd.AddCommand(&cobra.Command{
		Use:   "ls",
		Short: "List sessions, newest first (resume one with kws run --resume ID)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := session.List(g.dataDir)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(w)
				for _, s := range list {
					if err := enc.Encode(s); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tMESSAGES\tCALLS\tUPDATED\tTITLE")
			for _, s := range list {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", oneLine(s.ID, 40), oneLine(s.Status, 20), s.Messages, s.Calls, panes.Age(time.Since(s.Updated)), oneLine(s.Title, 60))
			}
			return tw.Flush()
		},
	})
	return cmd
}
