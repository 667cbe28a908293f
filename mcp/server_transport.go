package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStream runs one MCP session of s over newline-delimited JSON-RPC
// on in and out (the stdio transport) until the client closes in or ctx
// ends. A line that is not JSON is answered with a JSON-RPC parse error
// (-32700), one that is JSON but no JSON-RPC message with an invalid
// request error (-32600), and the session goes on: the SDK's transport
// would end the session on either.
func ServeStream(ctx context.Context, s *sdk.Server, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	lf := &lineFilter{src: bufio.NewReader(in), out: w, max: MaxMessage}
	err := s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(lf), Writer: nopCloser{w}, MaxLineLength: MaxMessage})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// nopCloser is a writer whose Close does nothing: the session's end must
// not close the process's standard output.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lockedWriter serializes writes to w: the SDK's connection and the
// lineFilter's error answers share the client's stream, and each Write
// is one whole message.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineFilter passes the lines of src that hold a JSON-RPC message (or a
// batch, which the SDK checks) on to its reader and answers every other
// non-blank line itself on out, with id null, since no id can be trusted
// from it. A line longer than max bytes is an error that ends the session,
// as it is in the SDK's transport.
type lineFilter struct {
	src     *bufio.Reader
	out     io.Writer
	max     int
	pending []byte
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if len(line) > 0 {
			if answer := rejectLine(line); answer != nil {
				if _, werr := f.out.Write(answer); werr != nil {
					return 0, werr
				}
			} else {
				f.pending = append(line, '\n')
			}
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
		if err != nil {
			// Hand the last line over; the next Read meets err again.
			break
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next line of src without its line ending and
// surrounding blanks; at the end of src it returns what is left with
// io.EOF.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.src.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > f.max+2 {
			return nil, fmt.Errorf("a line of input over %d bytes", f.max)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(line), err
	}
}

// rejectLine returns the JSON-RPC error answer, newline included, for a
// line the session cannot take, or nil if it holds a message or a batch.
func rejectLine(line []byte) []byte {
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		return errorAnswer(-32700, "Parse error: "+err.Error())
	}
	if line[0] == '[' {
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorAnswer(-32600, "Invalid Request: "+err.Error())
	}
	return nil
}

func errorAnswer(code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg},
	})
	return append(b, '\n')
}

// LoopbackAddr checks an address for ListenLoopback and returns it with
// localhost spelled 127.0.0.1. Whoever reaches the server with its token
// reads the vault and memory, so addr must name a loopback address
// (127.0.0.1, ::1 or localhost) and a port: any other host, or none
// (every interface), is refused.
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

// Guard admits a request to h only when it carries "Authorization: Bearer
// token", names the listener's own loopback address in Host, and comes
// from no web page but one served there (Origin): other local users and
// sandboxed processes lack the token, and a web page that reaches
// loopback (DNS rebinding, a form post) sends another Host or Origin.
func Guard(h http.Handler, token string, addr net.Addr) http.Handler {
	port := ""
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	}
	hosts := map[string]bool{}
	for _, host := range []string{"127.0.0.1", "localhost", "::1"} {
		hosts[net.JoinHostPort(host, port)] = true
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "kws: Host must be this server's loopback address", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Scheme != "http" || !hosts[strings.ToLower(u.Host)] {
				http.Error(w, "kws: requests from web pages are refused", http.StatusForbidden)
				return
			}
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kws"`)
			http.Error(w, "kws: send the token of kws mcp serve --http as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP serves s on ln, to requests that carry token (see Guard),
// until ctx ends, then closes the listener and the clients' sessions: in
// a kws server, which goes on running, nothing of them is left behind.
func ServeHTTP(ctx context.Context, s *sdk.Server, ln net.Listener, token string) error {
	if token == "" {
		return errors.New("mcp: http: no token")
	}
	hs := &http.Server{Handler: Guard(HTTPHandler(s), token, ln.Addr()), ReadHeaderTimeout: 10 * time.Second}
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
