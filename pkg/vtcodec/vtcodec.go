// Package vtcodec is a gRPC codec that marshals messages with the code
// vtprotobuf generates (no reflection, pooled buffers) and every other
// message (health, reflection) with the standard protobuf codec. Both
// binaries install it on their connections with ForceCodecV2 options
// rather than replacing the global "proto" codec.
package vtcodec

import (
	"fmt"

	"github.com/exercisedb/exercisedb/pkg/bufpool"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// vtMessage is a message with vtprotobuf's generated methods.
type vtMessage interface {
	SizeVT() int
	MarshalToSizedBufferVT([]byte) (int, error)
	UnmarshalVT([]byte) error
}

// unsafeMessage can decode with its strings pointing into the input
// instead of copying each one.
type unsafeMessage interface {
	UnmarshalVTUnsafe([]byte) error
}

// buffers holds the buffers of marshalled messages, which overwrite
// every byte they are given.
var buffers mem.BufferPool = &bufpool.Pool{}

// Codec is the codec; its zero value is ready to use.
type Codec struct{}

var fallback = encoding.GetCodecV2(proto.Name)

// Name is "proto": on the wire nothing changes.
func (Codec) Name() string { return proto.Name }

// Marshal implements encoding.CodecV2.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(vtMessage)
	if !ok {
		return fallback.Marshal(v)
	}
	size := m.SizeVT()
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if _, err := m.MarshalToSizedBufferVT(buf); err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	buf := buffers.Get(size)
	if _, err := m.MarshalToSizedBufferVT(*buf); err != nil {
		buffers.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, buffers)}, nil
}

// Unmarshal implements encoding.CodecV2. A message that can alias its
// input gets a fresh copy of the data, never reused, so that its strings
// share one allocation instead of one each (a listing carries about 70).
//
// Its errors name the message's protobuf type, not the generated Go
// field the decoder stopped at ("wrong wireType = 2 for field Limit"):
// grpc-go sends them to the caller.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	var err error
	if m, ok := v.(unsafeMessage); ok {
		err = m.UnmarshalVTUnsafe(data.Materialize())
	} else if m, ok := v.(vtMessage); ok {
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		defer buf.Free()
		err = m.UnmarshalVT(buf.ReadOnlyData())
	} else {
		return fallback.Unmarshal(data, v)
	}
	if err != nil {
		return invalid(v)
	}
	return nil
}

// invalid is the error of bytes that do not decode as v.
func invalid(v any) error {
	if m, ok := v.(protoreflect.ProtoMessage); ok {
		return fmt.Errorf("the bytes are not a valid %s message", m.ProtoReflect().Descriptor().FullName())
	}
	return fmt.Errorf("the bytes are not a valid %T message", v)
}
