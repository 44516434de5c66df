package adapter

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func roundtrip(t *testing.T, request bool, key, version int16, frameHex string) *Frame {
	t.Helper()
	frame, err := hex.DecodeString(frameHex)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []ReadMode{Safe, Unsafe} {
		var f *Frame
		if request {
			f, err = ReadRequest(frame, mode)
		} else {
			f, err = ReadResponse(frame, key, version, mode)
		}
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if out := f.AppendTo(nil); !bytes.Equal(out, frame) {
			t.Fatalf("%s: re-encoded %x, want %x", mode, out, frame)
		}
	}
	f, _ := ReadRequest(frame, Safe)
	if !request {
		f, _ = ReadResponse(frame, key, version, Safe)
	}
	return f
}

func TestRequestHeaders(t *testing.T) {
	// ApiVersions v0 (header v1), null client id.
	f := roundtrip(t, true, 18, 0, "0000000a0012000000000007ffff")
	if f.ClientID != nil || f.CorrelationID != 7 || f.HeaderVersion != 1 {
		t.Fatalf("got %+v", f)
	}
	// ApiVersions v3 (header v2): client id "c", empty tags, body: two compact strings, tags.
	f = roundtrip(t, true, 18, 3, "00000011"+"0012000300000001000163"+"00"+"02610231"+"00")
	if f.ClientID == nil || *f.ClientID != "c" || f.HeaderVersion != 2 {
		t.Fatalf("got %+v", f)
	}
}

func TestResponseKIP511(t *testing.T) {
	// An ApiVersions v3 response answered at v0 with UNSUPPORTED_VERSION and one range.
	f := roundtrip(t, false, 18, 3, "00000010"+"00000001"+"0023"+"00000001"+"001200000003")
	if f.Version != 0 {
		t.Fatalf("read at v%d, want v0", f.Version)
	}
}

func TestTrailingBytesAreIgnoredByKmsg(t *testing.T) {
	frame, _ := hex.DecodeString("0000000b0012000000000007ffff00")
	f, err := ReadRequest(frame, Safe)
	if err != nil {
		t.Fatalf("kmsg rejected a trailing byte (it did not, up to v1.15.1): %v", err)
	}
	if out := f.AppendTo(nil); len(out) != len(frame)-1 {
		t.Fatalf("re-encoded %x", out)
	}
}

func TestFrameSize(t *testing.T) {
	for _, h := range []string{"0000000b0012000000000007ffff", "ffffffff", "000000", "0000000a0012000000000007ffff00"} {
		frame, _ := hex.DecodeString(h)
		if _, err := ReadRequest(frame, Safe); err == nil {
			t.Errorf("%s: accepted", h)
		}
	}
}
