// Package wire is what a kws client needs to talk to the server: the
// frames of the protocol on its Unix socket, the socket's path, and the
// client's side of running a command in the server. It imports nothing of
// kws, so the thin kws client (cmd/kws-client) starts in a few
// milliseconds; package server implements the server's side on it.
package wire

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The wire protocol between a kws client and the server is a stream of
// frames on a Unix socket: one type byte, a big-endian uint32 length and
// that many bytes of payload. A connection starts with the client's hello
// and ends with the server's exit frame.
const (
	// FrameHello opens a connection (client to server, JSON Hello).
	FrameHello = 'H'
	// FrameInput carries terminal input, or a command's standard input
	// (client to server); an empty one is the end of standard input.
	FrameInput = 'I'
	// FrameSize carries the client terminal's size (client to server,
	// JSON Size).
	FrameSize = 'W'
	// FrameAttached confirms an attach (server to client, JSON Attached).
	FrameAttached = 'A'
	// FrameOutput carries bytes for the terminal or a command's standard
	// output (server to client).
	FrameOutput = 'O'
	// FrameStderr carries a command's standard error (server to client).
	FrameStderr = 'E'
	// FrameExit ends the connection (server to client, JSON Exit).
	FrameExit = 'X'
	// FrameRuns answers an exec with IfServer: the server runs the
	// command, and the client may send its standard input (server to
	// client, empty).
	FrameRuns = 'R'
)

// MaxFrame bounds a frame's payload. A longer length is an error, so a
// peer sending garbage cannot make the other side allocate without limit.
const MaxFrame = 1 << 20

// Version is the protocol's version; a client and a server of
// different versions refuse each other with a clear message. Version 2
// added IfServer and FrameRuns for the thin client.
const Version = 2

// ErrFrame is returned for a frame that is malformed: an unknown type, a
// length over the limit or a payload that does not decode.
var ErrFrame = errors.New("malformed frame")

// Hello is the first frame of a connection: what the client wants.
type Hello struct {
	Version int `json:"version"`
	// Op is "attach", "exec", "ls", "kill-session" or "kill-server".
	Op string `json:"op"`
	// IfServer asks an exec to run Args only when the command is one the
	// server runs for its clients; for any other the server answers
	// Exit.Local at once, and the client runs the command itself. The
	// thin client, which cannot tell kws's commands apart, sets it.
	IfServer bool `json:"if_server,omitempty"`
	// Mode is how an attach finds its session: "default" (the session of
	// Workspace, created when there is none), "attach" (the named
	// session, else the most recent) or "new" (create Session). For an
	// exec, Session is the session the client runs in ($KWS_SESSION,
	// which a session's shell panes export), the one a verb such as
	// list-panes works on.
	Mode      string `json:"mode,omitempty"`
	Session   string `json:"session,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// Term is the client's $TERM; Size its terminal's size.
	Term string `json:"term,omitempty"`
	Size Size   `json:"size"`
	// Args are the kws command line an exec runs, without "kws", or the
	// workstation flags a new session gets; Cwd is the client's working
	// directory, against which the server resolves paths.
	Args []string `json:"args,omitempty"`
	Cwd  string   `json:"cwd,omitempty"`
	// ModelEnv holds the variables of ModelEnvNames set in the client's
	// environment: kws run refuses them in a running session when they
	// differ from the session's model.
	ModelEnv map[string]string `json:"model_env,omitempty"`
}

// SessionFlags are the workstation flags a new session takes from the
// command line that makes it, in Hello.Args as --NAME=VALUE; worktree is
// a switch, the others take a value.
var SessionFlags = []string{"theme", "shell", "worktree", "emulator"}

// ModelEnvNames are the variables that choose kws's model and endpoint
// (config.EnvBaseURL and EnvModel). Keys are left out, and so are the
// OPENAI_* variables, read only as a last resort.
var ModelEnvNames = []string{"KWS_BASE_URL", "KWS_MODEL"}

// ModelEnv returns the variables of ModelEnvNames that getenv finds set.
func ModelEnv(getenv func(string) string) map[string]string {
	out := map[string]string{}
	for _, n := range ModelEnvNames {
		if v := getenv(n); v != "" {
			out[n] = v
		}
	}
	return out
}

// Size is a terminal's size in cells.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Attached confirms an attach: the session's name and the bytes the
// client writes to its terminal on attaching and on leaving (the
// alternate screen, mouse and paste modes), so the client knows nothing
// of terminals beyond raw mode.
type Attached struct {
	Session string `json:"session"`
	Enter   string `json:"enter"`
	Leave   string `json:"leave"`
}

// Exit ends a connection: the client's exit code and what it prints.
type Exit struct {
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
	// Local answers an exec with IfServer: the server does not run the
	// command, and the client runs it itself. Nothing ran.
	Local bool `json:"local,omitempty"`
}

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, typ byte, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("%w: %d bytes is over the %d limit", ErrFrame, len(payload), MaxFrame)
	}
	buf := make([]byte, 5+len(payload))
	buf[0] = typ
	binary.BigEndian.PutUint32(buf[1:5], uint32(len(payload)))
	copy(buf[5:], payload)
	_, err := w.Write(buf)
	return err
}

// WriteJSON writes one frame whose payload is v as JSON.
func WriteJSON(w io.Writer, typ byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteFrame(w, typ, data)
}

// ReadFrame reads one frame. It returns io.EOF only at a clean end
// between frames.
func ReadFrame(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:1]); err != nil {
		return 0, nil, err
	}
	if _, err := io.ReadFull(r, head[1:]); err != nil {
		return 0, nil, fmt.Errorf("%w: cut short in its header", ErrFrame)
	}
	switch head[0] {
	case FrameHello, FrameInput, FrameSize, FrameAttached, FrameOutput, FrameStderr, FrameExit, FrameRuns:
	default:
		return 0, nil, fmt.Errorf("%w: unknown type %q", ErrFrame, head[0])
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("%w: %d bytes is over the %d limit", ErrFrame, n, MaxFrame)
	}
	payload := make([]byte, n)
	if got, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("%w: cut short after %d of %d bytes", ErrFrame, got, n)
	}
	return head[0], payload, nil
}

// Decode unmarshals a JSON payload, wrapping a failure in ErrFrame.
func Decode(payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("%w: %w", ErrFrame, err)
	}
	return nil
}
