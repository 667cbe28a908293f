package team

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// FileName is the team configuration's file in the data dir. It holds
// the team's key, so it is the user's alone (0600).
const FileName = "team.json"

// DefaultListen is where a member's cluster port listens unless told:
// loopback, reachable from this machine only.
const DefaultListen = "127.0.0.1:7422"

// ErrNoTeam is returned by Load when the data dir is in no team.
var ErrNoTeam = errors.New("team: this data dir is in no team (kws team init or kws team join)")

// Config is a member's team configuration (DATA/team.json).
type Config struct {
	// Key is the team's secret, 32 random bytes: the routes' TLS
	// certificate and their password come from it. Empty with URL.
	Key []byte `json:"key,omitempty"`
	// URL, instead of a node of its own, points the member at an
	// existing NATS cluster with JetStream (nats://USER:PASSWORD@HOST:PORT,
	// tls:// for TLS); Team then names the team in it.
	URL  string `json:"url,omitempty"`
	Team string `json:"team,omitempty"`
	// Member is this member's name, unique in the team.
	Member string `json:"member"`
	// Listen is the host:port of this member's cluster port.
	Listen string `json:"listen"`
	// Routes are the cluster ports of other members this one connects
	// to; the cluster tells each member of the others.
	Routes []string `json:"routes,omitempty"`
	// Replicas is how many members keep each of the team's streams; 0
	// means up to 3, as many as there are members.
	Replicas int `json:"replicas,omitempty"`
	// LeaseSeconds is how long a board claim outlives its holder's last
	// renewal; 0 means 15.
	LeaseSeconds int `json:"lease_seconds,omitempty"`
	// Joined is when this data dir joined the team: blocks stored before
	// are not published (the vault may hold other projects' blocks).
	Joined time.Time `json:"joined"`
}

// Name is the team's name, which its key determines: the cluster's name.
// On an existing cluster (URL) it is Team, "kws" by default.
func (c Config) Name() string {
	if c.URL != "" {
		return cmpOr(c.Team, "kws")
	}
	sum := sha256.Sum256(append([]byte("kws team name\x00"), c.Key...))
	return "kws-" + hex.EncodeToString(sum[:4])
}

// Token is the line another host gives kws team join: the key and this
// member's cluster port (its advertised address).
func (c Config) Token(advertise string) string {
	return base64.RawURLEncoding.EncodeToString(c.Key) + "@" + cmpOr(advertise, c.Listen)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ParseToken reads a join token, KEY@HOST:PORT.
func ParseToken(token string) (key []byte, route string, err error) {
	k, addr, ok := strings.Cut(strings.TrimSpace(token), "@")
	if !ok {
		return nil, "", errors.New("team: a join token is KEY@HOST:PORT, as kws team init prints it")
	}
	key, err = base64.RawURLEncoding.DecodeString(k)
	if err != nil || len(key) != 32 {
		return nil, "", errors.New("team: the token's key is damaged (copy the whole line kws team init printed)")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, "", fmt.Errorf("team: the token's address %q: %w", addr, err)
	}
	return key, addr, nil
}

// NewKey returns a fresh team key.
func NewKey() ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("team: key: %w", err)
	}
	return key, nil
}

// CheckMember refuses a member name NATS cannot carry in its subjects
// and server names: letters, digits, '-' and '_' only, at most 64.
func CheckMember(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("team: member name %q: 1 to 64 characters", name)
	}
	for _, r := range name {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			return fmt.Errorf("team: member name %q: letters, digits, - and _ only", name)
		}
	}
	return nil
}

// DefaultMember is the member name a host gets unless told: its host
// name, made fit for NATS.
func DefaultMember() string {
	h, _ := os.Hostname()
	var b strings.Builder
	for _, r := range h {
		switch {
		case r <= unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_'):
			b.WriteRune(r)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	name := cmpOr(strings.Trim(b.String(), "-"), "kws")
	return name[:min(len(name), 64)]
}

// CheckListen refuses an address that is not host:port, and one off
// loopback unless public is set: nothing listens beyond this machine
// unless the user says so.
func CheckListen(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("team: listen address %q: %w", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("team: listen address %q: bad port", addr)
	}
	if public {
		return nil
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("team: %s is not a loopback address: other machines could reach it; say --public to listen there", addr)
}

// Load reads the data dir's team configuration; ErrNoTeam when there is
// none.
func Load(dataDir string) (Config, error) {
	var c Config
	path := filepath.Join(dataDir, FileName)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, ErrNoTeam
	}
	if err != nil {
		return c, fmt.Errorf("team: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return c, fmt.Errorf("team: %s must be a plain file only you can read (mode 0600), not %v", path, fi.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("team: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("team: %s: %w", path, err)
	}
	if len(c.Key) != 32 && c.URL == "" {
		return c, fmt.Errorf("team: %s: the key is damaged", path)
	}
	if err := CheckMember(c.Member); err != nil {
		return c, err
	}
	return c, nil
}

// Save writes the configuration to the data dir, readable by the user
// alone, atomically.
func (c Config) Save(dataDir string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dataDir, ".team-*.json")
	if err != nil {
		return fmt.Errorf("team: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("team: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("team: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("team: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dataDir, FileName))
}

// Remove takes the data dir out of its team: the configuration and the
// node's store go; the vault keeps every block it has.
func Remove(dataDir string) error {
	if err := os.Remove(filepath.Join(dataDir, FileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("team: %w", err)
	}
	return os.RemoveAll(filepath.Join(dataDir, StoreDir))
}
