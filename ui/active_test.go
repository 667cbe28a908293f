package ui

import (
	"testing"
	"time"

	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// TestActive checks what the session's journal waits on at rest: Active
// has nothing once its signal was taken and no update ran since, and
// signals once after a batch of updates, with Activity counted up.
func TestActive(t *testing.T) {
	ff := &fakeFactory{}
	d, err := NewDriver(Config{Theme: themes.Default(), Panes: ff.registry(), Layout: []pane.Kind{"shell"}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop() })
	select {
	case <-d.App.Active(): // the start's updates
	default:
	}
	before := d.App.Activity()
	select {
	case <-d.App.Active():
		t.Fatal("Active signalled with no update since its last signal")
	default:
	}
	ran := make(chan struct{})
	d.App.Update(func() { close(ran) })
	select {
	case <-d.App.Active():
	case <-time.After(driverTimeout):
		t.Fatal("Active never signalled after an update")
	}
	<-ran
	if d.App.Activity() == before {
		t.Fatal("Activity did not count the batch")
	}
}
