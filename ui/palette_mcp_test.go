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
	if err := d.Press("Ctrl-b", ":"); err != nil {
		t.Fatal(err)
	}
	if err := d.Type("mcp"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Enter"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"ev: connected, 13 tools", "bad: failed: boom"} {
		if err := d.WaitFor(line); err != nil {
			t.Fatal(err)
		}
	}
}
