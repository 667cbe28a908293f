package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/diet/replay"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/termsafe"
	"github.com/kwsdev/kws/vault"
)

func newDietCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "diet", Short: "Context diet tools"}
	cmd.AddCommand(newReplayCmd(g))
	return cmd
}

type replayFlags struct {
	mode       string
	trigger    int
	recent     int
	minBlock   int
	emitPrompt string
	concat     string
	discount   float64
	swarm      bool
	noSpans    bool
	noFold     bool
	pageFaults bool
}

func newReplayCmd(g *globals) *cobra.Command {
	f := &replayFlags{}
	cmd := &cobra.Command{
		Use:   "replay [flags] FILE...",
		Short: "Replay SWE-agent .traj or OpenAI chat JSON/JSONL files through the diet and report savings",
		Long: `Replay recorded conversations through the context diet. A model call happens
before each assistant message (its prompt is every earlier message, dieted) and
once after the last message (the final prompt). Blocks stay in the vault.
The cost columns weigh each call's prompt as providers bill it: uncached
tokens in full, the prefix shared with the previous call's prompt at
--cache-discount; naive resend is append-only, so it always reuses the whole
previous prompt. peak_over_bound is the most any call's prompt went over the
trigger plus its recent window (the tokens of the newest --recent messages at
that call), calls_over_bound how many calls did; 0 means the bound held.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", diet.DefaultMode, "preset: "+strings.Join(diet.Modes, ", "))
	fl.IntVar(&f.trigger, "trigger-tokens", 0, "prompt tokens above which the diet starts (0: the mode's)")
	fl.IntVar(&f.recent, "recent", -1, "newest messages always sent exact (-1: the mode's)")
	fl.IntVar(&f.minBlock, "min-block-chars", 0, "smallest block moved to the vault (0: the mode's)")
	fl.StringVar(&f.emitPrompt, "emit-prompt", "", "write each file's final prompt to DIR/<base>.prompt.json")
	fl.StringVar(&f.concat, "concat", "", "replay all FILEs as one long session with this name")
	fl.BoolVar(&f.swarm, "swarm", false, "replay each FILE as a multi-agent session: planner, coder and reviewer, each with its own system prompt, handing the same task text on")
	fl.Float64Var(&f.discount, "cache-discount", replay.DefaultCacheDiscount, "price of a cached prompt token relative to an uncached one, for the cost columns")
	fl.BoolVar(&f.noSpans, "no-spans", false, "send repeated spans exact instead of as <il:seg/> refs")
	fl.BoolVar(&f.noFold, "no-fold", false, "never fold old refs and small messages into runs")
	fl.BoolVar(&f.pageFaults, "page-faults", false, "after each replay, page in the evidence of its questions as a model would and report the faults each took")
	return cmd
}

func (f *replayFlags) params() (diet.Params, error) {
	p, err := diet.Preset(f.mode)
	if err != nil {
		return p, err
	}
	if f.trigger > 0 {
		p.TriggerTokens = f.trigger
	}
	if f.recent >= 0 {
		p.Recent = f.recent
	}
	if f.minBlock > 0 {
		p.MinBlockChars = f.minBlock
	}
	if f.discount < 0 || f.discount > 1 {
		return p, fmt.Errorf("--cache-discount must be within 0..1, got %g", f.discount)
	}
	if f.noSpans {
		p.Spans = false
	}
	if f.noFold {
		p.Fold = false
	}
	return p, p.Validate()
}

func runReplay(cmd *cobra.Command, g *globals, f *replayFlags, files []string) error {
	p, err := f.params()
	if err != nil {
		return err
	}
	convs := make([]replay.Conversation, 0, len(files))
	for _, file := range files {
		c, err := replay.Load(file)
		if err != nil {
			return err
		}
		if f.swarm {
			c = replay.Swarm(c)
		}
		convs = append(convs, c)
	}
	if f.concat != "" {
		convs = []replay.Conversation{replay.Concat(f.concat, convs)}
	}
	v, release, err := g.openVault()
	if err != nil {
		return err
	}
	defer release()
	counter := tokens.Default()
	if f.pageFaults {
		return runPageFaults(cmd, g, convs, p, v, counter)
	}
	var rows []replay.Row
	for _, c := range convs {
		o, err := replay.Run(c, p, v, counter, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		o.Price(f.discount)
		if err := v.AppendStats(o.Events...); err != nil {
			return err
		}
		if f.emitPrompt != "" {
			if err := emitPrompt(f.emitPrompt, c.Name, o.Final); err != nil {
				return err
			}
		}
		rows = append(rows, o.Row)
		if g.json {
			if err := json.NewEncoder(cmd.OutOrStdout()).Encode(o.Row); err != nil {
				return err
			}
		}
	}
	if !g.json {
		printRows(cmd.OutOrStdout(), rows)
	}
	return nil
}

// runPageFaults replays each conversation and pages in the evidence of
// its questions, printing what replay.PageFaults measured.
func runPageFaults(cmd *cobra.Command, g *globals, convs []replay.Conversation, p diet.Params, v *vault.Vault, counter *tokens.Counter) error {
	out := cmd.OutOrStdout()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	if !g.json {
		fmt.Fprintln(tw, "file\tquestions\tin_prompt\t1_fault\t2_faults\t3+_faults\tunreachable\twithin_one_pct\tfaults_per_question\tpaged_kib\tpointer_answers\t")
	}
	pointers := 0
	for _, c := range convs {
		r, err := replay.PageFaults(c, p, v, counter)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		pointers += r.Pointers
		if g.json {
			if err := json.NewEncoder(out).Encode(r); err != nil {
				return err
			}
			continue
		}
		more := r.Questions - r.Faults[0] - r.Faults[1] - r.Faults[2] - r.Unreachable
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.2f\t%d\t%d\t\n", termsafe.OneLine(c.Name), r.Questions, r.Faults[0], r.Faults[1], r.Faults[2], more,
			r.Unreachable, r.WithinOne(), r.FaultsPerQuestion(), r.PagedBytes>>10, r.Pointers)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if pointers > 0 {
		return fmt.Errorf("%d page-fault answers did not reach the prompt exact", pointers)
	}
	return nil
}

// emitPrompt writes the final prompt as a JSON array of {role, content}.
func emitPrompt(dir, name string, msgs []diet.Message) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The messages sent, each with its index in the conversation: the
	// elided ones are not sent, their run's ref stands for them.
	type pm struct {
		Index   int    `json:"i"`
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	out := make([]pm, 0, len(msgs))
	for i, m := range msgs {
		if !m.Elided {
			out = append(out, pm{i, m.Role, m.Content})
		}
	}
	data, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	return os.WriteFile(filepath.Join(dir, base+".prompt.json"), append(data, '\n'), 0o644)
}

func printRows(w io.Writer, rows []replay.Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tmessages\tcalls\tnaive_tokens_total\tsent_tokens_total\treduction_pct_total\tfinal_naive_tokens\tfinal_sent_tokens\tfinal_reduction_pct\tnaive_chars_total\tsent_chars_total\trefs\tseen_refs\tcached_prefix_pct\tnaive_cost\tcost\tcost_pct_of_naive\tpeak_tokens\tpeak_over_bound\tcalls_over_bound\tepochs\tdiet_ms_p50\tdiet_ms_max\t")
	var sum replay.Row
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t\n",
			r.File, r.Messages, r.Calls, r.NaiveTokensTotal, r.SentTokensTotal, r.ReductionPctTotal,
			r.FinalNaiveTokens, r.FinalSentTokens, r.FinalReductionPct, r.NaiveCharsTotal, r.SentCharsTotal,
			r.Refs, r.SeenRefs, r.CachedPrefixPct, r.NaiveCostTokens, r.CostTokens, r.CostPct,
			r.PeakTokens, r.PeakOverBound, r.CallsOverBound, r.Epochs, r.DietMsP50, r.DietMsMax)
		sum.Messages += r.Messages
		sum.Calls += r.Calls
		sum.NaiveTokensTotal += r.NaiveTokensTotal
		sum.SentTokensTotal += r.SentTokensTotal
		sum.FinalNaiveTokens += r.FinalNaiveTokens
		sum.FinalSentTokens += r.FinalSentTokens
		sum.NaiveCharsTotal += r.NaiveCharsTotal
		sum.SentCharsTotal += r.SentCharsTotal
		sum.Refs += r.Refs
		sum.SeenRefs += r.SeenRefs
		sum.NaiveCostTokens += r.NaiveCostTokens
		sum.CostTokens += r.CostTokens
		sum.PeakTokens = max(sum.PeakTokens, r.PeakTokens)
		sum.PeakOverBound = max(sum.PeakOverBound, r.PeakOverBound)
		sum.CallsOverBound += r.CallsOverBound
		sum.Epochs += r.Epochs
	}
	if len(rows) > 1 {
		red := func(a, b int) float64 { return 100 * float64(a-b) / float64(max(a, 1)) }
		fmt.Fprintf(tw, "TOTAL\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t\t\t\n",
			sum.Messages, sum.Calls, sum.NaiveTokensTotal, sum.SentTokensTotal,
			red(sum.NaiveTokensTotal, sum.SentTokensTotal), sum.FinalNaiveTokens, sum.FinalSentTokens,
			red(sum.FinalNaiveTokens, sum.FinalSentTokens), sum.NaiveCharsTotal, sum.SentCharsTotal, sum.Refs, sum.SeenRefs,
			sum.NaiveCostTokens, sum.CostTokens, 100-red(sum.NaiveCostTokens, sum.CostTokens), sum.PeakTokens, sum.PeakOverBound, sum.CallsOverBound, sum.Epochs)
	}
	tw.Flush()
}
