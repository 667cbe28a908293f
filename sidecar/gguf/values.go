package gguf

import (
	"encoding/binary"
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
	size := t.FixedSize()
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
	size := t.FixedSize()
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
	size := t.FixedSize()
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
