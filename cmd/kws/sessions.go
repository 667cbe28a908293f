package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/transcript"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/internal/human"
)

// newTranscriptsCmd is kws transcripts: the agents' transcripts (their
// conversations on disk, DATA/sessions/ID), which kws run --resume
// continues. "sessions", its old name, stays an alias for a release; a
// session is the tmux sense (kws ls).
func newTranscriptsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "transcripts", Aliases: []string{"sessions"},
		Short: "Agent transcripts in the data dir (kws sessions is the old name)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "ls",
		Short: "List transcripts, newest first (continue one with kws run --resume ID)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := transcript.List(g.dataDir)
			if err != nil {
				return err
			}
			// In the server, a session a live agent records shows that
			// agent and its state, not the status its file had last.
			owners := map[string]app.Owner{}
			if g.shared != nil {
				owners = g.shared.Owners()
			}
			w := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(w)
				for _, s := range list {
					row := struct {
						transcript.Summary
						Owner *app.Owner `json:"owner,omitempty"`
					}{Summary: s}
					if o, ok := owners[s.ID]; ok {
						row.Owner = &o
					}
					if err := enc.Encode(row); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tAGENT\tMESSAGES\tCALLS\tUPDATED\tTITLE")
			for _, s := range list {
				status, agent := s.Status, "-"
				if status == transcript.StatusRunning && !transcript.Held(g.dataDir, s.ID) {
					status = transcript.StatusInterrupted
				}
				if o, ok := owners[s.ID]; ok {
					status, agent = o.State, o.Session+"/"+o.Agent
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", oneLine(s.ID, 40), oneLine(status, 20), oneLine(agent, 40), s.Messages, s.Calls, human.Age(time.Since(s.Updated)), oneLine(s.Title, 60))
			}
			return tw.Flush()
		},
	})
	return cmd
}
