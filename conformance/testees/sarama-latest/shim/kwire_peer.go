// Exported entry points into sarama's own frame codec, for the newest sarama
// (github.com/IBM/sarama, the version in ../go.mod): the same API as the peer benchmark's
// conformance/testees/sarama/shim/kwire_peer.go (KwirePeerFrame, KwirePeerDecodeRequest,
// KwirePeerDecodeResponse, KwirePeerEncode, KwirePeerForgetEncodedRecords), which is
// written against sarama 1.22.1 and does not compile against the newest release:
// decode and versionedDecode gained a metrics.Registry parameter, responseHeader's
// decode takes the header version (flexible versions, KIP-482), and a response's
// header is v0 or v1. conformance/testees/sarama-latest/run.sh copies the module's
// source into its cache and adds this file and kwire_testee.go to the copy; nothing of
// sarama is changed. A peer benchmark of the newest sarama can build the same way.
//
// Decode follows Broker.responseReceiver + handleResponsePromise (broker.go: the
// response header, 8 bytes or 9 with the empty tag buffer of header v1, through
// responseHeader's decode, then versionedDecode of the body with the request's
// version) and decodeRequest (request.go: size check, then request.decode: header v1
// or v2, body of the type allocateBody picks). Encode is sarama's two-pass encode() of
// a request{} as Broker.sendInternal does; of a response as MockBroker.handleRequests
// does (mockbroker.go: encode(res), then encodeHeader(res.headerVersion(), ...)).

package sarama

import (
	"encoding/binary"
	"fmt"
)

// KwirePeerFrame is one decoded frame.
type KwirePeerFrame struct {
	Request       bool
	APIKey        int16
	Version       int16
	CorrelationID int32
	ClientID      string      // requests
	Body          interface{} // *MetadataResponse, *FetchResponse, *OffsetCommitRequest, ...
	body          protocolBody
}

// kwireResponseHeaderLength is getHeaderLength (broker.go) as an int.
func kwireResponseHeaderLength(headerVersion int16) int { return int(getHeaderLength(headerVersion)) }

// KwirePeerDecodeResponse decodes a whole response frame (size prefix included) of
// (apiKey, version): every response type sarama has (allocateResponseBody).
func KwirePeerDecodeResponse(frame []byte, apiKey, version int16) (*KwirePeerFrame, error) {
	body := allocateResponseBody(apiKey, version)
	if body == nil {
		return nil, PacketDecodingError{fmt.Sprintf("no response body for api key %d", apiKey)}
	}
	hl := kwireResponseHeaderLength(body.headerVersion())
	if len(frame) < hl {
		return nil, PacketDecodingError{"frame shorter than its header"}
	}
	var h responseHeader
	if err := versionedDecode(frame[:hl], &h, body.headerVersion(), nil); err != nil {
		return nil, err
	}
	if int(h.length) != len(frame)-4 {
		return nil, PacketDecodingError{fmt.Sprintf("size %d, frame of %d bytes", h.length, len(frame))}
	}
	if err := versionedDecode(frame[hl:], body, version, nil); err != nil {
		return nil, err
	}
	return &KwirePeerFrame{APIKey: apiKey, Version: version, CorrelationID: h.correlationID,
		Body: body, body: body}, nil
}

// KwirePeerDecodeRequest decodes a whole request frame (size prefix included).
func KwirePeerDecodeRequest(frame []byte) (*KwirePeerFrame, error) {
	if len(frame) < 4 {
		return nil, PacketDecodingError{"frame shorter than its size"}
	}
	length := int32(binary.BigEndian.Uint32(frame))
	if length <= 4 || length > MaxRequestSize || int(length) != len(frame)-4 {
		return nil, PacketDecodingError{fmt.Sprintf("size %d, frame of %d bytes", length, len(frame))}
	}
	req := &request{}
	if err := decode(frame[4:], req, nil); err != nil {
		return nil, err
	}
	return kwirePeerRequestFrame(req), nil
}

func kwirePeerRequestFrame(req *request) *KwirePeerFrame {
	return &KwirePeerFrame{Request: true, APIKey: req.body.key(), Version: req.body.version(),
		CorrelationID: req.correlationID, ClientID: req.clientID, Body: req.body,
		body: req.body}
}

// KwirePeerEncode encodes f as a whole frame, size prefix included.
func KwirePeerEncode(f *KwirePeerFrame) ([]byte, error) {
	if f.Request {
		return encode(&request{correlationID: f.CorrelationID, clientID: f.ClientID,
			body: f.body}, nil)
	}
	// MockBroker.handleRequests + encodeHeader (mockbroker.go).
	payload, err := encode(f.body, nil)
	if err != nil {
		return nil, err
	}
	hl := kwireResponseHeaderLength(f.body.headerVersion())
	out := make([]byte, hl, hl+len(payload))
	binary.BigEndian.PutUint32(out, uint32(len(payload)+hl-4))
	binary.BigEndian.PutUint32(out[4:], uint32(f.CorrelationID))
	if hl > 8 {
		binary.PutUvarint(out[8:], 0) // the empty tag buffer of response header v1
	}
	return append(out, payload...), nil
}

// KwirePeerForgetEncodedRecords drops the record bytes that RecordBatch.encode keeps
// after its first run (compressedRecords), so that the next encode serialises the
// records again, as the first encode of a decoded FetchResponse does.
func KwirePeerForgetEncodedRecords(f *KwirePeerFrame) {
	r, ok := f.Body.(*FetchResponse)
	if !ok {
		return
	}
	for _, partitions := range r.Blocks {
		for _, block := range partitions {
			for _, records := range block.RecordsSet {
				if records.RecordBatch != nil {
					records.RecordBatch.compressedRecords = nil
				}
			}
		}
	}
}
