package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// benchServerFlags are the knobs of kws bench server.
type benchServerFlags struct {
	attaches, keys, puts int
	idle                 time.Duration
}

// newBenchServerCmd is kws bench server.
func newBenchServerCmd(g *globals) *cobra.Command {
	f := &benchServerFlags{}
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Time the server in tmux: attach to first frame, keystroke echo vs plain tmux (quiet, and while another pane floods), idle CPU detached, vault put through it",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return benchServer(cmd, g, f) },
	}
	cmd.Flags().IntVar(&f.attaches, "attaches", 9, "attaches timed (the median is reported)")
	cmd.Flags().IntVar(&f.keys, "keys", 30, "keystrokes timed in each terminal (the median is reported)")
	cmd.Flags().IntVar(&f.puts, "puts", 9, "vault puts of 1 MiB timed each way (the median is reported)")
	cmd.Flags().DurationVar(&f.idle, "idle", 10*time.Second, "how long the server sits with no client while its CPU time is read")
	return cmd
}

// attachPoll is how often the attach measures look at the screen: a
// frame comes within a few milliseconds, which benchPoll would round up
// to its 10.
const attachPoll = time.Millisecond

// benchServerResult is what kws bench server measured; --json prints it.
type benchServerResult struct {
	Tmux string `json:"tmux"`
	// Client is the kws program the terminals run: the thin client when
	// it is beside this binary, else this binary.
	Client      string  `json:"client"`
	AttachMs    float64 `json:"attach_ms"`
	AttachMaxMs float64 `json:"attach_max_ms"`
	// AttachFloorMs is the same measure of tmux starting a program that
	// prints that frame at once: what tmux and the polling cost.
	AttachFloorMs    float64 `json:"attach_floor_ms"`
	AttachFloorMaxMs float64 `json:"attach_floor_max_ms"`
	KeyKwsMs         float64 `json:"key_kws_ms"`
	KeyTmuxMs        float64 `json:"key_tmux_ms"`
	// FloodKwsMs and FloodTmuxMs are the same echo while another pane of
	// the window prints as fast as it can.
	FloodKwsMs    float64 `json:"flood_kws_ms"`
	FloodTmuxMs   float64 `json:"flood_tmux_ms"`
	IdleCPUMs     float64 `json:"idle_cpu_ms"`
	IdleCPUPct    float64 `json:"idle_cpu_pct"`
	IdleSeconds   float64 `json:"idle_seconds"`
	PutServerMs   float64 `json:"put_server_ms"`
	PutDirectMs   float64 `json:"put_direct_ms"`
	Attaches      int     `json:"attaches"`
	Keys          int     `json:"keys"`
	Puts          int     `json:"puts"`
	ServerStartMs float64 `json:"server_start_ms"`
}

// benchServer starts a server with one session on a private tmux server,
// detaches, and times what the server adds. Its data dir, config and
// workspace are temporary and it has no model: nothing leaves the machine.
func benchServer(cmd *cobra.Command, g *globals, f *benchServerFlags) error {
	if f.attaches < 1 || f.keys < 1 || f.puts < 1 || f.idle <= 0 {
		return errors.New("bench server: --attaches, --keys, --puts and --idle must be positive")
	}
	env, err := newBenchEnv(func(tmp string) string { return "--data-dir " + shq(filepath.Join(tmp, "data")) + ` "$@"` })
	if err != nil {
		return err
	}
	defer env.close()
	tmp, srv, exe, shell, launch := env.tmp, env.srv, env.exe, env.shell, env.launch
	data := filepath.Join(tmp, "data")
	kws := func(args ...string) *exec.Cmd {
		c := exec.Command(exe, append([]string{"--data-dir", data}, args...)...)
		c.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "KWS_BASE_URL=", "KWS_MODEL=")
		return c
	}
	res := benchServerResult{Tmux: tmuxVersion(), Client: env.client, Attaches: f.attaches, Keys: f.keys, Puts: f.puts, IdleSeconds: f.idle.Seconds()}
	log := cmd.ErrOrStderr()
	firstFrame := func(s string) bool { return strings.Contains(s, "┌ 0 agent-1") && strings.Contains(s, "┌ 3 stats") }

	fmt.Fprintln(log, "kws bench server: starting the server and its session…")
	t0 := time.Now()
	if err := srv.start("first", 160, 48, "exec "+shq(launch)+" --workspace "+shq(tmp)+" --shell "+shq(shell)); err != nil {
		return err
	}
	shown, err := srv.waitFor("first", "the first frame", 30*time.Second, firstFrame)
	if err != nil {
		return err
	}
	res.ServerStartMs = ms(time.Since(t0))
	if err := srv.keys("first", "C-b", "d"); err != nil {
		return err
	}
	if _, err := srv.waitFor("first", "the client to detach", 10*time.Second, func(s string) bool { return !firstFrame(s) }); err != nil {
		return err
	}
	srv.stop("first")
	pid, err := lockedPID(data)
	if err != nil {
		return err
	}

	fmt.Fprintf(log, "kws bench server: idle with no client for %v…\n", f.idle)
	time.Sleep(time.Second)
	cpu0, err := cpuTime(pid)
	if err != nil {
		return err
	}
	time.Sleep(f.idle)
	cpu1, err := cpuTime(pid)
	if err != nil {
		return err
	}
	res.IdleCPUMs = ms(cpu1 - cpu0)
	res.IdleCPUPct = 100 * res.IdleCPUMs / ms(f.idle)

	fmt.Fprintf(log, "kws bench server: %d attaches…\n", f.attaches)
	// The floor of the attach measure is tmux starting a program that
	// prints the session's frame at once, read the same way. The two take
	// turns, so that each sees the machine as the other does: the first of
	// a series, after the idle wait, is the slowest of either.
	frame := filepath.Join(tmp, "frame.txt")
	if err := os.WriteFile(frame, []byte(strings.TrimRight(shown, "\n")), 0o600); err != nil {
		return err
	}
	var attaches, floors []float64
	timed := func(name, command, what string, into *[]float64) error {
		t0 := time.Now()
		if err := srv.start(name, 160, 48, command); err != nil {
			return err
		}
		_, err := srv.waitEvery(name, what, attachPoll, 20*time.Second, firstFrame)
		*into = append(*into, ms(time.Since(t0)))
		srv.stop(name)
		return err
	}
	for i := range f.attaches {
		n := strconv.Itoa(i)
		if err := timed("floor"+n, "cat "+shq(frame)+"; exec sleep 60", "the printed frame", &floors); err != nil {
			return err
		}
		if err := timed("attach"+n, "exec "+shq(launch)+" attach", "the first frame", &attaches); err != nil {
			return err
		}
	}
	res.AttachMs, res.AttachMaxMs = median(attaches), maxOf(attaches)
	res.AttachFloorMs, res.AttachFloorMaxMs = median(floors), maxOf(floors)

	fmt.Fprintf(log, "kws bench server: %d keystrokes in each terminal…\n", f.keys)
	if err := srv.start("keys", 160, 48, "exec "+shq(launch)+" attach"); err != nil {
		return err
	}
	if _, err := srv.waitFor("keys", "the first frame", 20*time.Second, firstFrame); err != nil {
		return err
	}
	if err := srv.keys("keys", "C-b", "q", "1"); err != nil {
		return err
	}
	if err := srv.start("plain", 78, 28, "exec "+shq(shell)); err != nil {
		return err
	}
	for target, rows := range map[string]func(string) []string{
		"keys":  func(s string) []string { return shellRows("kws", s) },
		"plain": func(s string) []string { return shellRows("plain", s) },
	} {
		d, err := keyEcho(srv, target, rows, f.keys)
		if err != nil {
			return err
		}
		if target == "plain" {
			res.KeyTmuxMs = d
		} else {
			res.KeyKwsMs = d
		}
	}

	fmt.Fprintf(log, "kws bench server: %d vault puts of 1 MiB each way…\n", f.puts)
	block := strings.Repeat("0123456789abcdef 1 MiB of build log for the bench of kws vault put\n", (1<<20)/67)
	direct := filepath.Join(tmp, "direct")
	for _, via := range []string{"server", "direct"} {
		var times []float64
		for i := range f.puts {
			c := kws("vault", "put")
			if via == "direct" {
				c.Args[2] = direct
			}
			c.Stdin = strings.NewReader(block + strconv.Itoa(i) + "\n")
			c.Stdout, c.Stderr = io.Discard, log
			t0 := time.Now()
			if err := c.Run(); err != nil {
				return fmt.Errorf("kws vault put (%s): %w", via, err)
			}
			times = append(times, ms(time.Since(t0)))
			// Each put finds the server at rest, as a put from a
			// shell does: the last block's description is done.
			if via == "server" {
				if err := waitDescribed(kws); err != nil {
					return err
				}
			}
		}
		if via == "server" {
			res.PutServerMs = median(times)
		} else {
			res.PutDirectMs = median(times)
		}
	}
	fmt.Fprintf(log, "kws bench server: %d keystrokes in each terminal while another pane floods…\n", f.keys)
	if res.FloodKwsMs, res.FloodTmuxMs, err = floodEcho(srv, f.keys); err != nil {
		return err
	}
	if g.json {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
	}
	return printBenchServer(cmd, res)
}

// waitDescribed waits until no block in the vault is still being
// described in the background.
func waitDescribed(kws func(args ...string) *exec.Cmd) error {
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := kws("vault", "ls", "--json").Output()
		if err != nil {
			return fmt.Errorf("kws vault ls: %w", err)
		}
		if !strings.Contains(string(out), "(being described)") {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the server did not describe the blocks put within a minute")
		}
		time.Sleep(benchPoll)
	}
}

// lockedPID is the pid the server of data wrote into its lock file.
func lockedPID(data string) (int, error) {
	b, err := os.ReadFile(filepath.Join(data, "server.lock"))
	if err != nil {
		return 0, fmt.Errorf("the server's lock: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// keyEcho types n keys into the shell of session target, one at a time,
// and returns the median time from send-keys until the key shows on the
// screen. The screen is read as fast as tmux answers.
func keyEcho(srv *tmuxServer, target string, rows func(string) []string, n int) (float64, error) {
	if _, err := srv.waitFor(target, "the shell prompt", 10*time.Second, func(s string) bool {
		r := rows(s)
		return len(r) > 0 && strings.HasPrefix(lastLine(r), "$")
	}); err != nil {
		return 0, err
	}
	var times []float64
	typed := "$ "
	for i := range n {
		k := string(rune('a' + i%26))
		typed += k
		t0 := time.Now()
		if err := srv.typeText(target, k); err != nil {
			return 0, err
		}
		deadline := t0.Add(5 * time.Second)
		for {
			scr, _, err := srv.screen(target)
			if err != nil {
				return 0, err
			}
			// The line wraps at the pane's width: its rows are read as one.
			if strings.Contains(strings.Join(rows(scr), ""), typed) {
				break
			}
			if time.Now().After(deadline) {
				return 0, fmt.Errorf("%s: the key %q did not show within 5 s; the shell shows:\n%s", target, k, strings.TrimSpace(strings.Join(rows(scr), "\n")))
			}
		}
		times = append(times, ms(time.Since(t0)))
	}
	return median(times), srv.keys(target, "C-u")
}

// floodEcho splits the window of each terminal keyEcho timed, runs yes in
// the new pane and times the echo again in the first one: kws's session
// "keys" (its shell pane focused) and tmux's "plain".
func floodEcho(srv *tmuxServer, n int) (kwsMs, tmuxMs float64, err error) {
	if err := srv.keys("keys", "C-b", "%"); err != nil {
		return 0, 0, err
	}
	if _, err := srv.waitFor("keys", "the new shell pane", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "┌ 2 shell") && strings.HasPrefix(lastLine(frameRowsOf(s, "2 shell")), "$")
	}); err != nil {
		return 0, 0, err
	}
	if err := srv.typeText("keys", "yes kws-flood"); err != nil {
		return 0, 0, err
	}
	if err := srv.keys("keys", "Enter"); err != nil {
		return 0, 0, err
	}
	if _, err := srv.waitFor("keys", "the flood", 10*time.Second, func(s string) bool {
		return strings.Count(strings.Join(frameRowsOf(s, "2 shell"), "\n"), "kws-flood") > 3
	}); err != nil {
		return 0, 0, err
	}
	if err := srv.keys("keys", "C-b", "q", "1"); err != nil {
		return 0, 0, err
	}
	if kwsMs, err = keyEcho(srv, "keys", func(s string) []string { return shellRows("kws", s) }, n); err != nil {
		return 0, 0, err
	}
	if _, err := srv.run("split-window", "-d", "-t", "plain", "exec yes plain-flood"); err != nil {
		return 0, 0, err
	}
	tmuxMs, err = keyEcho(srv, "plain", func(s string) []string { return shellRows("plain", s) }, n)
	return kwsMs, tmuxMs, err
}

// frameRowsOf is the rows of the frame titled title, none when the screen
// has no such frame.
func frameRowsOf(screen, title string) []string {
	rows, _ := frameRows(screen, title)
	return rows
}

// lastLine returns the last non-blank row.
func lastLine(rows []string) string {
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.TrimSpace(rows[i]) != "" {
			return rows[i]
		}
	}
	return ""
}

// maxOf returns the largest of xs.
func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}

// printBenchServer prints the table.
func printBenchServer(cmd *cobra.Command, r benchServerResult) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "kws bench server — %s; the terminals run %s\n\n", r.Tmux, r.Client)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tkws\tbaseline\tkws − baseline")
	fmt.Fprintf(tw, "start the server and a session, to the first frame\t%.0f ms\t\t\n", r.ServerStartMs)
	fmt.Fprintf(tw, "kws attach to a running session, to the first frame (median of %d; max %.0f, tmux %.0f) vs tmux printing that frame, taking turns\t%.0f ms\t%.0f ms\t%+.0f ms\n", r.Attaches, r.AttachMaxMs, r.AttachFloorMaxMs, r.AttachMs, r.AttachFloorMs, r.AttachMs-r.AttachFloorMs)
	fmt.Fprintf(tw, "keystroke to echo in a shell pane vs a plain tmux shell (median of %d)\t%.1f ms\t%.1f ms\t%+.1f ms\n", r.Keys, r.KeyKwsMs, r.KeyTmuxMs, r.KeyKwsMs-r.KeyTmuxMs)
	fmt.Fprintf(tw, "the same while another pane of the window runs yes (÷ quiet: kws %.1f×, tmux %.1f×)\t%.1f ms\t%.1f ms\t%+.1f ms\n", r.FloodKwsMs/r.KeyKwsMs, r.FloodTmuxMs/r.KeyTmuxMs, r.FloodKwsMs, r.FloodTmuxMs, r.FloodKwsMs-r.FloodTmuxMs)
	fmt.Fprintf(tw, "server CPU over %.0f s with no client attached (%% of one core)\t%.2f %% (%.1f ms)\t\t\n", r.IdleSeconds, r.IdleCPUPct, r.IdleCPUMs)
	fmt.Fprintf(tw, "kws vault put of 1 MiB through the server vs opening the vault (median of %d)\t%.0f ms\t%.0f ms\t%+.0f ms\n", r.Puts, r.PutServerMs, r.PutDirectMs, r.PutServerMs-r.PutDirectMs)
	return tw.Flush()
}
