package server

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
	big := bytes.Repeat([]byte{0xa5}, maxFrame)
	types := []byte{frameHello, frameInput, frameSize, frameAttached, frameOutput, frameStderr, frameExit}
	for _, typ := range types {
		for _, p := range [][]byte{nil, []byte("x"), big} {
			if err := writeFrame(&buf, typ, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, typ := range types {
		for _, want := range [][]byte{nil, []byte("x"), big} {
			got, p, err := readFrame(&buf)
			if err != nil || got != typ || !bytes.Equal(p, want) {
				t.Fatalf("read %q %d bytes %v, want %q %d bytes", got, len(p), err, typ, len(want))
			}
		}
	}
	if _, _, err := readFrame(&buf); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	if err := writeFrame(&buf, frameOutput, make([]byte, maxFrame+1)); !errors.Is(err, ErrFrame) {
		t.Fatalf("writing an oversize frame: %v", err)
	}
	if err := writeJSON(&buf, frameExit, Exit{Code: 3, Message: "m"}); err != nil {
		t.Fatal(err)
	}
	_, p, _ := readFrame(&buf)
	var e Exit
	if err := decode(p, &e); err != nil || e != (Exit{Code: 3, Message: "m"}) {
		t.Fatalf("decoded %+v %v", e, err)
	}
	if err := decode([]byte("{"), &e); !errors.Is(err, ErrFrame) {
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
		"oversize":          header(frameOutput, maxFrame+1),
		"huge":              header(frameInput, 0xffffffff),
		"cut in the header": {frameOutput, 0, 0},
		"cut in payload":    append(header(frameOutput, 10), "abc"...),
		"no payload":        header(frameExit, 2),
	} {
		typ, p, err := readFrame(bytes.NewReader(in))
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
	f.Add(append(header(frameHello, 2), "{}"...))
	f.Add(header(frameOutput, maxFrame+1))
	f.Add(append(header('?', 3), "abc"...))
	f.Add([]byte{frameInput, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := &countingReader{r: bytes.NewReader(in)}
		for {
			typ, p, err := readFrame(r)
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrFrame) {
					t.Fatalf("error %v is neither io.EOF nor ErrFrame", err)
				}
				return
			}
			if len(p) > maxFrame || cap(p) > maxFrame {
				t.Fatalf("a %d byte payload", len(p))
			}
			if typ == 0 || r.n > len(in) {
				t.Fatalf("type %q after %d of %d bytes", typ, r.n, len(in))
			}
		}
	})
}
