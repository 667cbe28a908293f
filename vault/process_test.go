package vault

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a helper process: KWS_VAULT_HELPER=hold opens
// the vault and waits; =put puts numbered blocks forever, printing each id
// after Put returns (that print is the acknowledgement).
func TestMain(m *testing.M) {
	switch os.Getenv("KWS_VAULT_HELPER") {
	case "hold":
		v, err := Open(os.Getenv("KWS_VAULT_PATH"), nil)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(2)
		}
		fmt.Println("READY")
		time.Sleep(time.Minute)
		v.Close()
		os.Exit(0)
	case "put":
		v, err := Open(os.Getenv("KWS_VAULT_PATH"), nil)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(2)
		}
		for i := 0; ; i++ {
			id, err := v.Put(helperBlock(i), Meta{Kind: "stress"})
			if err != nil {
				fmt.Println("ERR", err)
				os.Exit(2)
			}
			fmt.Printf("%d %s\n", i, id)
		}
	}
	os.Exit(m.Run())
}

// helperBlock is block i of the put stream: 1 to 64 KiB, deterministic.
func helperBlock(i int) []byte {
	n := 1024 + (i*7919)%(63*1024)
	unit := []byte(fmt.Sprintf("block %d;", i))
	return bytes.Repeat(unit, n/len(unit)+1)[:n]
}

func startHelper(t *testing.T, mode, path string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KWS_VAULT_HELPER="+mode, "KWS_VAULT_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func TestOpenHeldByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	cmd, sc := startHelper(t, "hold", path)
	if !sc.Scan() || sc.Text() != "READY" {
		t.Fatalf("helper did not start: %q", sc.Text())
	}
	start := time.Now()
	_, err := Open(path, nil)
	elapsed := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a held vault: %v, want ErrLocked", err)
	}
	if elapsed > time.Second {
		t.Fatalf("open took %v, want < 1s", elapsed)
	}
	if want := "pid " + strconv.Itoa(cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name %s", err, want)
	}
}

// TestKill9MidPutLosesNothing kills a process that streams puts and checks
// that every acknowledged put is readable byte for byte and the file is
// consistent.
func TestKill9MidPutLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	cmd, sc := startHelper(t, "put", path)
	acked := map[int]string{}
	for sc.Scan() && len(acked) < 150 {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			t.Fatalf("helper: %q", sc.Text())
		}
		i, _ := strconv.Atoi(f[0])
		acked[i] = f[1]
	}
	if len(acked) < 150 {
		t.Fatalf("helper stopped after %d puts", len(acked))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	v, err := Open(path, nil)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer v.Close()
	if err := v.Check(); err != nil {
		t.Fatalf("consistency after kill -9: %v", err)
	}
	for i, id := range acked {
		got, err := v.Get(id)
		if err != nil || !bytes.Equal(got, helperBlock(i)) {
			t.Fatalf("acknowledged put %d (%s) lost or changed: %v", i, id, err)
		}
	}
	if hits, err := v.Search("block", 1); err != nil || len(hits) == 0 {
		t.Fatalf("search after kill -9: %v %v", hits, err)
	}
}

func TestParseProcLocks(t *testing.T) {
	locks := "1: POSIX  ADVISORY  WRITE 100 fd:01:77 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF\n" +
		"2: -> FLOCK  ADVISORY  WRITE 999 fd:01:1234567 0 EOF\n"
	if pid := parseProcLocks(bufio.NewScanner(strings.NewReader(locks)), 1234567); pid != 4242 {
		t.Fatalf("pid %d", pid)
	}
	if pid := parseProcLocks(bufio.NewScanner(strings.NewReader(locks)), 5); pid != 0 {
		t.Fatalf("pid %d for unknown inode", pid)
	}
}
