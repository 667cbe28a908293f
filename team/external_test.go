package team

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// TestTeamOnAnExistingCluster points two members at a NATS server with
// JetStream that neither runs (Config.URL): a block stored by one
// reaches the other, and the board is one; a member with a wrong
// password never gets in.
func TestTeamOnAnExistingCluster(t *testing.T) {
	ns, err := natsserver.NewServer(&natsserver.Options{ServerName: "existing", Host: "127.0.0.1", Port: natsserver.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
		Users: []*natsserver.User{{Username: "team", Password: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	addr := ns.Addr().String()
	open := func(member, password string) (*Team, *vault.Vault) {
		dir := t.TempDir()
		cfg := Config{URL: fmt.Sprintf("nats://team:%s@%s", password, addr), Team: "t", Member: member}
		if err := cfg.Save(dir); err != nil {
			t.Fatal(err)
		}
		v := vaulttest.MustOpen(t)
		tm, err := Open(dir, Options{Vault: v, Log: testLog})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tm.Close)
		return tm, v
	}
	m1, v1 := open("m1", "s3cret")
	m2, v2 := open("m2", "s3cret")
	for _, tm := range []*Team{m1, m2} {
		select {
		case <-tm.Ready():
		case <-time.After(teamWait):
			t.Fatal("a member did not get in")
		}
	}
	if got := m1.Status(t.Context()).Listen; got != "nats://team:xxxxx@"+addr {
		t.Errorf("status shows the cluster as %q, want the password left out", got)
	}
	id, err := v1.Put([]byte("a block from m1\n"), vault.Meta{Kind: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "m2 keeps m1's block", teamWait, func() error {
		if !v2.Has(id) {
			return errors.New("not yet")
		}
		return nil
	})
	task, err := m1.AddTask("fix the parser", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.ClaimTask(task.ID, "agent-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m1.ClaimTask(task.ID, "agent-2"); !errors.Is(err, vault.ErrClaimed) {
		t.Fatalf("m1 claims m2's task: %v, want ErrClaimed", err)
	}

	bad, _ := open("intruder", "guess")
	eventually(t, "the server refuses the intruder", teamWait, func() error {
		if err := bad.Node().Conn().LastError(); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			return fmt.Errorf("last error %v", err)
		}
		return nil
	})
	if _, err := bad.ListTasks(); !errors.Is(err, ErrNotReady) {
		t.Fatalf("the intruder lists the board: %v", err)
	}
}
