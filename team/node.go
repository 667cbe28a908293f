package team

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StoreDir is where, in the data dir, a member's node keeps the team's
// streams.
const StoreDir = "team"

// routeUser is the user name of the cluster's routes; localUser that of
// the member's own connection.
const (
	routeUser = "kws"
	localUser = "kws-local"
)

// Node is a member's embedded NATS server with JetStream, one of the
// team's cluster, and the member's own connection to it (in process); or,
// for a team on an existing cluster (Config.URL), only the connection.
type Node struct {
	cfg Config
	ns  *natsserver.Server
	nc  *nats.Conn
	js  jetstream.JetStream
}

// StartNode starts the member's node for the data dir: its cluster port
// listens on cfg.Listen and connects to cfg.Routes. It returns once the
// node runs; the team's streams are usable once Ready says so (a team
// needs two members up to agree on anything).
func StartNode(dataDir string, cfg Config, log *slog.Logger) (*Node, error) {
	if cfg.URL != "" {
		return connectNode(cfg)
	}
	host, portStr, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("team: listen address %q: %w", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("team: listen address %q: %w", cfg.Listen, err)
	}
	tlsc, err := routeTLS(cfg.Key)
	if err != nil {
		return nil, err
	}
	pass := routePassword(cfg.Key)
	// The node's own address is among its routes: JetStream forms a
	// cluster only on a node with routes, and a route to itself is
	// dropped, so that the first member needs no other to start.
	var routes []*url.URL
	for _, r := range slices.Compact(append([]string{cfg.Listen}, cfg.Routes...)) {
		routes = append(routes, &url.URL{Scheme: "nats-route", User: url.UserPassword(routeUser, pass), Host: r})
	}
	// The client port is the routes' prerequisite in nats-server; it
	// listens on a random loopback port with a password made for this
	// run and told nobody, and the member connects in process.
	local, err := NewKey()
	if err != nil {
		return nil, err
	}
	localPass := hex.EncodeToString(local)
	opts := &natsserver.Options{
		ServerName: cfg.Member,
		Host:       "127.0.0.1",
		Port:       natsserver.RANDOM_PORT,
		Username:   localUser,
		Password:   localPass,
		JetStream:  true,
		StoreDir:   filepath.Join(dataDir, StoreDir),
		NoSigs:     true,
		Cluster: natsserver.ClusterOpts{
			Name:       cfg.Name(),
			Host:       host,
			Port:       port,
			Username:   routeUser,
			Password:   pass,
			TLSConfig:  tlsc,
			TLSTimeout: 5,
		},
		Routes: routes,
	}
	ns, err := natsserver.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("team: node: %w", err)
	}
	if log != nil {
		ns.SetLoggerV2(natsLog{log: log.With("part", "team"), refused: &rate{}}, false, false, false)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("team: the node did not start (is %s free?)", cfg.Listen)
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.UserInfo(localUser, localPass), nats.Name("kws "+cfg.Member), nats.MaxReconnects(-1))
	if err != nil {
		ns.Shutdown()
		return nil, fmt.Errorf("team: connect to the node: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		ns.Shutdown()
		return nil, fmt.Errorf("team: %w", err)
	}
	return &Node{cfg: cfg, ns: ns, nc: nc, js: js}, nil
}

// connectNode is the member's connection to an existing NATS cluster
// (cfg.URL) in place of a node of its own.
func connectNode(cfg Config) (*Node, error) {
	nc, err := nats.Connect(cfg.URL, nats.Name("kws "+cfg.Member), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true))
	if err != nil {
		return nil, fmt.Errorf("team: connect to %s: %w", RedactURL(cfg.URL), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("team: %w", err)
	}
	return &Node{cfg: cfg, nc: nc, js: js}, nil
}

// RedactURL is u without its password, for messages and status.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(a NATS URL)"
	}
	return p.Redacted()
}

// JetStream is the member's handle on the team's streams.
func (n *Node) JetStream() jetstream.JetStream { return n.js }

// Conn is the member's connection to its node.
func (n *Node) Conn() *nats.Conn { return n.nc }

// Addr is where the node's cluster port listens, or the cluster the
// member connects to (its password left out).
func (n *Node) Addr() string {
	if n.ns == nil {
		return RedactURL(n.cfg.URL)
	}
	if a := n.ns.ClusterAddr(); a != nil {
		return a.String()
	}
	return n.cfg.Listen
}

// Ready waits until the team's streams answer: the cluster has a leader,
// which takes a majority of its members.
func (n *Node) Ready(ctx context.Context) error {
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := n.js.AccountInfo(actx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("team: no majority of the members answers: %w", errors.Join(ctx.Err(), err))
		case <-time.After(wait):
		}
	}
}

// Replicas is how many members should keep each stream: the configured
// number, else as many as the cluster has up to 3.
func (n *Node) Replicas() int {
	if n.cfg.Replicas > 0 {
		return n.cfg.Replicas
	}
	if n.ns == nil {
		return min(3, max(1, len(n.nc.Servers())))
	}
	return min(3, max(1, len(n.Members())))
}

// Member is one member of the team as the cluster sees it.
type Member struct {
	Name string `json:"name"`
	// Leader is set on the member that leads the cluster's metadata.
	Leader bool `json:"leader,omitempty"`
	// Current is set on a member that is up and caught up.
	Current bool `json:"current"`
	// Offline is set on a member not seen lately.
	Offline bool `json:"offline,omitempty"`
	// Lag is how many operations behind the member is.
	Lag uint64 `json:"lag,omitempty"`
	// Seen is how long ago it was last heard from.
	Seen time.Duration `json:"seen_ns,omitempty"`
}

// Members are the team's members as this node knows them: itself first,
// then the cluster's other peers by name.
func (n *Node) Members() []Member {
	if n.ns == nil {
		return []Member{{Name: n.cfg.Member, Current: n.nc.IsConnected()}}
	}
	info, err := n.ns.Jsz(nil)
	if err != nil || info.Meta == nil {
		return []Member{{Name: n.cfg.Member, Current: true}}
	}
	m := info.Meta
	// The metadata's replicas are the peers other than this node, the
	// leader among them; a follower's view of another follower's lag is
	// not the leader's, so a peer seen lately with no lag counts as
	// current.
	out := []Member{{Name: n.cfg.Member, Leader: m.Leader == n.cfg.Member, Current: m.Leader != ""}}
	for _, r := range m.Replicas {
		if r.Name == n.cfg.Member {
			continue
		}
		out = append(out, Member{Name: r.Name, Leader: r.Name == m.Leader, Current: !r.Offline && (r.Current || r.Lag == 0),
			Offline: r.Offline, Lag: r.Lag, Seen: r.Active})
	}
	slices.SortFunc(out[1:], func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close closes the member's connection and stops the node.
func (n *Node) Close() {
	n.nc.Close()
	if n.ns != nil {
		n.ns.Shutdown()
		n.ns.WaitForShutdown()
	}
}

// natsLog writes the node's log to kws's: notices as info, debug and
// trace dropped.
type natsLog struct {
	log *slog.Logger
	// refused limits the refused handshakes logged: a host without the
	// team's key that keeps trying would fill the log.
	refused *rate
}

// rate lets one event through per period.
type rate struct {
	mu   sync.Mutex
	last time.Time
}

func (r *rate) allow(period time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.last) < period {
		return false
	}
	r.last = time.Now()
	return true
}

func (l natsLog) Noticef(format string, v ...any) { l.log.Info(fmt.Sprintf(format, v...)) }
func (l natsLog) Warnf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	// Two warnings do not apply: the routes' certificate is pinned
	// (routeTLS), and the passwords are made from the team's key and a
	// run's random bytes, never typed by anyone.
	if strings.Contains(msg, "will not be verified") || strings.Contains(msg, "Plaintext passwords") {
		return
	}
	l.log.Warn(msg)
}
func (l natsLog) Fatalf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }
func (l natsLog) Errorf(format string, v ...any) { l.log.Error(fmt.Sprintf(format, v...)) }
func (l natsLog) Debugf(string, ...any)          {}
func (l natsLog) Tracef(string, ...any)          {}
