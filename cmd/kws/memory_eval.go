package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/memory/recallset"
	"github.com/kwsdev/kws/sidecar"
)

// newMemoryEval is kws memory eval: recall of the generated
// long-conversation set for plain BM25, the default store and the
// configured embedder, side by side. It builds its own temporary stores,
// so it runs here even when a server runs.
func newMemoryEval(g *globals) *cobra.Command {
	var (
		split    string
		convs    int
		embedder string
	)
	cmd := &cobra.Command{
		Use:   "eval [--split tune|measure|both] [--conversations N] [--embedder SPEC]",
		Short: "Measure memory recall@1/5/10 on a generated long-conversation set, against plain BM25",
		Long: `Generate long two-speaker conversations (20 sessions, 600 turns each) in which
facts are stated once and asked about later in other words (single-hop,
temporal, multi-hop and updated facts), add every turn to a temporary store
as kws memory add would ("SPEAKER: TEXT"), ask every question as kws memory
search would, and report recall@1/5/10: a hit when a turn that answers the
question is among the first k results. Plain BM25 runs on the same turns.
The tune split is for choosing parameters; report the measure split.
--embedder takes a memory_embedder value (hash, sidecar, openai:MODEL,
gguf:PATH); the default is the configured one.`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{runsHere: "true"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			splits := []recallset.Split{recallset.Tune, recallset.Measure}
			if split != "both" {
				s, err := recallset.ParseSplit(split)
				if err != nil {
					return fmt.Errorf("--split %q: want tune, measure or both", split)
				}
				splits = []recallset.Split{s}
			}
			if convs < 1 {
				return fmt.Errorf("--conversations %d: want 1 or more", convs)
			}
			cfg, _ := userConfig()
			if cmd.Flags().Changed("embedder") {
				cfg.MemoryEmbedder = embedder
			}
			var engine sidecar.Engine
			if cfg.MemoryEmbedder == "sidecar" {
				e, err := g.openSidecar(io.Discard)
				if err != nil {
					return fmt.Errorf("memory_embedder = \"sidecar\": %w", err)
				}
				engine = e
			}
			emb, err := app.NewEmbedder(g.dataDir, cfg, engine, embedLoader)
			if err != nil {
				return err
			}
			defer emb.Close()
			type retriever struct {
				name string
				ret  recallset.Retriever
			}
			rets := []retriever{{"bm25", recallset.BM25}, {"default", recallset.Texts(memory.RecallStore(memory.Options{}))}}
			if emb.ID != memory.HashEmbedderID(memory.DefaultDims) {
				rets = append(rets, retriever{emb.ID, recallset.Texts(memory.RecallStore(memory.Options{Embedder: emb.Document, QueryEmbedder: emb.Query, EmbedderID: emb.ID}))})
			}
			var reps []recallset.Report
			for _, s := range splits {
				set := recallset.Generate(s, recallset.Options{Conversations: convs})
				for _, r := range rets {
					rep, err := recallset.Evaluate(r.name, set, r.ret)
					if err != nil {
						return err
					}
					reps = append(reps, rep)
				}
			}
			w := cmd.OutOrStdout()
			if !g.json {
				recallset.WriteTable(w, reps...)
				return nil
			}
			enc := json.NewEncoder(w)
			for _, rep := range reps {
				if err := enc.Encode(rep); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&split, "split", "both", "tune, measure or both")
	cmd.Flags().IntVar(&convs, "conversations", 10, "conversations per split")
	cmd.Flags().StringVar(&embedder, "embedder", "", "memory_embedder to measure besides the default (default: the configured one)")
	return cmd
}
