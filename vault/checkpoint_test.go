package vault_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

func TestBlobsAreDeduplicatedAndVerified(t *testing.T) {
	v := vaulttest.MustOpen(t)
	big := bytes.Repeat([]byte("a line of some source file, unique-blob-marker\n"), 20_000)
	hs, err := v.PutBlobs([][]byte{big, []byte("small\n"), {}})
	if err != nil {
		t.Fatal(err)
	}
	if hs[0] != vault.HashBlob(big) || hs[2] != vault.HashBlob(nil) {
		t.Fatalf("hashes = %v", hs)
	}
	size := v.FileSize()
	for range 5 {
		if _, err := v.PutBlobs([][]byte{big, big}); err != nil {
			t.Fatal(err)
		}
	}
	if grown := v.FileSize() - size; grown > int64(len(big)) {
		t.Errorf("putting the same bytes again grew the file by %d bytes", grown)
	}
	for i, want := range [][]byte{big, []byte("small\n"), {}} {
		got, err := v.Blob(hs[i])
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("blob %d: %d bytes, %v", i, len(got), err)
		}
	}
	if _, err := v.Blob(vault.HashBlob([]byte("never stored"))); !errors.Is(err, vault.ErrNoBlob) {
		t.Errorf("unknown blob: %v, want ErrNoBlob", err)
	}
	v = vaulttest.DamageBlock(t, v, big)
	if _, err := v.Blob(hs[0]); !errors.Is(err, vault.ErrCorrupt) {
		t.Errorf("damaged blob: %v, want ErrCorrupt", err)
	}
}

func TestCheckpointsAreOrderedPerSession(t *testing.T) {
	v := vaulttest.MustOpen(t)
	c := vault.Checkpoint{Agent: "agent-1", Session: "s1", Root: "/w", Turn: 1, MsgIndex: 4, Reason: "turn", Manifest: []byte{1, 2, 0, 3}}
	if _, err := v.PutCheckpoint(vault.Checkpoint{}, 0, nil); !errors.Is(err, vault.ErrBadCheckpoint) {
		t.Errorf("no session: %v", err)
	}
	if seq, err := v.PutCheckpoint(c, 0, [][]byte{[]byte("file bytes")}); err != nil || seq != 1 {
		t.Fatalf("first = %d, %v", seq, err)
	}
	if _, err := v.PutCheckpoint(c, 0, [][]byte{[]byte("lost")}); !errors.Is(err, vault.ErrCheckpointOrder) {
		t.Fatalf("built on a stale checkpoint: %v, want ErrCheckpointOrder", err)
	}
	if _, err := v.Blob(vault.HashBlob([]byte("lost"))); !errors.Is(err, vault.ErrNoBlob) {
		t.Errorf("a refused checkpoint stored its blobs: %v", err)
	}
	c.Reason, c.Tool, c.CallID, c.Manifest = "tool", "shell", "call-7", nil
	if seq, err := v.PutCheckpoint(c, 1, nil); err != nil || seq != 2 {
		t.Fatalf("second = %d, %v", seq, err)
	}
	if seq, err := v.PutCheckpoint(vault.Checkpoint{Session: "s2"}, 0, nil); err != nil || seq != 1 {
		t.Fatalf("another session's first = %d, %v", seq, err)
	}
	got, err := v.Checkpoints("s1")
	if err != nil || len(got) != 2 {
		t.Fatalf("Checkpoints = %+v, %v", got, err)
	}
	if g := got[0]; g.Seq != 1 || g.Agent != "agent-1" || g.Root != "/w" || g.MsgIndex != 4 || g.Reason != "turn" ||
		!bytes.Equal(g.Manifest, []byte{1, 2, 0, 3}) || time.Since(g.Time) > time.Hour {
		t.Errorf("first = %+v", g)
	}
	if g := got[1]; g.Seq != 2 || g.Tool != "shell" || g.CallID != "call-7" || len(g.Manifest) != 0 {
		t.Errorf("second = %+v", g)
	}
	if seq, err := v.CheckpointSeq("s1"); err != nil || seq != 2 {
		t.Errorf("CheckpointSeq = %d, %v", seq, err)
	}
	if got, err := v.Checkpoints("none"); err != nil || got != nil {
		t.Errorf("unknown session: %v, %v", got, err)
	}
}

// TestCheckpointsAreNotBlocks checks that nothing lists or finds file
// bytes and checkpoints as context blocks.
func TestCheckpointsAreNotBlocks(t *testing.T) {
	v := vaulttest.MustOpen(t)
	if _, err := v.PutCheckpoint(vault.Checkpoint{Session: "s"}, 0, [][]byte{[]byte("func checkpointedSecretFunction() {}\n")}); err != nil {
		t.Fatal(err)
	}
	if n, err := v.Len(); err != nil || n != 0 {
		t.Errorf("Len = %d, %v", n, err)
	}
	if err := v.List(func(m vault.Meta) error { return errors.New("listed " + m.ID) }); err != nil {
		t.Error(err)
	}
	if hits, err := v.Search("checkpointedSecretFunction", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search = %v, %v", hits, err)
	}
}

// TestOlderVaultsOpenReadOnly opens a vault made before checkpoints
// existed, read-only: there are none, and nothing fails.
func TestOlderVaultsOpenReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), vault.FileName)
	v, err := vault.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	ro, err := vault.Open(path, &vault.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got, err := ro.Checkpoints("s"); err != nil || got != nil {
		t.Errorf("Checkpoints = %v, %v", got, err)
	}
	if seq, err := ro.CheckpointSeq("s"); err != nil || seq != 0 {
		t.Errorf("CheckpointSeq = %d, %v", seq, err)
	}
	if _, err := ro.Blob(vault.HashBlob([]byte("x"))); !errors.Is(err, vault.ErrNoBlob) {
		t.Errorf("Blob = %v", err)
	}
}
