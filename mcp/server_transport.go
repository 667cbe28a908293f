package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStream runs one MCP session of s over newline-delimited JSON-RPC
// on in and out (the stdio transport) until the client closes in or ctx
// ends.
func ServeStream(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer) error {
	err := s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}, MaxLineLength: MaxMessage})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// nopCloser is a writer whose Close does nothing: the session's end must
// not close the process's standard output.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// LoopbackAddr checks an address for ListenLoopback and returns it with
// localhost spelled 127.0.0.1. The server has no authentication, so addr
// must name a loopback address (127.0.0.1, ::1 or localhost) and a port:
// any other host, or none (every interface), is refused.
func LoopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: want HOST:PORT on loopback, e.g. 127.0.0.1:7077: %v", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("--http %q: kws serves MCP over HTTP on loopback only (127.0.0.1, ::1 or localhost), since anyone who reaches it reads the vault and memory", addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// ListenLoopback listens on addr for ServeHTTP; see LoopbackAddr for the
// addresses it takes.
func ListenLoopback(addr string) (net.Listener, error) {
	a, err := LoopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("--http %q: %w", addr, err)
	}
	return ln, nil
}

// HTTPHandler serves s over the streamable HTTP transport, one session per
// client, with messages up to MaxMessage. The SDK refuses requests that
// reach a loopback address under another host name (DNS rebinding).
func HTTPHandler(s *sdk.Server) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: MaxMessage})
}

// ServeHTTP serves s on ln until ctx ends, then closes the listener and
// the clients' sessions: in a kws server, which goes on running, nothing
// of them is left behind.
func ServeHTTP(ctx context.Context, s *sdk.Server, ln net.Listener) error {
	hs := &http.Server{Handler: HTTPHandler(s), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	var err error
	select {
	case err = <-done:
		err = fmt.Errorf("mcp: http: %w", err)
	case <-ctx.Done():
		// Streams held open by clients do not delay the exit.
		_ = hs.Close()
		<-done
	}
	for ss := range s.Sessions() {
		_ = ss.Close()
	}
	return err
}
