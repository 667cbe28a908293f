package vault

import (
	"slices"
	"testing"
)

func TestPutRecordsEveryStoringWorkspace(t *testing.T) {
	v := MustOpen(t)
	data := []byte("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
	steps := []struct {
		workspaces []string
		want       []string
	}{
		{[]string{"/home/u/app"}, []string{"/home/u/app"}},
		{[]string{"/home/u/app"}, []string{"/home/u/app"}},
		{nil, []string{"/home/u/app"}},
		{[]string{"/home/u/other"}, []string{"/home/u/app", "/home/u/other"}},
	}
	for i, s := range steps {
		if _, err := v.Put(data, Meta{Kind: "tool:shell", Sensitive: true, Workspaces: s.workspaces}); err != nil {
			t.Fatal(err)
		}
		m, err := v.Meta(IDFor(data))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Workspaces, s.want) || !m.Sensitive || m.Kind != "tool:shell" {
			t.Fatalf("step %d: meta %+v, want workspaces %v", i, m, s.want)
		}
	}
	m, _ := v.Meta(IDFor(data))
	for ws, want := range map[string]bool{"/home/u/app": true, "/home/u/other": true, "/home/u": false, "": false} {
		if m.StoredIn(ws) != want || m.VisibleTo(ws) != want {
			t.Errorf("StoredIn(%q), VisibleTo = %v, %v; want %v", ws, m.StoredIn(ws), m.VisibleTo(ws), want)
		}
		if open := (Meta{Workspaces: m.Workspaces}); !open.VisibleTo(ws) {
			t.Errorf("a block that is not sensitive is hidden from %q", ws)
		}
	}
}
