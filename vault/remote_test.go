package vault_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// otherVault serves the blocks of a second real vault, as a team member
// would; lie, when set, hands out other bytes under the name asked for.
type otherVault struct {
	v    *vault.Vault
	lie  bool
	mu   sync.Mutex
	asks int
}

func (o *otherVault) Fetch(id string) ([]byte, vault.Meta, error) {
	o.mu.Lock()
	o.asks++
	o.mu.Unlock()
	data, err := o.v.Get(id)
	if err != nil {
		return nil, vault.Meta{}, err
	}
	m, err := o.v.Meta(id)
	if o.lie {
		data = append(data, '!')
	}
	return data, m, err
}

func TestVaultFetchesWhatItLacksFromItsRemote(t *testing.T) {
	here, there := vaulttest.MustOpen(t), vaulttest.MustOpen(t)
	data := []byte("the exact failing test output\n--- FAIL: TestX\n")
	id, err := there.Put(data, vault.Meta{Kind: "tool", Agent: "agent-1@b", Command: "go test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := here.Get(id); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("before a remote: %v, want ErrNotFound", err)
	}
	remote := &otherVault{v: there}
	here.SetRemote(remote)
	got, err := here.Get(id)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get through the remote = %q, %v", got, err)
	}
	// Kept: the next reads are local.
	m, err := here.Meta(id)
	if err != nil || m.Command != "go test" || m.Chars != len(data) {
		t.Fatalf("Meta = %+v, %v", m, err)
	}
	var buf bytes.Buffer
	if _, err := here.WriteTo(id, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("WriteTo = %q, %v", buf.Bytes(), err)
	}
	if remote.asks != 1 {
		t.Errorf("the remote was asked %d times, want once", remote.asks)
	}
	if _, err := here.Get("ctx:0123456789ab"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("a block nobody has: %v, want ErrNotFound", err)
	}
}

func TestVaultRefusesRemoteBytesThatDoNotHashToTheID(t *testing.T) {
	here, there := vaulttest.MustOpen(t), vaulttest.MustOpen(t)
	id, err := there.Put([]byte("honest bytes"), vault.Meta{Kind: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	here.SetRemote(&otherVault{v: there, lie: true})
	if _, err := here.Get(id); !errors.Is(err, vault.ErrCorrupt) {
		t.Fatalf("bytes that do not hash to the id: %v, want ErrCorrupt", err)
	}
	if n, _ := here.Len(); n != 0 {
		t.Fatalf("the lie was kept: %d blocks", n)
	}
}

func TestVaultTellsOfBlocksStoredForTheFirstTime(t *testing.T) {
	v := vaulttest.MustOpen(t)
	var heard []string
	cancel := v.OnStored(func(data []byte, m vault.Meta) { heard = append(heard, fmt.Sprintf("%s %s", m.ID, data)) })
	id, err := v.Put([]byte("one"), vault.Meta{Kind: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Put([]byte("one"), vault.Meta{Kind: "tool", Workspaces: []string{"/elsewhere"}}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := v.Put([]byte("two"), vault.Meta{Kind: "tool"}); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 1 || heard[0] != id+" one" {
		t.Fatalf("heard %q, want only %q", heard, id+" one")
	}
}
