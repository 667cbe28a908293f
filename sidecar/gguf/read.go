package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// Limits beyond which a header is taken as corrupt rather than allocated.
const (
	maxString   = 16 << 20
	maxArrayLen = 1 << 26
)

// Read parses and checks the header of the GGUF file at path: the magic,
// the version, every metadata pair and tensor description, and that the
// tensor data lies inside the file. It reads the header only. Errors about
// the content wrap ErrFormat; an unreadable file gives the os error.
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Parse(f, st.Size())
}

// Parse reads a GGUF header from r, a file of size bytes, with the checks
// of Read.
func Parse(r io.Reader, size int64) (*File, error) {
	rd := &reader{r: bufio.NewReader(r), size: size}
	magic, err := rd.bytes(4)
	if err != nil {
		return nil, err
	}
	if string(magic) != Magic {
		return nil, formatErr("bad magic %q", magic)
	}
	f := &File{Alignment: DefaultAlignment}
	if f.Version, err = rd.u32(); err != nil {
		return nil, err
	}
	if f.Version != 2 && f.Version != 3 {
		return nil, formatErr("unsupported version %d", f.Version)
	}
	nTensors, err := rd.count(24, "tensors")
	if err != nil {
		return nil, err
	}
	nKV, err := rd.count(13, "metadata pairs")
	if err != nil {
		return nil, err
	}
	if err := rd.readKV(f, nKV); err != nil {
		return nil, err
	}
	if err := rd.readTensors(f, nTensors); err != nil {
		return nil, err
	}
	f.DataOffset = int64(Pad(uint64(rd.off), f.Alignment))
	for _, t := range f.Tensors {
		if end := uint64(f.DataOffset) + t.Offset + t.Size(); end > uint64(size) {
			return nil, formatErr("tensor %s ends at byte %d, past the end of the file (%d bytes): truncated", t.Name, end, size)
		}
	}
	return f, nil
}

// readKV reads n metadata pairs into f.
func (rd *reader) readKV(f *File, n uint64) error {
	seen := map[string]bool{}
	for range n {
		key, err := rd.str()
		if err != nil {
			return err
		}
		if key == "" || seen[key] {
			return formatErr("empty or duplicate key %q", key)
		}
		seen[key] = true
		t, err := rd.u32()
		if err != nil {
			return err
		}
		v, err := rd.value(ValueType(t))
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		f.KV = append(f.KV, KV{Key: key, Value: v})
	}
	if v, ok := f.Get("general.alignment"); ok {
		a, ok := v.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return formatErr("general.alignment %v is not a power of two uint32", v)
		}
		f.Alignment = uint64(a)
	}
	return nil
}

// readTensors reads n tensor descriptions into f and checks their shapes,
// types and offsets as ggml does.
func (rd *reader) readTensors(f *File, n uint64) error {
	seen := map[string]bool{}
	for range n {
		var t TensorInfo
		var err error
		if t.Name, err = rd.str(); err != nil {
			return err
		}
		if len(t.Name) >= maxNameLen || seen[t.Name] {
			return formatErr("tensor name %q too long or duplicate", t.Name)
		}
		seen[t.Name] = true
		nd, err := rd.u32()
		if err != nil {
			return err
		}
		if nd > maxDims {
			return formatErr("tensor %s has %d dimensions", t.Name, nd)
		}
		elems := uint64(1)
		for range nd {
			d, err := rd.u64()
			if err != nil {
				return err
			}
			if d > math.MaxInt64 || (d > 0 && elems > math.MaxInt64/d) {
				return formatErr("tensor %s is too large", t.Name)
			}
			elems *= d
			t.Dims = append(t.Dims, d)
		}
		if t.Type, err = rd.u32(); err != nil {
			return err
		}
		bt, ok := tensorTypes[t.Type]
		if !ok {
			return formatErr("tensor %s has unknown type %d", t.Name, t.Type)
		}
		if len(t.Dims) > 0 && t.Dims[0]%uint64(bt[0]) != 0 {
			return formatErr("tensor %s row of %d is not a multiple of its block size %d", t.Name, t.Dims[0], bt[0])
		}
		if elems/uint64(bt[0]) > uint64(rd.size)/uint64(bt[1]) {
			return formatErr("tensor %s is larger than the file", t.Name)
		}
		if t.Offset, err = rd.u64(); err != nil {
			return err
		}
		if t.Offset != f.DataSize {
			return formatErr("tensor %s at offset %d, expected %d", t.Name, t.Offset, f.DataSize)
		}
		f.DataSize += Pad(t.Size(), f.Alignment)
		if f.DataSize > uint64(rd.size) {
			return formatErr("tensor %s lies past the end of the file: truncated", t.Name)
		}
		f.Tensors = append(f.Tensors, t)
	}
	return nil
}

// reader reads little-endian GGUF values, never past size bytes.
type reader struct {
	r    *bufio.Reader
	off  int64
	size int64
}

// bytes reads n bytes.
func (rd *reader) bytes(n int64) ([]byte, error) {
	if n < 0 || n > rd.size-rd.off {
		return nil, formatErr("truncated at byte %d", rd.off)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(rd.r, b); err != nil {
		return nil, formatErr("truncated at byte %d: %v", rd.off, err)
	}
	rd.off += n
	return b, nil
}

// u32 reads a uint32.
func (rd *reader) u32() (uint32, error) {
	b, err := rd.bytes(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// u64 reads a uint64.
func (rd *reader) u64() (uint64, error) {
	b, err := rd.bytes(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a uint64 count of items of at least minSize bytes each and
// checks that they can fit in the rest of the file.
func (rd *reader) count(minSize int64, what string) (uint64, error) {
	n, err := rd.u64()
	if err != nil {
		return 0, err
	}
	if n > uint64((rd.size-rd.off)/minSize) {
		return 0, formatErr("%d %s at byte %d cannot fit in the rest of the file: truncated", n, what, rd.off-8)
	}
	return n, nil
}

// str reads a length-prefixed string.
func (rd *reader) str() (string, error) {
	n, err := rd.u64()
	if err != nil {
		return "", err
	}
	if n > maxString {
		return "", formatErr("string of %d bytes at byte %d", n, rd.off-8)
	}
	b, err := rd.bytes(int64(n))
	return string(b), err
}
