package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/diet/replay"
	"github.com/kwsdev/kws/vault"
)

// evalRow is one question set's figures in kws vault search-eval.
type evalRow struct {
	Set       string             `json:"set"`
	Files     int                `json:"files"`
	Questions int                `json:"questions"`
	KWS       replay.SearchScore `json:"kws"`
	Text      replay.SearchScore `json:"kws_text_only"`
	BM25      replay.SearchScore `json:"bm25"`
}

func newVaultSearchEval(g *globals) *cobra.Command {
	var split bool
	cmd := &cobra.Command{
		Use:   "search-eval [--split] FILE...",
		Short: "Score vault search on questions generated from transcripts, against plain BM25",
		Long: `Replay the transcripts (SWE-agent .traj, chat JSON or JSONL) into a scratch vault,
each as one agent's conversation, ask the questions generated from them ("what did
` + "`CMD`" + ` print N messages ago", "line L of FILE in the window shown N messages ago", "the
last run of ` + "`CMD`" + `"), and print how often the block holding the answer comes first
and in the top 3: for kws's search told who asks, for kws's search given the text
alone, and for plain BM25 over the same blocks. --split also scores the files sorted
by name with index % 3 == 2 (MEASURE) apart from the rest (TUNE).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			sets, err := evalSets(files, split)
			if err != nil {
				return err
			}
			var rows []evalRow
			for _, s := range sets {
				row, err := evalSet(s.name, s.convs)
				if err != nil {
					return err
				}
				rows = append(rows, row)
			}
			return printEvalRows(cmd, g.json, rows)
		},
	}
	cmd.Flags().BoolVar(&split, "split", false, "also score the TUNE and MEASURE sets apart")
	return cmd
}

type evalSetFiles struct {
	name  string
	convs []replay.Conversation
}

// evalSets loads the files: one set ALL, preceded by TUNE and MEASURE
// with --split.
func evalSets(files []string, split bool) ([]evalSetFiles, error) {
	sorted := append([]string(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return filepath.Base(sorted[i]) < filepath.Base(sorted[j]) })
	tune, measure, all := evalSetFiles{name: "TUNE"}, evalSetFiles{name: "MEASURE"}, evalSetFiles{name: "ALL"}
	for i, f := range sorted {
		c, err := replay.Load(f)
		if err != nil {
			return nil, err
		}
		if i%3 == 2 {
			measure.convs = append(measure.convs, c)
		} else {
			tune.convs = append(tune.convs, c)
		}
		all.convs = append(all.convs, c)
	}
	if !split {
		return []evalSetFiles{all}, nil
	}
	return []evalSetFiles{tune, measure, all}, nil
}

// evalSet scores one set in a scratch vault.
func evalSet(name string, convs []replay.Conversation) (evalRow, error) {
	dir, err := os.MkdirTemp("", "kws-search-eval-")
	if err != nil {
		return evalRow{}, fmt.Errorf("scratch vault: %w", err)
	}
	defer os.RemoveAll(dir)
	v, err := vault.Open(filepath.Join(dir, vault.FileName), nil)
	if err != nil {
		return evalRow{}, err
	}
	defer v.Close()
	ev, err := replay.EvalSearch(convs, diet.Defaults(), v, nil)
	if err != nil {
		return evalRow{}, err
	}
	return evalRow{Set: name, Files: len(convs), Questions: len(ev.Questions), KWS: ev.KWS, Text: ev.Text, BM25: ev.BM25}, nil
}

func printEvalRows(cmd *cobra.Command, asJSON bool, rows []evalRow) error {
	out := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(out)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SET\tFILES\tQUESTIONS\tKWS TOP-1\tKWS TOP-3\tTEXT-ONLY TOP-1\tTEXT-ONLY TOP-3\tBM25 TOP-1\tBM25 TOP-3\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", r.Set, r.Files, r.Questions,
			r.KWS.Pct(r.KWS.Top1), r.KWS.Pct(r.KWS.Top3), r.Text.Pct(r.Text.Top1), r.Text.Pct(r.Text.Top3),
			r.BM25.Pct(r.BM25.Top1), r.BM25.Pct(r.BM25.Top3))
	}
	return tw.Flush()
}
