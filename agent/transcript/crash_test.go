package transcript

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// crashChildEnv makes the test binary run crashChild instead of the tests:
// the crash test starts itself as a child that streams appends.
const crashChildEnv = "KWS_SESSION_CRASH_CHILD_DATA"

// ackTarget is how many acknowledged appends the parent waits for before
// it kills the child.
const ackTarget = 200

func TestMain(m *testing.M) {
	if dataDir := os.Getenv(crashChildEnv); dataDir != "" {
		os.Exit(crashChild(dataDir))
	}
	os.Exit(m.Run())
}

// crashChild creates a session, prints "id <id>", then appends messages
// forever (bounded), printing "ack <n>" after message n is acknowledged
// and "call <n>" after call n is. Every tenth message also records a call.
func crashChild(dataDir string) int {
	s, err := Create(dataDir, "/ws")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("id %s\n", s.ID())
	pad := strings.Repeat("p", 3000)
	for n := 1; n <= 100000; n++ {
		m := provider.Message{Role: "user", Content: fmt.Sprintf("m%d %s", n, pad)}
		if err := s.AppendMessage(m); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("ack %d\n", n)
		if n%10 == 0 {
			if err := s.RecordCall(SentCall{Messages: []provider.Message{m}, Attempts: 1}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			fmt.Printf("call %d\n", n/10)
		}
	}
	return 0
}

func TestAckedRecordsSurviveSIGKILL(t *testing.T) {
	data := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+data)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	acked, calls, killed := 0, 0, false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		word, arg, _ := strings.Cut(sc.Text(), " ")
		n, _ := strconv.Atoi(arg)
		switch word {
		case "id":
			id = arg
		case "ack":
			acked = n
		case "call":
			calls = n
		}
		if acked >= ackTarget && !killed {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	// The child dies by SIGKILL, so Wait reports a signal; lines it wrote
	// before dying were still read above.
	_ = cmd.Wait()
	if !killed || id == "" {
		t.Fatalf("child stopped after %d acks without being killed: %s", acked, stderr.String())
	}

	// A kill may or may not land inside a write; append a torn fragment
	// so that the torn-tail path always runs.
	raw := filepath.Join(Dir(data), id, RawFile)
	f, err := os.OpenFile(raw, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":999999,"time":"2026-11-22T03:15:00Z","kind":"mess`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	s, rec := mustOpen(t, data, id)
	if !rec.Interrupted || len(rec.Truncated) == 0 || rec.Truncated[0].File != RawFile {
		t.Errorf("recovery = %+v, want interrupted and raw.jsonl cut", rec)
	}
	msgs := s.Messages()
	if len(msgs) < acked {
		t.Fatalf("%d messages survived, %d were acknowledged", len(msgs), acked)
	}
	for i, m := range msgs {
		if want := fmt.Sprintf("m%d ", i+1); !strings.HasPrefix(m.Content, want) {
			t.Fatalf("message %d = %.12q, want prefix %q", i+1, m.Content, want)
		}
	}
	if got := s.Summary().Calls; got < calls {
		t.Errorf("%d calls survived, %d were acknowledged", got, calls)
	}
	if err := s.AppendMessage(provider.Message{Role: "user", Content: "after the crash"}); err != nil {
		t.Fatal(err)
	}
}
