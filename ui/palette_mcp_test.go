package ui

import (
	"testing"

	"github.com/kwsdev/kws/themes"
)

// TestPaletteMcpShowsServerState: the palette command mcp shows the
// MCP servers' state the workstation gives it, one server per line.
func TestPaletteMcpShowsServerState(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Status: func() Status { return Status{} },
		Layout: nil, MCPStatus: func() string { return "ev: connected, 13 tools\nbad: failed: boom" }}, 120, 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	s := d.Script(t)
	s.Press("Ctrl-b", ":")
	s.Type("mcp")
	s.Press("Enter")
	for _, line := range []string{"ev: connected, 13 tools", "bad: failed: boom"} {
		s.WaitFor(line)
	}
}
