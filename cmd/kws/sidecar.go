package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/termsafe"
)

func newSidecarCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "sidecar", Short: "The local GGUF sidecar model: its metadata and speed"}
	g.sidecarFlag(cmd.PersistentFlags())
	info := &cobra.Command{
		Use:   "info",
		Short: "Load the sidecar model and print its metadata (or why the heuristic engine answers)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.openSidecar(cmd.ErrOrStderr())
			if err != nil && !errors.Is(err, sidecar.ErrNoModel) {
				return err
			}
			defer app.CloseEngine(e)
			in := e.Info()
			if g.json {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(in)
			}
			out := cmd.OutOrStdout()
			if in.Heuristic {
				fmt.Fprintf(out, "engine  heuristic (deterministic rules)\nreason  %v\n", err)
				return nil
			}
			fmt.Fprintf(out, "engine  %s\nfile    %s\ndims    %d\n", termsafe.OneLine(in.Name), termsafe.OneLine(in.Path), in.Dims)
			keys := make([]string, 0, len(in.Meta))
			for k := range in.Meta {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				// GGUF metadata comes with a downloaded model file.
				fmt.Fprintf(out, "%-32s %s\n", termsafe.OneLine(k), termsafe.Strip(in.Meta[k]))
			}
			return nil
		},
	}
	var tokens int
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Prompt and generation tokens/s, and the batched throughput of 1, 2 and 4 concurrent requests",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := g.openSidecar(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer app.CloseEngine(e)
			l, ok := e.(*sidecar.Local)
			if !ok {
				return errors.New("sidecar bench: no model loaded")
			}
			return benchSidecar(cmd.OutOrStdout(), g.json, l, tokens)
		},
	}
	bench.Flags().IntVar(&tokens, "tokens", 256, "tokens generated per request")
	cmd.AddCommand(info, bench)
	return cmd
}

// openSidecar loads the sidecar model named by --sidecar-model, the
// config, or DATA/models, with a progress bar on w. Without one it returns
// the heuristic engine and the reason.
func (g *globals) openSidecar(w io.Writer) (sidecar.Engine, error) {
	path := g.sidecarModel
	if path == "" {
		if cfg, err := userConfig(); err == nil {
			path = cfg.SidecarModel
		}
	}
	file, err := sidecar.Locate(path, g.dataDir)
	if err != nil {
		return sidecar.Heuristic{}, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tel, _ := sidecar.OpenTelemetry(filepath.Join(g.dataDir, "sidecar.jsonl"))
	progress, end := progressBar(w, filepath.Base(file))
	defer end()
	return sidecar.Open(file, g.dataDir, sidecarLoader, progress, tel, log)
}

// progressBar draws a loading bar on w, finished with a newline; end
// finishes the line of a load that stopped short. When w is not a
// terminal, a log or a pipe, it writes one line instead of the redrawn bar.
func progressBar(w io.Writer, name string) (progress sidecar.LoadProgress, end func()) {
	var mu sync.Mutex
	last := -1
	f, ok := w.(*os.File)
	bar := ok && term.IsTerminal(int(f.Fd()))
	end = func() {
		mu.Lock()
		defer mu.Unlock()
		if last >= 0 && last < 100 {
			fmt.Fprintln(w)
			last = 100
		}
	}
	return func(f float32) {
		mu.Lock()
		defer mu.Unlock()
		pct := int(f * 100)
		if pct == last {
			return
		}
		first := last < 0
		last = pct
		if !bar {
			if first {
				fmt.Fprintf(w, "loading %s…", name)
			}
			if pct >= 100 {
				fmt.Fprintln(w, " done")
			}
			return
		}
		n := pct / 5
		fmt.Fprintf(w, "\rloading %s [%s%s] %3d%%", name, strings.Repeat("█", n), strings.Repeat(" ", 20-n), pct)
		if pct >= 100 {
			fmt.Fprintln(w)
		}
	}, end
}

// benchRow is one line of kws sidecar bench.
type benchRow struct {
	Concurrent      int     `json:"concurrent"`
	PromptTokensSec float64 `json:"prompt_tokens_per_s"`
	GenTokensSec    float64 `json:"gen_tokens_per_s"`
	BatchedTokSec   float64 `json:"batched_gen_tokens_per_s"`
	WallMs          float64 `json:"wall_ms"`
}

// benchSidecar runs 1, 2 and 4 concurrent greedy completions of n tokens.
func benchSidecar(out io.Writer, asJSON bool, l *sidecar.Local, n int) error {
	var rows []benchRow
	for _, k := range []int{1, 2, 4} {
		var wg sync.WaitGroup
		res := make([]sidecar.Completion, k)
		errs := make([]error, k)
		start := time.Now()
		for i := range k {
			wg.Add(1)
			go func() {
				defer wg.Done()
				prompt := l.Template().Render([]sidecar.Message{{Role: "user", Content: fmt.Sprintf("Request %d: describe the vault in a few words.", i)}})
				res[i], errs[i] = l.Model().Complete(context.Background(), prompt, sidecar.CompleteOptions{MaxTokens: n})
			}()
		}
		wg.Wait()
		wall := time.Since(start).Seconds()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		row := benchRow{Concurrent: k, WallMs: wall * 1000}
		gen := 0
		for _, c := range res {
			gen += c.CompletionTokens
			if c.PromptSeconds > 0 {
				row.PromptTokensSec += float64(c.PromptTokens) / c.PromptSeconds / float64(k)
			}
			if c.GenSeconds > 0 {
				row.GenTokensSec += float64(c.CompletionTokens) / c.GenSeconds / float64(k)
			}
		}
		row.BatchedTokSec = float64(gen) / wall
		rows = append(rows, row)
	}
	if asJSON {
		return json.NewEncoder(out).Encode(rows)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "concurrent\tprompt tok/s (each)\tgen tok/s (each)\tbatched gen tok/s\twall ms\tvs 1\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.0f\t%.1f\t%.1f\t%.0f\t%.2f×\t\n", r.Concurrent, r.PromptTokensSec, r.GenTokensSec, r.BatchedTokSec, r.WallMs, r.BatchedTokSec/rows[0].BatchedTokSec)
	}
	return tw.Flush()
}

// userConfig is the user's own configuration and environment, without a
// workspace (the sidecar model is a user-only setting).
func userConfig() (config.Config, error) {
	cfg, _, err := config.Load("", getenv)
	return cfg, err
}
