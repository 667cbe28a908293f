package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kwsdev/kws/pty"
)

// benchUIFlags are the knobs of kws bench ui.
type benchUIFlags struct {
	lines, runs, starts int
	idle                time.Duration
	w, h                int
}

func newBenchCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure kws on this machine"}
	f := &benchUIFlags{}
	ui := &cobra.Command{
		Use:   "ui",
		Short: "Time the workstation in tmux: seq output in a shell pane vs plain tmux, start-up, idle CPU",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return benchUI(cmd, g, f) },
	}
	ui.Flags().IntVar(&f.lines, "lines", 200000, "lines of seq output to draw")
	ui.Flags().IntVar(&f.runs, "runs", 3, "seq runs in each terminal (the median is reported)")
	ui.Flags().IntVar(&f.starts, "starts", 5, "start-ups timed (the median is reported)")
	ui.Flags().DurationVar(&f.idle, "idle", 10*time.Second, "how long kws sits idle while its CPU time is read")
	ui.Flags().IntVar(&f.w, "width", 160, "terminal width kws runs in")
	ui.Flags().IntVar(&f.h, "height", 48, "terminal height kws runs in")
	cmd.AddCommand(ui, newBenchServerCmd(g), newBenchMemoryCmd(g))
	return cmd
}

// benchUIResult is what kws bench ui measured; --json prints it.
type benchUIResult struct {
	Tmux        string  `json:"tmux"`
	Term        string  `json:"terminal"`
	Pane        string  `json:"shell_pane"`
	Lines       int     `json:"lines"`
	KwsWallMs   float64 `json:"kws_wall_ms"`
	TmuxWallMs  float64 `json:"tmux_wall_ms"`
	KwsShellMs  float64 `json:"kws_in_shell_ms"`
	TmuxShellMs float64 `json:"tmux_in_shell_ms"`
	// KwsVT… are the same with x/vt as the shell pane's emulator.
	KwsVTWallMs  float64 `json:"kws_xvt_wall_ms"`
	KwsVTShellMs float64 `json:"kws_xvt_in_shell_ms"`
	StartMs      float64 `json:"startup_ms"`
	StartMinMs   float64 `json:"startup_min_ms"`
	StartMaxMs   float64 `json:"startup_max_ms"`
	IdleCPUPct   float64 `json:"idle_cpu_pct"`
	IdleCPUMs    float64 `json:"idle_cpu_ms"`
	IdleSeconds  float64 `json:"idle_seconds"`
	Runs         int     `json:"runs"`
	Starts       int     `json:"starts"`
	CPUs         int     `json:"cpus"`
}

// benchDone is the line the timed command prints last: its own measure of
// how long seq took, from inside the shell.
var benchDone = regexp.MustCompile(`done (\d+)ms`)

// benchUI runs kws (this binary) and a plain shell on a private tmux
// server and prints the table. Each kws gets its own empty data dir and
// config, and no model: the agent pane stays offline, nothing leaves the
// machine.
func benchUI(cmd *cobra.Command, g *globals, f *benchUIFlags) error {
	if f.lines < 1 || f.runs < 1 || f.starts < 1 || f.idle <= 0 || f.w < 40 || f.h < 12 {
		return errors.New("bench ui: --lines, --runs, --starts and --idle must be positive, the terminal at least 40×12")
	}
	env, err := newBenchEnv(func(tmp string) string {
		return `--data-dir "$1" --emulator "$2" --workspace ` + shq(tmp) + " --shell " + shq(filepath.Join(tmp, "shell.sh"))
	})
	if err != nil {
		return err
	}
	defer env.close()
	tmp, srv, shell, launch := env.tmp, env.srv, env.shell, env.launch
	res := benchUIResult{Tmux: tmuxVersion(), Term: fmt.Sprintf("%d×%d", f.w, f.h), Lines: f.lines,
		Runs: f.runs, Starts: f.starts, CPUs: runtime.NumCPU(), IdleSeconds: f.idle.Seconds()}
	log := cmd.ErrOrStderr()
	// startKws opens session name running kws with the emulator emu and
	// returns the time until its first frame is on the screen.
	startKws := func(name, emu string) (time.Duration, error) {
		t0 := time.Now()
		if err := srv.start(name, f.w, f.h, "exec "+shq(launch)+" "+shq(filepath.Join(tmp, name))+" "+shq(emu)); err != nil {
			return 0, err
		}
		_, err := srv.waitFor(name, "the first frame", 20*time.Second, func(s string) bool { return strings.Contains(s, "┌ 0 agent-1") })
		return time.Since(t0), err
	}

	fmt.Fprintf(log, "kws bench ui: %d start-ups…\n", f.starts)
	var starts []float64
	for i := range f.starts {
		name := "start" + strconv.Itoa(i)
		d, err := startKws(name, pty.EmulatorFast)
		srv.stop(name)
		if err != nil {
			return err
		}
		starts = append(starts, ms(d))
	}
	res.StartMs, res.StartMinMs, res.StartMaxMs = median(starts), slices.Min(starts), slices.Max(starts)

	fmt.Fprintf(log, "kws bench ui: idle for %v…\n", f.idle)
	if _, err := startKws("kws", pty.EmulatorFast); err != nil {
		return err
	}
	if res.IdleCPUMs, err = idleCPU(srv, "kws", filepath.Join(tmp, "kws"), f.idle); err != nil {
		return err
	}
	res.IdleCPUPct = 100 * res.IdleCPUMs / ms(f.idle)

	// The same workstation with x/vt as its emulator, for comparison.
	if _, err := startKws("kwsvt", pty.EmulatorVT); err != nil {
		return err
	}
	// The plain tmux pane gets exactly the size of kws's shell pane.
	var scr string
	for _, name := range []string{"kws", "kwsvt"} {
		if err := srv.keys(name, "C-b", "q", "1"); err != nil {
			return err
		}
		if scr, err = srv.waitFor(name, "the shell prompt", 10*time.Second, func(s string) bool {
			return slices.Contains(shellRows(name, s), "$")
		}); err != nil {
			return err
		}
	}
	rows, _ := frameRows(scr, "1 shell")
	pw, ph := len([]rune(rows[0])), len(rows)
	res.Pane = fmt.Sprintf("%d×%d", pw, ph)
	if err := srv.start("plain", pw, ph, "exec "+shq(shell)); err != nil {
		return err
	}
	wall, inShell := map[string][]float64{}, map[string][]float64{}
	for i := range f.runs {
		fmt.Fprintf(log, "kws bench ui: seq 1 %d, run %d of %d…\n", f.lines, i+1, f.runs)
		for _, target := range []string{"kws", "kwsvt", "plain"} {
			w, in, err := seqRun(srv, target, f.lines)
			if err != nil {
				return err
			}
			wall[target], inShell[target] = append(wall[target], ms(w)), append(inShell[target], in)
		}
	}
	res.KwsWallMs, res.KwsShellMs = median(wall["kws"]), median(inShell["kws"])
	res.KwsVTWallMs, res.KwsVTShellMs = median(wall["kwsvt"]), median(inShell["kwsvt"])
	res.TmuxWallMs, res.TmuxShellMs = median(wall["plain"]), median(inShell["plain"])
	if g.json {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
	}
	return printBenchUI(cmd, res)
}

// idleCPU lets kws in session name settle for a second, then returns the
// CPU time in ms that its client and the server of data use over the
// next d.
func idleCPU(srv *tmuxServer, name, data string, d time.Duration) (float64, error) {
	client, err := srv.panePID(name)
	if err != nil {
		return 0, err
	}
	server, err := lockedPID(data)
	if err != nil {
		return 0, err
	}
	time.Sleep(time.Second)
	var total time.Duration
	for i, pid := range []int{client, server, client, server} {
		t, err := cpuTime(pid)
		if err != nil {
			return 0, err
		}
		if i < 2 {
			total -= t
		} else {
			total += t
		}
		if i == 1 {
			time.Sleep(d)
		}
	}
	return ms(total), nil
}

// seqRun clears the shell in session target, types the timed seq command
// and returns the time from Enter until "done" shows on the screen, and
// the shell's own measure of seq in ms.
func seqRun(srv *tmuxServer, target string, lines int) (time.Duration, float64, error) {
	if err := srv.typeText(target, "clear"); err != nil {
		return 0, 0, err
	}
	if err := srv.keys(target, "Enter"); err != nil {
		return 0, 0, err
	}
	line := fmt.Sprintf("s=$(date +%%s%%N); seq 1 %d; e=$(date +%%s%%N); echo done $(( (e-s)/1000000 ))ms", lines)
	if _, err := srv.waitFor(target, "a clear screen", 10*time.Second, func(s string) bool {
		rows := shellRows(target, s)
		return len(rows) > 1 && rows[0] == "$" && !benchDone.MatchString(s)
	}); err != nil {
		return 0, 0, err
	}
	if err := srv.typeText(target, line); err != nil {
		return 0, 0, err
	}
	if _, err := srv.waitFor(target, "the typed command", 10*time.Second, func(s string) bool { return strings.Contains(s, "echo done") }); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if err := srv.keys(target, "Enter"); err != nil {
		return 0, 0, err
	}
	scr, err := srv.waitFor(target, "done", 2*time.Minute, benchDone.MatchString)
	wall := time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	inShell, _ := strconv.ParseFloat(benchDone.FindStringSubmatch(scr)[1], 64)
	return wall, inShell, nil
}

// printBenchUI prints the table.
func printBenchUI(cmd *cobra.Command, r benchUIResult) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "kws bench ui — %s, terminal %s, shell pane %s, %d CPUs\n\n", r.Tmux, r.Term, r.Pane, r.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tkws\tplain tmux\tkws ÷ tmux\tkws with x/vt\tx/vt ÷ tmux")
	fmt.Fprintf(tw, "seq 1 %d: Enter to \"done\" on screen (median of %d)\t%.0f ms\t%.0f ms\t%.2f×\t%.0f ms\t%.1f×\n",
		r.Lines, r.Runs, r.KwsWallMs, r.TmuxWallMs, r.KwsWallMs/r.TmuxWallMs, r.KwsVTWallMs, r.KwsVTWallMs/r.TmuxWallMs)
	fmt.Fprintf(tw, "seq 1 %d: as timed inside the shell\t%.0f ms\t%.0f ms\t%.2f×\t%.0f ms\t%.1f×\n",
		r.Lines, r.KwsShellMs, r.TmuxShellMs, r.KwsShellMs/max(r.TmuxShellMs, 1), r.KwsVTShellMs, r.KwsVTShellMs/max(r.TmuxShellMs, 1))
	fmt.Fprintf(tw, "start-up to first frame (median of %d; min %.0f, max %.0f)\t%.0f ms\t\t\t\t\n",
		r.Starts, r.StartMinMs, r.StartMaxMs, r.StartMs)
	fmt.Fprintf(tw, "idle CPU of client and server over %.0f s: %.1f ms of CPU (%% of one core)\t%.2f %%\t\t\t\t\n", r.IdleSeconds, r.IdleCPUMs, r.IdleCPUPct)
	return tw.Flush()
}

// shellRows returns the shell's rows on a screen, right-trimmed: the whole
// screen of the plain tmux session, the shell pane of kws.
func shellRows(target, screen string) []string {
	rows := strings.Split(screen, "\n")
	if strings.HasPrefix(target, "kws") {
		rows, _ = frameRows(screen, "1 shell")
	}
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	return rows
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median returns the middle of xs (the mean of the two middles when even).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
