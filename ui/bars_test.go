package ui

import (
	"fmt"
	"strings"
	"testing"
)

// TestStatusWordsAreNeverClipped crowds the status bar with a notice, a
// warning and several agents: each state shows whole, in a short form, or
// not at all, never cut to "offlin".
func TestStatusWordsAreNeverClipped(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, ff := newTestDriver(t, size[0], size[1], "agent", "agent")
			s := d.Script(t)
			ff.setAgents(AgentStatus{Name: "agent-1", State: "offline"}, AgentStatus{Name: "agent-2", State: "offline"},
				AgentStatus{Name: "agent-3", State: "thinking", Busy: true}, AgentStatus{Name: "agent-4", State: "offline"})
			d.App.Notify("loading the sidecar model qwen2.5-0.5b-instruct-q4_k_m.gguf: 40%")
			s.WaitFor("loading the sidecar")
			lines := strings.Split(strings.TrimSuffix(d.Text(), "\n"), "\n")
			bar := lines[len(lines)-1]
			for _, word := range strings.Fields(bar) {
				if strings.HasPrefix("offline", word) && word != "offline" || strings.HasPrefix("thinking", word) && word != "thinking" {
					t.Errorf("a state is clipped to %q:\n%s", word, bar)
				}
			}
			golden(t, fmt.Sprintf("status_crowded_%dx%d", size[0], size[1]), bar+"\n")
		})
	}
}

func TestFrameTitlesLoseWholeWords(t *testing.T) {
	d, ff := newTestDriver(t, 40, 10, "agent", "agent")
	s := d.Script(t)
	s.Do(func() { ff.made[1].name = "agent-2 · offline" })
	s.Sync()
	if text := d.Text(); !strings.Contains(text, "┌ 1 agent-2… ─") {
		t.Fatalf("the narrow frame's title is not cut at a word:\n%s", text)
	}
}

func TestStatusBarCountsMemoryCandidates(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		d, ff := newTestDriver(t, size[0], size[1], "agent")
		s := d.Script(t)
		ff.setAgents(AgentStatus{Name: "agent-1", State: "idle"})
		if strings.Contains(d.Text(), "mem:") {
			t.Fatalf("no candidates, yet the bar counts them:\n%s", d.Text())
		}
		ff.mu.Lock()
		ff.memPending = 3
		ff.mu.Unlock()
		s.WaitFor("mem: 3 pending (C-b m)")
		// Crowded by a notice, the count stays, shorter.
		d.App.Notify("loading the sidecar model qwen2.5-0.5b-instruct-q4_k_m.gguf: 40%")
		s.WaitFor("loading")
		if !strings.Contains(d.Text(), " mem: 3 ") {
			t.Fatalf("the count is crowded out:\n%s", d.Text())
		}
	}
}

// TestStatusBarShowsFailedMcpServers: while a configured MCP server is
// failed, the bar says so for good, shorter when a notice crowds it, and
// not once none is.
func TestStatusBarShowsFailedMcpServers(t *testing.T) {
	for _, size := range [][2]int{{50, 16}, {160, 48}} {
		d, ff := newTestDriver(t, size[0], size[1], "agent")
		s := d.Script(t)
		ff.setAgents(AgentStatus{Name: "agent-1", State: "idle"})
		if strings.Contains(d.Text(), "mcp") {
			t.Fatalf("no failed server, yet the bar shows one:\n%s", d.Text())
		}
		ff.mu.Lock()
		ff.mcpFailed, ff.mcpServers = 1, 4
		ff.mu.Unlock()
		s.WaitFor("mcp: 1/4 failed (C-b :mcp)")
		d.App.Notify("loading the sidecar model qwen2.5-0.5b-instruct-q4_k_m.gguf: 40%")
		s.WaitFor("loading")
		if !strings.Contains(d.Text(), " mcp! ") && !strings.Contains(d.Text(), " mcp: 1/4 failed ") {
			t.Fatalf("the failed server is crowded out:\n%s", d.Text())
		}
		ff.mu.Lock()
		ff.mcpFailed = 0
		ff.mu.Unlock()
		d.App.Notify("all MCP servers connected")
		s.WaitFor("all MCP servers connected")
		if strings.Contains(d.Text(), "mcp!") || strings.Contains(d.Text(), "failed (C-b :mcp)") {
			t.Fatalf("no failed server, yet the bar still shows one:\n%s", d.Text())
		}
	}
}

// TestStatusBarShowsReembedding shows the memory's re-embedding in the
// status bar, running and then failed, whole on a wide bar and in its
// short form when a notice crowds a narrow one.
func TestStatusBarShowsReembedding(t *testing.T) {
	for _, size := range [][2]int{{50, 16}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			d, ff := newTestDriver(t, size[0], size[1], "agent")
			s := d.Script(t)
			ff.setAgents(AgentStatus{Name: "agent-1", State: "idle"})
			for _, tc := range []struct {
				name        string
				re          Reembed
				long, short string
			}{
				{"running", Reembed{Done: 120, Total: 600, Running: true}, " mem: re-embedding 120/600 ", " mem: 120/600 "},
				{"failed", Reembed{Done: 120, Total: 600, Failed: true}, " mem: re-embed failed (C-b m) ", " mem: failed "},
			} {
				d.App.Notify("")
				ff.mu.Lock()
				ff.reembed = tc.re
				ff.mu.Unlock()
				s.WaitFor(tc.long)
				d.App.Notify("loading the sidecar model qwen2.5-0.5b-instruct-q4_k_m.gguf: 40%")
				s.WaitFor("loading")
				lines := strings.Split(strings.TrimSuffix(d.Text(), "\n"), "\n")
				bar := lines[len(lines)-1]
				if !strings.Contains(bar, tc.long) && !strings.Contains(bar, tc.short) {
					t.Fatalf("%s: the re-embedding is crowded out:\n%s", tc.name, bar)
				}
				golden(t, fmt.Sprintf("status_reembed_%s_%dx%d", tc.name, size[0], size[1]), bar+"\n")
			}
		})
	}
}

// TestNoticeGoesWithTheNextKey: a status-bar notice is dismissed by the
// next key, as tmux's message is, while the key that brings one shows it.
func TestNoticeGoesWithTheNextKey(t *testing.T) {
	d, _ := newTestDriver(t, 120, 30, "agent")
	s := d.Script(t)
	d.App.Notify("kept ctx:0123abcd")
	s.WaitFor("kept ctx:0123abcd")
	s.Press("Ctrl-b", "g").WaitFor("no command on C-b g")
	if strings.Contains(d.Text(), "kept ctx:") {
		t.Fatalf("the first notice outlived the next key:\n%s", d.Text())
	}
	s.Type("x")
	if strings.Contains(d.Text(), "no command on") {
		t.Fatalf("the notice outlived a key typed in the pane:\n%s", d.Text())
	}
}
