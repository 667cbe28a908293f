package e2e

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider/providertest"
)

// frame is one pane's frame as the screen shows it: its title and width.
type frame struct {
	title string
	w     int
}

// frames returns every pane frame whose top border is on the screen.
func frames(screen string) []frame {
	var out []frame
	for _, row := range strings.Split(screen, "\n") {
		r := []rune(row)
		for x := 0; x < len(r); x++ {
			if r[x] != '┌' {
				continue
			}
			end := x + 1
			for end < len(r) && r[end] != '┐' {
				end++
			}
			if end == len(r) {
				break
			}
			title := strings.Trim(string(r[x+1:end]), " ─")
			out = append(out, frame{title: title, w: end - x + 1})
			x = end
		}
	}
	return out
}

// TestSpawnTilesAt80x24 runs kws in an 80×24 terminal and spawns three
// agents from the palette: the seven panes tile (a grid of three columns),
// none is left a sliver such as "5 agen…" 8 columns wide.
func TestSpawnTilesAt80x24(t *testing.T) {
	srv := providertest.New(t)
	s := newSetup(t, srv.URL())
	script, status := s.script("--workspace", s.dirs["ws"], "--shell", s.shellScript())
	tm := startTerm(t, s.root, s.tmuxConf(), script)
	tm.must("resize-window", "-t", "kws", "-x", "80", "-y", "24")
	tm.waitFor("the first frame at 80 columns", func(sc string) bool {
		fs := frames(sc)
		return len(fs) == 4 && fs[0].w+fs[1].w == 80 && strings.HasPrefix(fs[3].title, "3 stats")
	})
	launcher, _ := tm.paneState()
	pid := childPID(t, launcher)
	tm.keys("C-b", ":")
	tm.typeText("spawn 3")
	tm.keys("Enter")
	sc := tm.waitFor("seven panes", func(sc string) bool {
		return len(frames(sc)) == 7 && strings.Contains(sc, "┌ 6 agent-4")
	})
	for _, f := range frames(sc) {
		if f.w < 80/3-1 {
			t.Errorf("pane %q is %d columns wide: not tiled\n%s", f.title, f.w, sc)
		}
	}
	// C-b Space goes on to the next preset after tiled: even-horizontal,
	// every pane side by side across the 80 columns.
	tm.keys("C-b", "Space")
	tm.waitFor("the panes side by side", func(sc string) bool {
		fs := frames(sc)
		total := 0
		for _, f := range fs {
			total += f.w
		}
		return len(fs) == 7 && total == 80 && strings.Count(strings.Split(sc, "\n")[0], "┌") == 7
	})
	// Ending the session stops the server before the test's files go.
	tm.keys("C-b", "Q")
	tm.waitFor("the quit dialog", func(sc string) bool { return strings.Contains(sc, "End session") })
	tm.keys("Tab", "Enter")
	if code, sc := tm.waitExit(pid, status); code != "0" {
		t.Fatalf("kws exited with status %s; screen:\n%s", code, sc)
	}
}
