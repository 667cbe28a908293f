package server

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
	// frameHello opens a connection (client to server, JSON Hello).
	frameHello = 'H'
	// frameInput carries terminal input, or a command's standard input
	// (client to server); an empty one is the end of standard input.
	frameInput = 'I'
	// frameSize carries the client terminal's size (client to server,
	// JSON Size).
	frameSize = 'W'
	// frameAttached confirms an attach (server to client, JSON Attached).
	frameAttached = 'A'
	// frameOutput carries bytes for the terminal or a command's standard
	// output (server to client).
	frameOutput = 'O'
	// frameStderr carries a command's standard error (server to client).
	frameStderr = 'E'
	// frameExit ends the connection (server to client, JSON Exit).
	frameExit = 'X'
)

// maxFrame bounds a frame's payload. A longer length is an error, so a
// peer sending garbage cannot make the other side allocate without limit.
const maxFrame = 1 << 20

// protoVersion is the protocol's version; a client and a server of
// different versions refuse each other with a clear message.
const protoVersion = 1

// ErrFrame is returned for a frame that is malformed: an unknown type, a
// length over the limit or a payload that does not decode.
var ErrFrame = errors.New("malformed frame")

// Hello is the first frame of a connection: what the client wants.
type Hello struct {
	Version int `json:"version"`
	// Op is "attach" or "exec".
	Op string `json:"op"`
	// Mode is how an attach finds its session: "default" (the session of
	// Workspace, created when there is none), "attach" (the named
	// session, else the most recent) or "new" (create Session).
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
}

// writeFrame writes one frame.
func writeFrame(w io.Writer, typ byte, payload []byte) error {
	if len(payload) > maxFrame {
		return fmt.Errorf("%w: %d bytes is over the %d limit", ErrFrame, len(payload), maxFrame)
	}
	buf := make([]byte, 5+len(payload))
	buf[0] = typ
	binary.BigEndian.PutUint32(buf[1:5], uint32(len(payload)))
	copy(buf[5:], payload)
	_, err := w.Write(buf)
	return err
}

// writeJSON writes one frame whose payload is v as JSON.
func writeJSON(w io.Writer, typ byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFrame(w, typ, data)
}

// readFrame reads one frame. It returns io.EOF only at a clean end
// between frames.
func readFrame(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:1]); err != nil {
		return 0, nil, err
	}
	if _, err := io.ReadFull(r, head[1:]); err != nil {
		return 0, nil, fmt.Errorf("%w: cut short in its header", ErrFrame)
	}
	switch head[0] {
	case frameHello, frameInput, frameSize, frameAttached, frameOutput, frameStderr, frameExit:
	default:
		return 0, nil, fmt.Errorf("%w: unknown type %q", ErrFrame, head[0])
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("%w: %d bytes is over the %d limit", ErrFrame, n, maxFrame)
	}
	payload := make([]byte, n)
	if got, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("%w: cut short after %d of %d bytes", ErrFrame, got, n)
	}
	return head[0], payload, nil
}

// decode unmarshals a JSON payload, wrapping a failure in ErrFrame.
func decode(payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("%w: %w", ErrFrame, err)
	}
	return nil
}
