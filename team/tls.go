package team

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// derive is a value of the team's key for one use, so that no two uses
// share bytes.
func derive(key []byte, use string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(use))
	return m.Sum(nil)
}

// routePassword is the password of the cluster's routes, sent inside
// their TLS.
func routePassword(key []byte) string {
	return hex.EncodeToString(derive(key, "kws team route password"))
}

// certificate is the team's TLS certificate: an Ed25519 key pair whose
// seed comes from the team's key, so that every member makes the same
// one, self-signed. Whoever presents it holds the team's key.
func certificate(key []byte) (tls.Certificate, error) {
	priv := ed25519.NewKeyFromSeed(derive(key, "kws team tls key"))
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: Config{Key: key}.Name()},
		NotBefore:             time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2125, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, priv.Public(), priv)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("team: certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, nil
}

// errNotTeam is the handshake's error for a peer without the team's
// certificate.
var errNotTeam = errors.New("team: the peer does not hold this team's key")

// routeTLS is the TLS of the cluster's routes, both ends: each side
// presents the team's certificate and accepts a peer only when it
// presents exactly that certificate's key. No CA is involved: the
// certificate is pinned.
func routeTLS(key []byte) (*tls.Config, error) {
	cert, err := certificate(key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("team: certificate: %w", err)
	}
	want := leaf.PublicKey.(ed25519.PublicKey)
	verify := func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errNotTeam
		}
		peer, err := x509.ParseCertificate(raw[0])
		if err != nil {
			return errNotTeam
		}
		if pk, ok := peer.PublicKey.(ed25519.PublicKey); !ok || !pk.Equal(want) {
			return errNotTeam
		}
		return nil
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS13,
		ClientAuth:   tls.RequireAnyClientCert,
		// The chain is not checked against a CA: VerifyPeerCertificate
		// pins the team's own key instead, on both ends.
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: verify,
	}, nil
}
