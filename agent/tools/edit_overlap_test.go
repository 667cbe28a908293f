package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditFileRefusesOverlappingMatches(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.go"), []byte("func f() {\n}\n}\n}\n"), 0o644)
	ed, _ := ByName("edit_file")
	res, err := ed.Run(context.Background(), &Env{Workspace: ws}, []byte(`{"path":"a.go","old_string":"}\n}\n","new_string":"}\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, "occurs") {
		t.Fatalf("an ambiguous overlapping edit was applied: %+v", res)
	}
}
