package app

import (
	"strings"
	"testing"
)

// TestKeepLater stores a large block at once with a provisional
// description (estimated tokens, withheld as sensitive) and describes it
// in the background exactly as Keep does; a small block is described at
// once.
func TestKeepLater(t *testing.T) {
	st, err := OpenStores(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	changed := make(chan struct{}, 1)
	defer st.watch(func() { changed <- struct{}{} })()

	big := []byte(strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 4000))
	id, err := st.KeepLater("log", big)
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.vault.Meta(id)
	if err != nil {
		t.Fatal(err)
	}
	st.bg.Wait()
	<-changed
	got, err := st.vault.Meta(id)
	if err != nil {
		t.Fatal(err)
	}
	// What Keep would have written, on a second vault.
	other, err := OpenStores(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wantID, err := Keep(other.vault, "log", "", big)
	if err != nil {
		t.Fatal(err)
	}
	want, err := other.vault.Meta(wantID)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Sensitive || !first.TokensEstimated {
		t.Errorf("the provisional meta is not withheld and estimated: %+v", first)
	}
	if got.Tokens != want.Tokens || got.TokensEstimated != want.TokensEstimated || got.Summary != want.Summary || got.Sensitive != want.Sensitive {
		t.Errorf("described in the background:\n%+v\nKeep describes:\n%+v", got, want)
	}

	small, err := st.KeepLater("log", []byte("one line\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := st.vault.Meta(small); err != nil || m.TokensEstimated || m.Summary == "(being described)" {
		t.Errorf("a small block is not described at once: %+v, %v", m, err)
	}
}
