package ggufgen

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/kwsdev/kws/sidecar/gguf"
)

var le = binary.LittleEndian

// encodeValue appends the type and the encoding of a metadata value: the
// scalar types, string, and slices of string, float32, int32 and uint32.
func encodeValue(buf []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case uint32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(gguf.TypeUint32)), v), nil
	case int32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(gguf.TypeInt32)), uint32(v)), nil
	case uint64:
		return le.AppendUint64(le.AppendUint32(buf, uint32(gguf.TypeUint64)), v), nil
	case float32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(gguf.TypeFloat32)), math.Float32bits(v)), nil
	case bool:
		b := byte(0)
		if v {
			b = 1
		}
		return append(le.AppendUint32(buf, uint32(gguf.TypeBool)), b), nil
	case string:
		return appendString(le.AppendUint32(buf, uint32(gguf.TypeString)), v), nil
	case []string:
		buf = arrayHeader(buf, gguf.TypeString, len(v))
		for _, s := range v {
			buf = appendString(buf, s)
		}
		return buf, nil
	case []float32:
		buf = arrayHeader(buf, gguf.TypeFloat32, len(v))
		for _, f := range v {
			buf = le.AppendUint32(buf, math.Float32bits(f))
		}
		return buf, nil
	case []int32:
		buf = arrayHeader(buf, gguf.TypeInt32, len(v))
		for _, x := range v {
			buf = le.AppendUint32(buf, uint32(x))
		}
		return buf, nil
	case []uint32:
		buf = arrayHeader(buf, gguf.TypeUint32, len(v))
		for _, x := range v {
			buf = le.AppendUint32(buf, x)
		}
		return buf, nil
	}
	return nil, fmt.Errorf("ggufgen: cannot encode %T", v)
}

// arrayHeader appends the array type, element type and length.
func arrayHeader(buf []byte, t gguf.ValueType, n int) []byte {
	buf = le.AppendUint32(buf, uint32(gguf.TypeArray))
	return le.AppendUint64(le.AppendUint32(buf, uint32(t)), uint64(n))
}

// appendString appends a length-prefixed string.
func appendString(buf []byte, s string) []byte {
	return append(le.AppendUint64(buf, uint64(len(s))), s...)
}
