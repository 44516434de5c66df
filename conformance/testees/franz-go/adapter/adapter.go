// Package adapter goes from a whole Kafka frame (int32 size, header, body) to a
// message of franz-go's kmsg (github.com/twmb/franz-go/pkg/kmsg) and back to bytes,
// the way franz-go itself reads and writes frames. It is shared by kwire's conformance
// testee (conformance/testees/franz-go, main.go) and can be imported by a peer
// benchmark (bench/peers/franz-go) through a replace directive:
//
//	require kwire/conformance/testees/franz-go v0.0.0
//	replace kwire/conformance/testees/franz-go => ../../../conformance/testees/franz-go
//
// kmsg has the message bodies only (RequestForKey / ResponseForKey, SetVersion,
// ReadFrom / UnsafeReadFrom, AppendTo) and a request-frame writer
// (RequestFormatter.AppendRequest, api.go:228-263). It has no header reader and no
// response-frame writer: this package does what franz-go's own code does there,
// line for line (the citations are to franz-go v1.22.3 and kfake, the versions in
// README.md):
//
//   - Size prefix: kgo's brokerCxn.readSizeAndBody / parseReadSize
//     (pkg/kgo/broker.go:1691-1745): negative sizes and sizes above the default
//     MaxBrokerReadBytes (100 MiB, pkg/kgo/config.go:670) are refused, then exactly
//     size bytes are read (io.ReadFull). The frame is one message: a frame with
//     fewer bytes than its size is cut short (ReadFull fails), one with more holds
//     the start of another message (refused here, ErrFrameSize).
//   - Request header: kfake's clientConn.read (pkg/kfake/client_conn.go:120-132,
//     franz-go's fake broker, the only franz-go code that reads requests): api key,
//     api version, correlation id, nullable client id, kmsg.RequestForKey, SetVersion,
//     kmsg.SkipTags when the request is flexible, then ReadFrom on the rest. As kmsg's
//     own writer does (api.go:240-242), ControlledShutdown v0 has header v0 (no client
//     id). kfake would panic on an unknown key (RequestForKey returns nil); here it is
//     an error.
//   - Response header: kgo's brokerCxn.readResponse (pkg/kgo/broker.go:1807-1821):
//     correlation id, then kmsg.SkipTags when the response is flexible and not
//     ApiVersions (broker.go:1556), then ReadFrom on the rest. ApiVersions: when the
//     body's error code's low byte is 35 (UNSUPPORTED_VERSION) the body is read at
//     v0 (KIP-511), as kgo's connection start does (broker.go:1225-1245; handleResp
//     too, broker.go:2150-2153).
//   - Writing a request: kmsg.RequestFormatter.AppendRequest (what kgo writes,
//     broker.go:1553) with the client id read from the frame (null: no
//     FormatterClientID). Header tagged fields are always written as none.
//   - Writing a response: kfake's clientConn.write (client_conn.go:194-201): size,
//     correlation id, an empty tag section when flexible and not ApiVersions, AppendTo.
//
// kmsg leaves what it does not read alone: ReadFrom returns nil with bytes left over
// after the body (the kbin reader's Complete only reports running out,
// internal/kbin/primitives.go), and neither kgo (broker.go:2156) nor kfake
// (client_conn.go:132) looks at them. This package reports the same: it adds no
// check of its own.
package adapter

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadMode picks kmsg's reader: ReadFrom (what kgo uses) or UnsafeReadFrom (strings
// alias the input bytes instead of being copied).
type ReadMode int

const (
	Safe ReadMode = iota
	Unsafe
)

func (m ReadMode) String() string {
	if m == Unsafe {
		return "UnsafeReadFrom"
	}
	return "ReadFrom"
}

// MaxBrokerReadBytes is kgo's default limit on a frame's size (config.go:670).
const MaxBrokerReadBytes = 100 << 20

// ErrFrameSize: the frame has more bytes than its size prefix covers.
var ErrFrameSize = errors.New("the frame has bytes after the message its size prefix covers")

// Frame is one message as franz-go reads it.
type Frame struct {
	Request       bool
	Key           int16
	Version       int16 // the version the body was read at (ApiVersions' KIP-511 fallback: 0)
	CorrelationID int32
	ClientID      *string // request header v1+; nil is null
	HeaderVersion int     // 0, 1 or 2 (request), 0 or 1 (response), as read
	Req           kmsg.Request
	Resp          kmsg.Response
}

// Message is the kmsg body: Req or Resp.
func (f *Frame) Message() interface{ AppendTo([]byte) []byte } {
	if f.Request {
		return f.Req
	}
	return f.Resp
}

// MaxVersion is kmsg's newest version of the API (0 and false when kmsg has no type
// for the key). kmsg has every version from 0 to it.
func MaxVersion(key int16, request bool) (int16, bool) {
	if request {
		if r := kmsg.RequestForKey(key); r != nil {
			return r.MaxVersion(), true
		}
	} else if r := kmsg.ResponseForKey(key); r != nil {
		return r.MaxVersion(), true
	}
	return 0, false
}

// RequestHeaderVersion is the request header kmsg reads and writes for key and
// version: 0 for ControlledShutdown v0, 2 when flexible, else 1 (api.go:240-256).
func RequestHeaderVersion(key, version int16) int {
	r := kmsg.RequestForKey(key)
	if r == nil {
		return 1
	}
	r.SetVersion(version)
	switch {
	case key == 7 && version == 0:
		return 0
	case r.IsFlexible():
		return 2
	}
	return 1
}

// ResponseHeaderVersion is the response header franz-go reads and writes: 1 when the
// response is flexible and not ApiVersions, else 0 (kgo broker.go:1556).
func ResponseHeaderVersion(key, version int16) int {
	r := kmsg.ResponseForKey(key)
	if r == nil {
		return 0
	}
	r.SetVersion(version)
	if r.IsFlexible() && key != 18 {
		return 1
	}
	return 0
}

// message returns the frame's contents after the size prefix, as kgo's
// readSizeAndBody reads them.
func message(frame []byte) ([]byte, error) {
	if len(frame) < 4 {
		return nil, fmt.Errorf("%d-byte frame: no size prefix (io.ReadFull: unexpected EOF)", len(frame))
	}
	size := int32(binary.BigEndian.Uint32(frame))
	if size < 0 {
		return nil, fmt.Errorf("invalid negative response size %d", size) // broker.go:1712
	}
	if size > MaxBrokerReadBytes {
		return nil, fmt.Errorf("invalid large response size %d > limit %d", size, MaxBrokerReadBytes)
	}
	if int(size) > len(frame)-4 {
		return nil, fmt.Errorf("size prefix %d, %d bytes follow (io.ReadFull: unexpected EOF)",
			size, len(frame)-4)
	}
	if int(size) < len(frame)-4 {
		return nil, fmt.Errorf("%w: size %d, %d bytes follow", ErrFrameSize, size, len(frame)-4)
	}
	return frame[4:], nil
}

func readBody(m interface {
	ReadFrom([]byte) error
}, body []byte, mode ReadMode) error {
	if mode == Unsafe {
		if u, ok := m.(kmsg.UnsafeReadFrom); ok {
			return u.UnsafeReadFrom(body)
		}
	}
	return m.ReadFrom(body)
}

// ReadRequest reads a request frame as kfake's clientConn.read does.
func ReadRequest(frame []byte, mode ReadMode) (*Frame, error) {
	msg, err := message(frame)
	if err != nil {
		return nil, err
	}
	b := reader{src: msg}
	key := b.int16()
	version := b.int16()
	corr := b.int32()
	if !b.ok() {
		return nil, errors.New("request header: " + errNotEnoughData)
	}
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil, fmt.Errorf("kmsg has no request for api key %d (kmsg.RequestForKey is nil)", key)
	}
	req.SetVersion(version)
	f := &Frame{Request: true, Key: key, Version: version, CorrelationID: corr, Req: req, HeaderVersion: 0}
	if !(key == 7 && version == 0) {
		f.ClientID = b.nullableString()
		f.HeaderVersion = 1
		if req.IsFlexible() {
			kmsg.SkipTags(&b)
			f.HeaderVersion = 2
		}
	}
	if !b.ok() {
		return nil, errors.New("request header: " + errNotEnoughData)
	}
	if err := readBody(req, b.src, mode); err != nil {
		return nil, fmt.Errorf("kmsg %s: %w", mode, err)
	}
	return f, nil
}

// ReadResponse reads a response frame of key and version (the request's: a response
// does not name them) as kgo's readResponse and handleResp do.
func ReadResponse(frame []byte, key, version int16, mode ReadMode) (*Frame, error) {
	msg, err := message(frame)
	if err != nil {
		return nil, err
	}
	resp := kmsg.ResponseForKey(key)
	if resp == nil {
		return nil, fmt.Errorf("kmsg has no response for api key %d (kmsg.ResponseForKey is nil)", key)
	}
	resp.SetVersion(version)
	if len(msg) < 4 {
		return nil, errors.New("response header: " + errNotEnoughData) // broker.go:1807
	}
	f := &Frame{Key: key, Version: version, Resp: resp,
		CorrelationID: int32(binary.BigEndian.Uint32(msg))}
	raw := msg[4:]
	if resp.IsFlexible() && key != 18 {
		b := reader{src: raw}
		kmsg.SkipTags(&b)
		if !b.ok() {
			return nil, errors.New("response header tags: " + errNotEnoughData)
		}
		raw = b.src
		f.HeaderVersion = 1
	}
	// KIP-511: a broker that does not know the ApiVersions version answers v0 with
	// UNSUPPORTED_VERSION; kgo reads such a body at v0 (broker.go:1225-1245, 2150-2153).
	if key == 18 && len(raw) >= 2 && raw[1] == 35 {
		resp.SetVersion(0)
		f.Version = 0
	}
	if err := readBody(resp, raw, mode); err != nil {
		return nil, fmt.Errorf("kmsg %s: %w", mode, err)
	}
	return f, nil
}

// AppendTo writes the frame as franz-go writes it: requests through kmsg's
// RequestFormatter, responses as kfake does.
func (f *Frame) AppendTo(dst []byte) []byte {
	if f.Request {
		var fm *kmsg.RequestFormatter
		if f.ClientID != nil {
			fm = kmsg.NewRequestFormatter(kmsg.FormatterClientID(*f.ClientID))
		} else {
			fm = kmsg.NewRequestFormatter()
		}
		return fm.AppendRequest(dst, f.Req, f.CorrelationID)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	if f.Resp.IsFlexible() && f.Resp.Key() != 18 {
		dst = append(dst, 0)
	}
	dst = f.Resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(f.CorrelationID))
	return dst
}

const errNotEnoughData = "response did not contain enough data to be valid" // kbin.ErrNotEnoughData

// reader reads the header fields with kbin.Reader's semantics
// (kmsg/internal/kbin/primitives.go: Int16, Int32, NullableString, Uvarint, Span,
// Ok), which kfake and kgo use for headers; kbin is internal to kmsg and the
// exported copy is in the franz-go module, which this package does not pull in for
// five functions. It is a kmsg.TagReader with Ok, so kmsg.SkipTags stops when it
// runs out.
type reader struct {
	src []byte
	bad bool
}

func (b *reader) fail() { b.bad, b.src = true, nil }

func (b *reader) ok() bool { return !b.bad }

// Ok is for kmsg.SkipTags (api.go:385-389).
func (b *reader) Ok() bool { return !b.bad }

func (b *reader) int16() int16 {
	if len(b.src) < 2 {
		b.fail()
		return 0
	}
	r := int16(binary.BigEndian.Uint16(b.src))
	b.src = b.src[2:]
	return r
}

func (b *reader) int32() int32 {
	if len(b.src) < 4 {
		b.fail()
		return 0
	}
	r := int32(binary.BigEndian.Uint32(b.src))
	b.src = b.src[4:]
	return r
}

// Span: l bytes, or fail (also for l < 0).
func (b *reader) Span(l int) []byte {
	if len(b.src) < l || l < 0 {
		b.fail()
		return nil
	}
	r := b.src[:l:l]
	b.src = b.src[l:]
	return r
}

// nullableString: any negative length is null (kbin NullableString).
func (b *reader) nullableString() *string {
	l := b.int16()
	if l < 0 {
		return nil
	}
	s := string(b.Span(int(l)))
	return &s
}

// Uvarint: kbin's 32-bit uvarint; a 5th byte above 0x0f, or running out, fails.
func (b *reader) Uvarint() uint32 {
	var x uint32
	for i := 0; i < 5; i++ {
		if i >= len(b.src) {
			break
		}
		c := b.src[i]
		if i == 4 {
			if c > 0x0f {
				break
			}
			x |= uint32(c) << 28
			b.src = b.src[5:]
			return x
		}
		x |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			b.src = b.src[i+1:]
			return x
		}
	}
	b.fail()
	return 0
}
