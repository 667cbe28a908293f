package tools

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// TestShellHugeOutputStoredOnce runs a command whose output overflows the
// bounded buffers: the whole output goes to the vault once, the model gets
// its ref with the first and last 40 lines and the notable lines between
// (as the README promises), and the diet keeps that view as it is instead
// of vaulting and compacting a second copy.
func TestShellHugeOutputStoredOnce(t *testing.T) {
	v := vaulttest.MustOpen(t)
	env := newEnv(t, nil)
	var kept [][]byte
	env.Keep = func(kind string, data []byte) (string, error) {
		kept = append(kept, data)
		ids, err := v.PutMany([]vault.Block{{Data: data, Meta: vault.Meta{Kind: kind}}})
		if err != nil {
			return "", err
		}
		return ids[0], nil
	}
	res := call(t, env, "shell", `{"command":"seq 1 100000 | sed 's/^50000$/FAILED test_x - AssertionError/'"}`)
	var whole strings.Builder
	for i := 1; i <= 100000; i++ {
		if i == 50000 {
			whole.WriteString("FAILED test_x - AssertionError\n")
			continue
		}
		whole.WriteString(strconv.Itoa(i) + "\n")
	}
	if len(kept) != 1 || string(kept[0]) != whole.String() {
		t.Fatalf("kept %d blocks; want the whole stdout once", len(kept))
	}
	lines := strings.Split(res.Text, "\n")
	has := map[string]bool{}
	for _, l := range lines {
		has[l] = true
	}
	for _, want := range []string{"1", "40", "99961", "100000", "FAILED test_x - AssertionError"} {
		if !has[want] {
			t.Errorf("view lacks line %q", want)
		}
	}
	if has["41"] || has["99960"] || len(lines) > 100 {
		t.Fatalf("view keeps more than the first and last 40 lines: %d lines", len(lines))
	}
	refs := vault.ParseRefs(res.Text)
	if len(refs) != 1 || refs[0].ID == "" {
		t.Fatalf("view has %d refs", len(refs))
	}
	if got, err := v.Get(refs[0].ID); err != nil || string(got) != whole.String() {
		t.Fatal("the view's ref does not resolve to the whole output")
	}
	s, err := diet.NewState(diet.Defaults(), v, nil, "test", "s")
	if err != nil {
		t.Fatal(err)
	}
	s.Add(diet.Message{Role: "system", Content: "sys"}, diet.Message{Role: "user", Content: "count"},
		diet.Message{Role: "tool", Content: res.Text})
	if _, err := s.Build(); err != nil {
		t.Fatal(err)
	}
	if !s.SentExact(2) {
		t.Fatal("the diet compacted the view again")
	}
}
