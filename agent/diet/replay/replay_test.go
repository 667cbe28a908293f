package replay

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault/vaulttest"
)

const fixtures = "../../../testdata/trajectories"

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtures, "*.traj"))
	if err != nil || len(files) != 21 {
		t.Fatalf("want the 21 fixture trajectories in %s, found %d (%v)", fixtures, len(files), err)
	}
	return files
}

// runVerified replays conv with p into a new vault and checks that every
// call's prompt resolves through the vault to the exact messages; onCall,
// when not nil, sees each call's result too.
func runVerified(t testing.TB, conv Conversation, p diet.Params, onCall func(diet.Result)) Outcome {
	t.Helper()
	v := vaulttest.MustOpen(t)
	var checkErr error
	o, err := Run(conv, p, v, tokens.Default(), func(res diet.Result) {
		if onCall != nil {
			onCall(res)
		}
		if checkErr == nil {
			checkErr = Verify(v, conv.Messages[:len(res.Messages)], res.Messages)
		}
	})
	if err != nil {
		t.Fatalf("%s: %v", conv.Name, err)
	}
	if checkErr != nil {
		t.Fatalf("%s: %v", conv.Name, checkErr)
	}
	return o
}

// loadFixtures loads every fixture trajectory.
func loadFixtures(t testing.TB) []Conversation {
	t.Helper()
	var convs []Conversation
	for _, f := range fixtureFiles(t) {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, c)
	}
	return convs
}

// TestReplayEveryFixtureResolvesExactly replays each fixture at a 2,000
// token trigger and checks every prompt of every call.
func TestReplayEveryFixtureResolvesExactly(t *testing.T) {
	p := diet.Defaults()
	p.TriggerTokens = 2000
	for _, file := range fixtureFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			conv, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			changed := 0
			o := runVerified(t, conv, p, nil)
			for i, m := range o.Final {
				if m.Content != conv.Messages[i].Content {
					changed++
				}
			}
			if len(o.Final) != len(conv.Messages) || o.Row.Calls < 2 {
				t.Fatalf("final prompt %d messages, %d calls", len(o.Final), o.Row.Calls)
			}
			if changed == 0 && o.Row.FinalNaiveTokens > 4000 {
				t.Fatalf("a %d-token conversation was not dieted at trigger 2000", o.Row.FinalNaiveTokens)
			}
		})
	}
}

// TestLongSession replays all fixtures as one session at the defaults and
// holds the final prompt to at most 20% of the naive tokens.
func TestLongSession(t *testing.T) {
	long := Concat("long", loadFixtures(t))
	if len(long.Messages) != 477 {
		t.Fatalf("long session has %d messages, want 477", len(long.Messages))
	}
	v := vaulttest.MustOpen(t)
	o, err := Run(long, diet.Defaults(), v, tokens.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(v, long.Messages, o.Final); err != nil {
		t.Fatal(err)
	}
	r := o.Row
	if 5*r.FinalSentTokens > r.FinalNaiveTokens {
		t.Fatalf("final prompt %d tokens is more than 20%% of naive %d", r.FinalSentTokens, r.FinalNaiveTokens)
	}
	if r.CachedPrefixPct < 80 {
		t.Fatalf("cached prefix share %.1f%%, want >= 80%%", r.CachedPrefixPct)
	}
}

// TestReplayIsDeterministic replays the same file into two vaults and
// compares every prompt byte for byte.
func TestReplayIsDeterministic(t *testing.T) {
	conv, err := Load(filepath.Join(fixtures, "pydicom-1458.traj"))
	if err != nil {
		t.Fatal(err)
	}
	p := diet.Defaults()
	p.TriggerTokens = 3000
	var runs [2][][]diet.Message
	for k := range runs {
		v := vaulttest.MustOpen(t)
		_, err := Run(conv, p, v, tokens.Default(), func(res diet.Result) {
			runs[k] = append(runs[k], res.Messages)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
		t.Fatal("same input produced different prompts")
	}
}
