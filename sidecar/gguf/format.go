// Package gguf reads and checks the header of a GGUF file (metadata and
// tensor descriptions) without cgo: sidecar/llamacpp reads every file with
// Read before llama.cpp sees it, so a truncated or corrupt file is an
// error instead of an abort in C++, and the sidecar and memory tell
// generation from embedding models by it. Package ggufgen writes tiny
// models in this format for tests.
package gguf

import (
	"errors"
	"fmt"
)

// Magic opens every GGUF file.
const Magic = "GGUF"

// Version is the current GGUF version; Read accepts 2 and 3.
const Version = 3

// DefaultAlignment aligns the tensor data when general.alignment is absent.
const DefaultAlignment = 32

// ErrFormat wraps every reason Read rejects a file.
var ErrFormat = errors.New("not a valid GGUF file")

// ValueType is the type of a metadata value in a GGUF file.
type ValueType uint32

// The metadata value types of the GGUF specification.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

// FixedSize is the encoded size of a scalar value type, 0 for strings and
// arrays.
func (t ValueType) FixedSize() int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// TensorF32 is the ggml type id of 32-bit float tensors.
const TensorF32 = 0

// tensorTypes gives, per ggml type id, the elements per block and the bytes
// per block (ggml-common.h); ids llama.cpp removed are absent.
var tensorTypes = map[uint32][2]int64{
	0: {1, 4}, 1: {1, 2}, // F32, F16
	2: {32, 18}, 3: {32, 20}, 6: {32, 22}, 7: {32, 24}, 8: {32, 34}, 9: {32, 36}, // Q4_0 … Q8_1
	10: {256, 84}, 11: {256, 110}, 12: {256, 144}, 13: {256, 176}, 14: {256, 210}, 15: {256, 292}, // Q2_K … Q8_K
	16: {256, 66}, 17: {256, 74}, 18: {256, 98}, 19: {256, 50}, 20: {32, 18}, // IQ2_XXS, IQ2_XS, IQ3_XXS, IQ1_S, IQ4_NL
	21: {256, 110}, 22: {256, 82}, 23: {256, 136}, // IQ3_S, IQ2_S, IQ4_XS
	24: {1, 1}, 25: {1, 2}, 26: {1, 4}, 27: {1, 8}, 28: {1, 8}, // I8, I16, I32, I64, F64
	29: {256, 56}, 30: {1, 2}, 34: {256, 54}, 35: {256, 66}, 39: {32, 17}, // IQ1_M, BF16, TQ1_0, TQ2_0, MXFP4
}

// maxDims and maxNameLen are ggml's GGML_MAX_DIMS and GGML_MAX_NAME.
const (
	maxDims    = 4
	maxNameLen = 64
)

// KV is one metadata pair. Value holds a Go value of the matching type:
// uint8, int8, uint16, int16, uint32, int32, float32, bool, string, uint64,
// int64, float64, or a slice of one of those for arrays.
type KV struct {
	Key   string
	Value any
}

// TensorInfo describes one tensor; Dims[0] is the row length (ggml's ne0).
type TensorInfo struct {
	Name string
	Dims []uint64
	// Type is the ggml type id (TensorF32, for instance).
	Type uint32
	// Offset is relative to the start of the data section.
	Offset uint64
}

// Size returns the tensor's data size in bytes.
func (t TensorInfo) Size() uint64 {
	bt := tensorTypes[t.Type]
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n / uint64(bt[0]) * uint64(bt[1])
}

// File is a parsed GGUF header.
type File struct {
	Version uint32
	// KV is the metadata in file order.
	KV      []KV
	Tensors []TensorInfo
	// Alignment is general.alignment or DefaultAlignment.
	Alignment uint64
	// DataOffset is where the tensor data starts in the file.
	DataOffset int64
	// DataSize is the size of the (padded) tensor data section.
	DataSize uint64
}

// Get returns the value of key.
func (f *File) Get(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// String returns the string value of key, or "" when absent or not a
// string.
func (f *File) String(key string) string {
	v, _ := f.Get(key)
	s, _ := v.(string)
	return s
}

// formatErr wraps ErrFormat with a reason.
func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// Pad rounds n up to a multiple of align (a power of two): where the
// tensor data starts, and each tensor's offset in it.
func Pad(n, align uint64) uint64 {
	return (n + align - 1) &^ (align - 1)
}
