package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// TestFrameRoundTrip checks that every frame type, empty and at the size
// limit, reads back as written, and that a clean end between frames is
// io.EOF.
func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	big := bytes.Repeat([]byte{0xa5}, MaxFrame)
	types := []byte{FrameHello, FrameInput, FrameSize, FrameAttached, FrameOutput, FrameStderr, FrameExit, FrameRuns}
	for _, typ := range types {
		for _, p := range [][]byte{nil, []byte("x"), big} {
			if err := WriteFrame(&buf, typ, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, typ := range types {
		for _, want := range [][]byte{nil, []byte("x"), big} {
			got, p, err := ReadFrame(&buf)
			if err != nil || got != typ || !bytes.Equal(p, want) {
				t.Fatalf("read %q %d bytes %v, want %q %d bytes", got, len(p), err, typ, len(want))
			}
		}
	}
	if _, _, err := ReadFrame(&buf); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	if err := WriteFrame(&buf, FrameOutput, make([]byte, MaxFrame+1)); !errors.Is(err, ErrFrame) {
		t.Fatalf("writing an oversize frame: %v", err)
	}
	if err := WriteJSON(&buf, FrameExit, Exit{Code: 3, Message: "m"}); err != nil {
		t.Fatal(err)
	}
	_, p, _ := ReadFrame(&buf)
	var e Exit
	if err := Decode(p, &e); err != nil || e != (Exit{Code: 3, Message: "m"}) {
		t.Fatalf("decoded %+v %v", e, err)
	}
	if err := Decode([]byte("{"), &e); !errors.Is(err, ErrFrame) {
		t.Fatalf("decoding bad JSON: %v", err)
	}
}

// header is a frame header claiming n bytes of payload.
func header(typ byte, n uint32) []byte {
	h := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(h[1:], n)
	return h
}

// TestReadFrameRejects checks that malformed input is ErrFrame.
func TestReadFrameRejects(t *testing.T) {
	for name, in := range map[string][]byte{
		"unknown type":      append(header('Z', 1), 'x'),
		"zero type":         header(0, 0),
		"oversize":          header(FrameOutput, MaxFrame+1),
		"huge":              header(FrameInput, 0xffffffff),
		"cut in the header": {FrameOutput, 0, 0},
		"cut in payload":    append(header(FrameOutput, 10), "abc"...),
		"no payload":        header(FrameExit, 2),
	} {
		typ, p, err := ReadFrame(bytes.NewReader(in))
		if !errors.Is(err, ErrFrame) || typ != 0 || p != nil {
			t.Errorf("%s: %q %q %v, want ErrFrame", name, typ, p, err)
		}
	}
}

// countingReader counts how much is read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzReadFrame checks that any input reads as frames within the limit or
// stops at an error, never panicking nor allocating past the limit.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{})
	f.Add(append(header(FrameHello, 2), "{}"...))
	f.Add(header(FrameOutput, MaxFrame+1))
	f.Add(append(header('?', 3), "abc"...))
	f.Add([]byte{FrameInput, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &countingReader{r: bytes.NewReader(in)}
		for {
			typ, p, err := ReadFrame(r)
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrFrame) {
					t.Fatalf("error %v is neither io.EOF nor ErrFrame", err)
				}
				return
			}
			if len(p) > MaxFrame || cap(p) > MaxFrame {
				t.Fatalf("a %d byte payload", len(p))
			}
			if typ == 0 || r.n > len(in) {
				t.Fatalf("type %q after %d of %d bytes", typ, r.n, len(in))
			}
		}
	})
}
