package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/internal/datadir"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/memory/recallset"
	"github.com/kwsdev/kws/server/wire"
)

// benchMemoryFlags are the knobs of kws bench memory.
type benchMemoryFlags struct {
	memories, searches, direct int
}

// newBenchMemoryCmd is kws bench memory.
func newBenchMemoryCmd(g *globals) *cobra.Command {
	f := &benchMemoryFlags{}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Time kws memory search as a command: the thin client and the whole kws through a running server, and without one",
		Long: `Fill a temporary data dir with --memories memories (the turns of generated
conversations, as kws memory eval makes them), start a kws server on it, and
time kws memory search -k 10 as a new process each time, with the questions of
those conversations: through the server from bin/kws (the thin client beside
this kws-core, when there is one) and from kws-core itself, then, with the
server stopped, from kws-core opening the store on its own. Prints the median
and 90th percentile of each, in milliseconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return benchMemory(cmd, g, f) },
	}
	cmd.Flags().IntVar(&f.memories, "memories", 10000, "memories in the store")
	cmd.Flags().IntVar(&f.searches, "searches", 41, "searches timed through the server, from each program")
	cmd.Flags().IntVar(&f.direct, "direct", 11, "searches timed without a server")
	return cmd
}

// benchMemoryRow is one way of running kws memory search and its times.
type benchMemoryRow struct {
	Program  string  `json:"program"`
	Server   bool    `json:"server"`
	Searches int     `json:"searches"`
	P50Ms    float64 `json:"p50_ms"`
	P90Ms    float64 `json:"p90_ms"`
}

// benchMemoryResult is what kws bench memory measured; --json prints it.
type benchMemoryResult struct {
	Memories int              `json:"memories"`
	FillS    float64          `json:"fill_s"`
	Rows     []benchMemoryRow `json:"rows"`
}

func benchMemory(cmd *cobra.Command, g *globals, f *benchMemoryFlags) error {
	if f.memories < 1 || f.searches < 1 || f.direct < 0 {
		return errors.New("--memories and --searches must be 1 or more, --direct 0 or more")
	}
	core, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kws-bench-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "data")
	res := benchMemoryResult{Memories: f.memories}
	start := time.Now()
	questions, err := fillBenchMemory(cmd.Context(), data, f.memories)
	if err != nil {
		return err
	}
	res.FillS = time.Since(start).Seconds()
	// The children see this data dir's server only: not one a
	// KWS_SOCKET of the calling shell pane names.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, wire.SocketEnv+"=") || strings.HasPrefix(kv, datadir.Env+"=")
	})
	search := func(program string, n int) (benchMemoryRow, error) {
		var times []float64
		for i := range n {
			c := exec.Command(program, "--data-dir", data, "memory", "search", "-k", "10", questions[i%len(questions)])
			c.Env = env
			t := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				return benchMemoryRow{}, fmt.Errorf("%s memory search: %w: %s", program, err, out)
			}
			times = append(times, ms(time.Since(t)))
		}
		slices.Sort(times)
		return benchMemoryRow{Program: filepath.Base(program), Searches: n, P50Ms: median(times), P90Ms: times[len(times)*9/10]}, nil
	}
	stop, err := startBenchServer(core, data, env)
	if err != nil {
		return err
	}
	programs := []string{core}
	if thin := filepath.Join(filepath.Dir(core), "kws"); thin != core {
		if _, err := os.Stat(thin); err == nil {
			programs = append([]string{thin}, programs...)
		}
	}
	for _, p := range programs {
		row, err := search(p, f.searches)
		if err != nil {
			stop()
			return err
		}
		row.Server = true
		res.Rows = append(res.Rows, row)
	}
	if err := stop(); err != nil {
		return err
	}
	if f.direct > 0 {
		row, err := search(core, f.direct)
		if err != nil {
			return err
		}
		res.Rows = append(res.Rows, row)
	}
	out := cmd.OutOrStdout()
	if g.json {
		return json.NewEncoder(out).Encode(res)
	}
	fmt.Fprintf(out, "%d memories (filled in %.1f s); kws memory search -k 10, one process per search:\n", res.Memories, res.FillS)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROGRAM\tSERVER\tSEARCHES\tP50 MS\tP90 MS")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t%v\t%d\t%.1f\t%.1f\n", r.Program, r.Server, r.Searches, r.P50Ms, r.P90Ms)
	}
	return tw.Flush()
}

// fillBenchMemory stores n memories in data's memory store: the turns of
// generated conversations, as "SPEAKER: TEXT". It returns their questions.
func fillBenchMemory(ctx context.Context, data string, n int) ([]string, error) {
	cfg, err := userConfig()
	if err != nil {
		return nil, err
	}
	s, err := app.OpenMemory(data, cfg, nil, embedLoader)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	set := recallset.Generate(recallset.Tune, recallset.Options{Conversations: (n + 599) / 600})
	var questions []string
	added := 0
	for _, c := range set.Conversations {
		for _, q := range c.Questions {
			questions = append(questions, q.Text)
		}
		for _, t := range c.Turns {
			if added == n {
				return questions, nil
			}
			if _, err := s.Add(ctx, memory.Memory{Text: t.Line(), Scope: memory.GlobalScope}); err != nil {
				return nil, err
			}
			added++
		}
	}
	return questions, nil
}

// startBenchServer starts a kws server for data and waits until it
// answers; stop ends it and waits for it to exit.
func startBenchServer(core, data string, env []string) (stop func() error, err error) {
	sock, err := wire.SocketPath(data)
	if err != nil {
		return nil, err
	}
	srv := exec.Command(core, "--data-dir", data, "server")
	srv.Env = env
	srv.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	stop = func() error {
		kill := exec.Command(core, "--data-dir", data, "kill-server")
		kill.Env = env
		if out, err := kill.CombinedOutput(); err != nil {
			_ = srv.Process.Kill()
			<-exited
			return fmt.Errorf("kill-server: %w: %s", err, out)
		}
		<-exited
		return nil
	}
	deadline := time.Now().Add(time.Minute)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		c, err := wire.Dial(sock)
		if err == nil {
			c.Close()
			return stop, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("the server exited: %v", err)
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			_ = srv.Process.Kill()
			<-exited
			return nil, fmt.Errorf("the server did not answer on %s within a minute", sock)
		}
	}
}
