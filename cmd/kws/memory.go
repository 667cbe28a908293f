package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/termsafe"
)

// memFlags are the flags every memory subcommand shares.
type memFlags struct {
	scope     string
	workspace string
	g         *globals
}

func newMemoryCmd(g *globals) *cobra.Command {
	f := &memFlags{g: g}
	cmd := &cobra.Command{Use: "memory", Short: "Long-term memory: facts, preferences and decisions kept across sessions"}
	g.sidecarFlag(cmd.PersistentFlags())
	cmd.PersistentFlags().StringVar(&f.scope, "scope", "", "global, project (the --workspace's) or all; ls and search default to all, add to global")
	cmd.PersistentFlags().StringVar(&f.workspace, "workspace", ".", "workspace whose project scope --scope project means")
	cmd.AddCommand(newMemoryLs(g, f), newMemorySearch(g, f), newMemoryAdd(g, f), newMemoryRm(g),
		newMemoryPending(g), newMemoryApprove(g), newMemoryReject(g), newMemoryStatus(g), newMemoryReembed(g),
		newMemoryEval(g))
	// A store a command opened itself is closed when it ends, which stops
	// its re-embedding: the next command goes on where it stopped.
	for _, c := range cmd.Commands() {
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			defer func() {
				if g.memory != nil {
					g.memory.Close()
					g.memory = nil
				}
			}()
			return run(cmd, args)
		}
	}
	return cmd
}

// openMemory opens the memory store of the configured embedder, loading
// the sidecar model first when it is the embedder, and warns on warn of
// each damaged file the store moved aside.
func (g *globals) openMemory(warn io.Writer) (*memory.Store, error) {
	if g.shared != nil {
		if g.shared.Memory() == nil {
			return nil, fmt.Errorf("memory is off in the kws server: %w", g.shared.MemoryOff())
		}
		return g.shared.Memory(), nil
	}
	cfg, _ := userConfig()
	var engine sidecar.Engine
	if cfg.MemoryEmbedder == "sidecar" {
		e, err := g.openSidecar(io.Discard)
		if err != nil {
			return nil, fmt.Errorf("memory_embedder = \"sidecar\": %w", err)
		}
		engine = e
	}
	s, err := app.OpenMemory(g.dataDir, cfg, engine, embedLoader)
	if err != nil {
		return nil, err
	}
	g.memory = s
	for _, d := range s.Damaged() {
		fmt.Fprintf(warn, "kws: %s\n", d)
	}
	return s, nil
}

// warnReembedding tells warn when some memories wait to be re-embedded,
// and so are not found by similarity yet.
func warnReembedding(warn io.Writer, s *memory.Store) {
	if r := s.Reembedding(); r.Running || r.Err != nil {
		fmt.Fprintf(warn, "kws: memory: %s; memories not re-embedded yet are not ranked by similarity (kws memory reembed finishes it)\n", termsafe.OneLine(r.String()))
	}
}

func newMemoryStatus(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the memory store: its embedder, its memories and any re-embedding",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			r := s.Reembedding()
			w := cmd.OutOrStdout()
			if g.json {
				out := map[string]any{"dir": s.Dir(), "embedder": s.Embedder(), "memories": s.Count(), "pending": len(s.Pending()), "reembedding": r}
				if r.Err != nil {
					out["reembed_error"] = r.Err.Error()
				}
				return json.NewEncoder(w).Encode(out)
			}
			fmt.Fprintf(w, "store     %s\nembedder  %s\nmemories  %d\npending   %d\n", s.Dir(), s.Embedder(), s.Count(), len(s.Pending()))
			if line := termsafe.OneLine(r.String()); line != "" {
				fmt.Fprintf(w, "vectors   %s\n", line)
			}
			return nil
		},
	}
}

func newMemoryReembed(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reembed",
		Short: "Wait until every memory's vector is the configured embedder's, showing progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			heard := make(chan struct{}, 1)
			defer s.Watch(func() {
				select {
				case heard <- struct{}{}:
				default:
				}
			})()
			w := cmd.OutOrStdout()
			last := ""
			for {
				r := s.Reembedding()
				if line := termsafe.OneLine(r.String()); line != last && line != "" && !g.json {
					fmt.Fprintln(w, line)
					last = line
				}
				if !r.Running {
					if r.Err != nil {
						return r.Err
					}
					if g.json {
						return json.NewEncoder(w).Encode(r)
					}
					if r.Total == 0 {
						fmt.Fprintf(w, "every memory's vector is %s's\n", s.Embedder())
					}
					return nil
				}
				select {
				case <-heard:
				case <-cmd.Context().Done():
					return cmd.Context().Err()
				}
			}
		},
	}
}

// scopes resolves --scope: "" means def, "all" means this project and
// global.
func (f *memFlags) scopes(def string) ([]string, error) {
	s := f.scope
	if s == "" {
		s = def
	}
	if s == "global" {
		return []string{memory.GlobalScope}, nil
	}
	if s != "project" && s != "all" {
		return nil, fmt.Errorf("--scope %q: want global, project or all", f.scope)
	}
	ws, err := app.ResolveWorkspace(f.g.abs(f.workspace))
	if err != nil {
		return nil, err
	}
	if s == "project" {
		return []string{memory.ProjectScope(ws)}, nil
	}
	return []string{memory.ProjectScope(ws), memory.GlobalScope}, nil
}

func newMemoryLs(g *globals, f *memFlags) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "ls [--scope S] [-n N]",
		Short: "List memories, most recently updated first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scopes, err := f.scopes("all")
			if err != nil {
				return err
			}
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			warnReembedding(cmd.ErrOrStderr(), s)
			var hits []memory.Hit
			for _, sc := range scopes {
				list, err := s.List(cmd.Context(), sc)
				if err != nil {
					return err
				}
				for _, m := range list {
					hits = append(hits, memory.Hit{Memory: m})
				}
			}
			sort.SliceStable(hits, func(i, j int) bool { return hits[i].Updated.After(hits[j].Updated) })
			if limit > 0 && len(hits) > limit {
				hits = hits[:limit]
			}
			return printMemories(cmd.OutOrStdout(), g.json, hits, false)
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most this many (0: all)")
	return cmd
}

func newMemorySearch(g *globals, f *memFlags) *cobra.Command {
	var k int
	cmd := &cobra.Command{
		Use:   "search [--scope S] [-k N] QUERY",
		Short: "Rank memories by relevance to a query: its words (BM25) fused with its meaning (the embedder)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scopes, err := f.scopes("all")
			if err != nil {
				return err
			}
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			warnReembedding(cmd.ErrOrStderr(), s)
			hits, err := s.Search(cmd.Context(), strings.Join(args, " "), scopes, k)
			if err != nil {
				return err
			}
			return printMemories(cmd.OutOrStdout(), g.json, hits, true)
		},
	}
	cmd.Flags().IntVarP(&k, "k", "k", 10, "number of results")
	return cmd
}

func newMemoryAdd(g *globals, f *memFlags) *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "add [--scope S] [--kind K] TEXT",
		Short: "Remember a fact (a near-duplicate is not stored twice)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scopes, err := f.scopes("global")
			if err != nil {
				return err
			}
			if len(scopes) != 1 {
				return errors.New("--scope all: add needs one scope, global or project")
			}
			text := strings.Join(args, " ")
			if diet.IsSensitive(text) {
				return memory.ErrSensitive
			}
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			act, m, err := s.Promote(cmd.Context(), memory.Candidate{Text: text, Kind: kind, Confidence: 1},
				scopes[0], memory.Provenance{Source: memory.SourceManual})
			if err != nil {
				return err
			}
			if m.ID == "" {
				return memory.ErrEmpty
			}
			w := cmd.OutOrStdout()
			if g.json {
				return json.NewEncoder(w).Encode(map[string]any{"action": act, "id": m.ID, "scope": m.Scope, "text": m.Text})
			}
			switch act {
			case memory.ActionNoop:
				fmt.Fprintf(w, "already remembered as %s\n", m.ID)
			case memory.ActionUpdate:
				fmt.Fprintf(w, "updated %s\n", m.ID)
			default:
				fmt.Fprintf(w, "%s %s\n", act, m.ID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "note", "note, preference, decision, correction (replaces a similar memory), rename or path")
	return cmd
}

func newMemoryRm(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID...",
		Short: "Forget memories by id",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.eachMemoryID(cmd, args, "delete", "removed", (*memory.Store).Delete)
		},
	}
}

// eachMemoryID runs do on every id in order and reports each as done
// (action in --json, past in text); an unknown id stops with exit code 1.
func (g *globals) eachMemoryID(cmd *cobra.Command, ids []string, action, past string, do func(*memory.Store, string) error) error {
	s, err := g.openMemory(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := do(s, id); err != nil {
			if errors.Is(err, memory.ErrNotFound) {
				return &exitError{code: 1, err: err}
			}
			return err
		}
		if g.json {
			err = json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"action": action, "id": id})
		} else {
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", past, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func newMemoryPending(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "pending",
		Short: "List the candidates waiting for approval, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(w)
				for _, p := range s.Pending() {
					if err := enc.Encode(p); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSCOPE\tKIND\tCONF\tSOURCE\tAGE\tTEXT")
			for _, p := range s.Pending() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%s\t%s\n", p.ID, memory.ScopeLabel(p.Scope), p.Candidate.Kind, p.Candidate.Confidence,
					p.Provenance.Source, human.Age(time.Since(p.Created)), oneLine(p.Candidate.Text, 100))
			}
			return tw.Flush()
		},
	}
}

func newMemoryApprove(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "approve ID [TEXT]",
		Short: "Keep a waiting candidate as a memory, with TEXT in place of its own when given",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.openMemory(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			act, m, err := s.Approve(cmd.Context(), args[0], strings.Join(args[1:], " "))
			if errors.Is(err, memory.ErrNotFound) {
				return &exitError{code: 1, err: err}
			}
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if g.json {
				return json.NewEncoder(w).Encode(map[string]any{"action": act, "id": m.ID, "scope": m.Scope, "text": m.Text})
			}
			_, err = fmt.Fprintf(w, "%s %s\n", act, m.ID)
			return err
		},
	}
}

func newMemoryReject(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "reject ID...",
		Short: "Drop waiting candidates",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.eachMemoryID(cmd, args, "reject", "rejected", (*memory.Store).Reject)
		},
	}
}

// printMemories prints memory listings; withScore adds the similarity.
func printMemories(w io.Writer, asJSON bool, hits []memory.Hit, withScore bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, h := range hits {
			var row any = h.Memory
			if withScore {
				row = h
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ID\tSCOPE\tKIND\tSOURCE\tAGE\tTEXT"
	if withScore {
		head = "SCORE\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, h := range hits {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", h.ID, memory.ScopeLabel(h.Scope), h.Kind, h.Provenance.Source, human.Age(time.Since(h.Updated)), oneLine(h.Text, 100))
		if withScore {
			line = fmt.Sprintf("%.3f\t", h.Score) + line
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
