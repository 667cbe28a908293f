package ggufgen

import (
	"encoding/binary"
	"fmt"
	"math"
)

var le = binary.LittleEndian

// value reads one metadata value of type t.
func (rd *reader) value(t ValueType) (any, error) {
	switch t {
	case TypeString:
		return rd.str()
	case TypeArray:
		return rd.array()
	}
	size := t.fixedSize()
	if size == 0 {
		return nil, formatErr("unknown value type %d", t)
	}
	b, err := rd.bytes(size)
	if err != nil {
		return nil, err
	}
	return decodeScalar(t, b), nil
}

// array reads an array value as a typed slice.
func (rd *reader) array() (any, error) {
	et, err := rd.u32()
	if err != nil {
		return nil, err
	}
	t := ValueType(et)
	size := t.fixedSize()
	if t == TypeString {
		size = 8
	} else if size == 0 {
		return nil, formatErr("arrays of type %d are not supported", t)
	}
	n, err := rd.count(size, "array elements")
	if err != nil {
		return nil, err
	}
	if n > maxArrayLen {
		return nil, formatErr("array of %d elements", n)
	}
	if t == TypeString {
		out := make([]string, n)
		for i := range out {
			if out[i], err = rd.str(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	b, err := rd.bytes(int64(n) * size)
	if err != nil {
		return nil, err
	}
	switch t {
	case TypeUint8:
		return decodeArray[uint8](t, b, n), nil
	case TypeInt8:
		return decodeArray[int8](t, b, n), nil
	case TypeUint16:
		return decodeArray[uint16](t, b, n), nil
	case TypeInt16:
		return decodeArray[int16](t, b, n), nil
	case TypeUint32:
		return decodeArray[uint32](t, b, n), nil
	case TypeInt32:
		return decodeArray[int32](t, b, n), nil
	case TypeFloat32:
		return decodeArray[float32](t, b, n), nil
	case TypeBool:
		return decodeArray[bool](t, b, n), nil
	case TypeUint64:
		return decodeArray[uint64](t, b, n), nil
	case TypeInt64:
		return decodeArray[int64](t, b, n), nil
	default:
		return decodeArray[float64](t, b, n), nil
	}
}

// decodeArray decodes n elements of type t from b.
func decodeArray[T any](t ValueType, b []byte, n uint64) []T {
	size := t.fixedSize()
	out := make([]T, n)
	for i := range out {
		out[i] = decodeScalar(t, b[int64(i)*size:]).(T)
	}
	return out
}

// decodeScalar decodes a fixed-size value of type t from the start of b.
func decodeScalar(t ValueType, b []byte) any {
	switch t {
	case TypeUint8:
		return b[0]
	case TypeInt8:
		return int8(b[0])
	case TypeBool:
		return b[0] != 0
	case TypeUint16:
		return le.Uint16(b)
	case TypeInt16:
		return int16(le.Uint16(b))
	case TypeUint32:
		return le.Uint32(b)
	case TypeInt32:
		return int32(le.Uint32(b))
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b))
	case TypeUint64:
		return le.Uint64(b)
	case TypeInt64:
		return int64(le.Uint64(b))
	default:
		return math.Float64frombits(le.Uint64(b))
	}
}

// encodeValue appends the type and the encoding of a metadata value: the
// scalar types, string, and slices of string, float32, int32 and uint32.
func encodeValue(buf []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case uint32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(TypeUint32)), v), nil
	case int32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(TypeInt32)), uint32(v)), nil
	case uint64:
		return le.AppendUint64(le.AppendUint32(buf, uint32(TypeUint64)), v), nil
	case float32:
		return le.AppendUint32(le.AppendUint32(buf, uint32(TypeFloat32)), math.Float32bits(v)), nil
	case bool:
		b := byte(0)
		if v {
			b = 1
		}
		return append(le.AppendUint32(buf, uint32(TypeBool)), b), nil
	case string:
		return appendString(le.AppendUint32(buf, uint32(TypeString)), v), nil
	case []string:
		buf = arrayHeader(buf, TypeString, len(v))
		for _, s := range v {
			buf = appendString(buf, s)
		}
		return buf, nil
	case []float32:
		buf = arrayHeader(buf, TypeFloat32, len(v))
		for _, f := range v {
			buf = le.AppendUint32(buf, math.Float32bits(f))
		}
		return buf, nil
	case []int32:
		buf = arrayHeader(buf, TypeInt32, len(v))
		for _, x := range v {
			buf = le.AppendUint32(buf, uint32(x))
		}
		return buf, nil
	case []uint32:
		buf = arrayHeader(buf, TypeUint32, len(v))
		for _, x := range v {
			buf = le.AppendUint32(buf, x)
		}
		return buf, nil
	}
	return nil, fmt.Errorf("ggufgen: cannot encode %T", v)
}

// arrayHeader appends the array type, element type and length.
func arrayHeader(buf []byte, t ValueType, n int) []byte {
	buf = le.AppendUint32(buf, uint32(TypeArray))
	return le.AppendUint64(le.AppendUint32(buf, uint32(t)), uint64(n))
}

// appendString appends a length-prefixed string.
func appendString(buf []byte, s string) []byte {
	return append(le.AppendUint64(buf, uint64(len(s))), s...)
}
