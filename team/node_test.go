package team

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// testMember is one member of a team started by startTeam.
type testMember struct {
	dir  string
	cfg  Config
	node *Node
}

// startTeam starts n members of one team on loopback, each with its own
// data dir, the later ones joining the first, and waits until the team
// answers on each.
func startTeam(t testing.TB, n int) []*testMember {
	t.Helper()
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	var ms []*testMember
	var first string
	for i := range n {
		cfg := Config{Key: key, Member: fmt.Sprintf("m%d", i+1), Listen: freeAddr(t)}
		if i == 0 {
			first = cfg.Listen
		} else {
			cfg.Routes = []string{first}
		}
		m := &testMember{dir: t.TempDir(), cfg: cfg}
		m.start(t)
		ms = append(ms, m)
	}
	for _, m := range ms {
		m.ready(t)
	}
	return ms
}

func (m *testMember) start(t testing.TB) {
	t.Helper()
	node, err := StartNode(m.dir, m.cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	m.node = node
	t.Cleanup(func() { m.stop() })
}

func (m *testMember) stop() {
	if m.node != nil {
		m.node.Close()
		m.node = nil
	}
}

func (m *testMember) ready(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), teamWait)
	defer cancel()
	if err := m.node.Ready(ctx); err != nil {
		t.Fatalf("%s: %v", m.cfg.Member, err)
	}
}

func TestThreeMembersShareAKeyValueBucket(t *testing.T) {
	ms := startTeam(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A stream kept by all three once the cluster knows them all.
	var kv jetstream.KeyValue
	eventually(t, "an R3 bucket", 30*time.Second, func() error {
		var err error
		kv, err = ms[0].node.JetStream().CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "T", Replicas: 3})
		return err
	})
	if _, err := kv.Put(ctx, "k", []byte("from m1")); err != nil {
		t.Fatal(err)
	}
	kv3, err := ms[2].node.JetStream().KeyValue(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv3.Get(ctx, "k")
	if err != nil || string(e.Value()) != "from m1" {
		t.Fatalf("m3 reads %v, %v", e, err)
	}
	names := map[string]bool{}
	for _, m := range ms[1].node.Members() {
		names[m.Name] = true
	}
	if !names["m1"] || !names["m2"] || !names["m3"] {
		t.Errorf("members seen by m2: %v", ms[1].node.Members())
	}
}

// TestOutsiderIsRefused connects to a member's cluster port as a route
// would, without the team's key: the TLS handshake fails, and a node
// with another key never sees the team's buckets.
func TestOutsiderIsRefused(t *testing.T) {
	ms := startTeam(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := ms[0].node.JetStream().CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "SECRET", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	// The port speaks TLS at once, and a peer without the team's
	// certificate fails the handshake.
	other, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := routeTLS(other)
	if err != nil {
		t.Fatal(err)
	}
	handshake := func(conf *tls.Config) ([]byte, error) {
		c, err := net.DialTimeout("tcp", ms[0].node.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(c, conf)
		if err := tc.Handshake(); err != nil {
			return nil, err
		}
		// TLS 1.3 reports the server's refusal of a client certificate
		// on the first read; a member's port greets with INFO.
		line := make([]byte, 4096)
		n, err := tc.Read(line)
		return line[:n], err
	}
	right, err := routeTLS(ms[0].cfg.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := handshake(right); err != nil || !bytes.HasPrefix(got, []byte("INFO ")) {
		t.Fatalf("with the team's key: %q, %v (want the port's INFO)", got, err)
	}
	if got, err := handshake(wrong); err == nil {
		t.Fatalf("with another team's key the port answered %q", got)
	}

	// A whole node with another key, pointed at the team, stays alone.
	out := &testMember{dir: t.TempDir(), cfg: Config{Key: other, Member: "outsider", Listen: freeAddr(t), Routes: []string{ms[0].cfg.Listen}}}
	out.start(t)
	short, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel2()
	if err := out.node.Ready(short); err == nil {
		if _, err := out.node.JetStream().KeyValue(short, "SECRET"); err == nil || !errors.Is(err, jetstream.ErrBucketNotFound) && short.Err() == nil {
			t.Fatalf("the outsider reached the team's bucket: %v", err)
		}
	}
	for _, m := range ms[0].node.Members() {
		if m.Name == "outsider" {
			t.Fatalf("the team lists the outsider: %+v", ms[0].node.Members())
		}
	}
}
