package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/internal/human"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

func newVaultCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "vault", Short: "Store and read exact blocks in the vault"}
	cmd.AddCommand(newVaultPut(g), newVaultLs(g), newVaultGet(g), newVaultSearch(g), newVaultSearchEval(g), newVaultStats(g))
	return cmd
}

func newVaultPut(g *globals) *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "put [--kind K]",
		Short: "Store stdin exactly and print its id (make test 2>&1 | kws vault put)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := readAllExact(cmd.InOrStdin())
			if err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			var id string
			if g.shared != nil {
				id, err = g.shared.KeepLater(kind, data)
			} else {
				v, release, openErr := g.openVaultReserve(int64(len(data)))
				if openErr != nil {
					return openErr
				}
				defer release()
				id, err = app.Keep(v, kind, "", data)
			}
			if err != nil {
				return err
			}
			if g.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"id": id, "chars": len(data)})
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "stdin", "kind of block (tool:shell, log, file, ...)")
	return cmd
}

func newVaultLs(g *globals) *cobra.Command {
	var kind string
	var limit int
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List blocks, newest first",
		Args:  cobra.NoArgs,
		RunE: g.vaultRun(func(cmd *cobra.Command, _ []string, v *vault.Vault) error {
			var metas []vault.Meta
			err := v.List(func(m vault.Meta) error {
				if kind == "" || m.Kind == kind {
					metas = append(metas, m)
				}
				return nil
			})
			if err != nil {
				return err
			}
			sort.SliceStable(metas, func(i, j int) bool { return metas[i].Created.After(metas[j].Created) })
			if limit > 0 && len(metas) > limit {
				metas = metas[:limit]
			}
			return printMetas(cmd.OutOrStdout(), g.json, metas, nil)
		}),
	}
	cmd.Flags().StringVar(&kind, "kind", "", "only blocks of this kind")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "at most this many (0: all)")
	return cmd
}

func newVaultGet(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Print the exact bytes of a block (nothing else)",
		Args:  cobra.ExactArgs(1),
		RunE: g.vaultRun(func(cmd *cobra.Command, args []string, v *vault.Vault) error {
			_, err := v.WriteTo(args[0], cmd.OutOrStdout())
			if errors.Is(err, vault.ErrNotFound) || errors.Is(err, vault.ErrBadID) {
				return &exitError{code: 1, err: err}
			}
			return err
		}),
	}
}

func newVaultSearch(g *globals) *cobra.Command {
	var q vault.Query
	cmd := &cobra.Command{
		Use:   "search [-k N] [--agent A] [--session S] QUERY",
		Short: "Rank blocks for a query; prints refs and summaries, never exact text",
		Long: `Rank the vault's blocks for a query, best first: words, file names, identifiers,
the command that printed a block ("seq", "pytest -x"), a quoted command with
recency ("what did ` + "`python reproduce.py`" + ` print 13 messages ago", "the last run of
` + "`make test`" + `") or a line ("line 1200 of seaborn/axisgrid.py"). Tool outputs rank
above system prompts and demonstrations. Recency counts back from the end of the
conversation of --agent/--session, else of the newest block's.`,
		Args: cobra.MinimumNArgs(1),
		RunE: g.vaultRun(func(cmd *cobra.Command, args []string, v *vault.Vault) error {
			q.Text = strings.Join(args, " ")
			hits, err := v.Find(q)
			if err != nil {
				return err
			}
			if len(hits) == 0 && !g.json {
				n, err := v.Len()
				if err != nil {
					return err
				}
				noun := "blocks"
				if n == 1 {
					noun = "block"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "no block matches %q (the vault holds %d %s)\n", oneLine(q.Text, 100), n, noun)
				return nil
			}
			metas := make([]vault.Meta, len(hits))
			scores := make([]float64, len(hits))
			for i, h := range hits {
				metas[i], scores[i] = h.Meta, h.Score
			}
			return printMetas(cmd.OutOrStdout(), g.json, metas, scores)
		}),
	}
	cmd.Flags().IntVarP(&q.K, "k", "k", 10, "number of results")
	cmd.Flags().StringVar(&q.Agent, "agent", "", "count recency in this agent's conversation")
	cmd.Flags().StringVar(&q.Session, "session", "", "count recency in this session's conversation")
	return cmd
}

// printMetas prints block listings; summaries of sensitive blocks are
// already redacted when they are made.
func printMetas(w io.Writer, asJSON bool, metas []vault.Meta, scores []float64) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for i, m := range metas {
			row := map[string]any{"id": m.ID, "kind": m.Kind, "chars": m.Chars, "tokens": m.Tokens,
				"lines": m.Lines, "created": m.Created, "topics": m.Topics, "summary": m.Summary,
				"confidence": m.Confidence, "priority": m.Priority, "sensitive": m.Sensitive}
			if scores != nil {
				row["score"] = scores[i]
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ID\tKIND\tCHARS\tTOKENS\tAGE\tSUMMARY"
	if scores != nil {
		head = "SCORE\t" + head
	}
	fmt.Fprintln(tw, head)
	for i, m := range metas {
		sum := m.Summary
		if m.Sensitive {
			sum = "[sensitive] " + sum
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%s\t%s", m.ID, m.Kind, m.Chars, m.Tokens, human.Age(time.Since(m.Created)), oneLine(sum, 100))
		if scores != nil {
			line = fmt.Sprintf("%.3f\t", scores[i]) + line
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// oneLine makes s printable on one terminal line: control bytes (escape
// sequences included) become spaces, and it is cut to n runes.
func oneLine(s string, n int) string {
	s = termsafe.OneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newVaultStats(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Blocks stored and diet savings logged",
		Args:  cobra.NoArgs,
		RunE: g.vaultRun(func(cmd *cobra.Command, _ []string, v *vault.Vault) error {
			var st struct {
				Blocks       int     `json:"blocks"`
				Bytes        int64   `json:"bytes"`
				BlockTokens  int64   `json:"block_tokens"`
				Sensitive    int     `json:"sensitive"`
				Calls        int     `json:"calls"`
				NaiveTokens  int64   `json:"naive_tokens"`
				SentTokens   int64   `json:"sent_tokens"`
				SavedTokens  int64   `json:"saved_tokens"`
				SavedPct     float64 `json:"saved_pct"`
				AutoRestores int     `json:"auto_restores"`
				PageFaults   int     `json:"page_faults"`
				Epochs       int     `json:"epochs"`
				FileBytes    int64   `json:"file_bytes"`
			}
			err := v.List(func(m vault.Meta) error {
				st.Blocks++
				st.Bytes += int64(m.Chars)
				st.BlockTokens += int64(m.Tokens)
				if m.Sensitive {
					st.Sensitive++
				}
				return nil
			})
			if err != nil {
				return err
			}
			err = v.Stats(func(e vault.DietEvent) error {
				st.Calls++
				st.NaiveTokens += int64(e.NaiveTokens)
				st.SentTokens += int64(e.SentTokens)
				st.AutoRestores += e.AutoRestores
				st.PageFaults += e.PageFaults
				if e.Epoch {
					st.Epochs++
				}
				return nil
			})
			if err != nil {
				return err
			}
			st.SavedTokens = st.NaiveTokens - st.SentTokens
			if st.NaiveTokens > 0 {
				st.SavedPct = float64(int64(1000*st.SavedTokens/st.NaiveTokens)) / 10
			}
			st.FileBytes = v.FileSize()
			if g.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(st)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "vault        %s (%d bytes)\n", v.Path(), st.FileBytes)
			fmt.Fprintf(w, "blocks       %d (%d bytes, %d tokens, %d sensitive)\n", st.Blocks, st.Bytes, st.BlockTokens, st.Sensitive)
			fmt.Fprintf(w, "diet calls   %d (%d epochs)\n", st.Calls, st.Epochs)
			fmt.Fprintf(w, "tokens       naive %d, sent %d, saved %d (%.1f%%)\n", st.NaiveTokens, st.SentTokens, st.SavedTokens, st.SavedPct)
			fmt.Fprintf(w, "restores     %d auto-restores, %d page faults\n", st.AutoRestores, st.PageFaults)
			return nil
		}),
	}
}

// readChunk is the unit readAllExact reads a stream of unknown size in.
const readChunk = 4 << 20

// readAllExact reads r to the end into one slice of exactly its length.
// io.ReadAll grows its buffer by copying, so a 200 MB input briefly holds
// twice that and leaves up to a quarter unused; here a regular file is read
// into a buffer of its size, and a pipe into fixed chunks joined once, after
// which the chunks are handed back to the runtime before the vault copies
// the block again into its pages.
func readAllExact(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			buf := make([]byte, 0, fi.Size()+1)
			for {
				n, err := f.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					return buf, nil
				}
				if err != nil {
					return nil, err
				}
				if len(buf) == cap(buf) {
					// The file grew while being read: go on in chunks.
					return joinChunks([][]byte{buf}, r)
				}
			}
		}
	}
	return joinChunks(nil, r)
}

// joinChunks reads r to the end in readChunk pieces after the ones given
// and returns them joined.
func joinChunks(chunks [][]byte, r io.Reader) ([]byte, error) {
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	for {
		c := make([]byte, readChunk)
		n, err := io.ReadFull(r, c)
		chunks = append(chunks, c[:n])
		total += n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	if total > 64<<20 {
		debug.FreeOSMemory()
	}
	return out, nil
}
