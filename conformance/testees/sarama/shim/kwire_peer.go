// Exported entry points into sarama's own frame codec: the sarama adapter's one home, for
// the testee (conformance/testees/sarama/run.sh) and kwire's peer benchmark
// (bench/peers/run.sh). sarama 1.22.1 decodes and encodes messages only through
// unexported functions (decode, versionedDecode, encode, the types' decode/encode
// methods, responseHeader, request), which its Broker and MockBroker call. run.sh copies
// Debian's sarama source (/usr/share/gocode/src/github.com/Shopify/sarama) into a
// temporary GOPATH and adds this one file to the copy; nothing of sarama is changed.
//
// Decode follows Broker.responseReceiver + sendAndReceive (responses: the 8-byte
// size + correlation id header through responseHeader.decode, then versionedDecode of
// the body) and decodeRequest (requests: size check, then request.decode: header, body
// of the API key's type), on a frame already in memory (no io.Reader copy).
// Encode is sarama's two-pass encode() (prepEncoder sizes it, realEncoder writes one
// buffer): of a request{} as Broker.send does; of a response as request.encode does
// for requests (a lengthField around correlation id + body; sarama has no response
// frame encoder, MockBroker writes the header and encode(body) separately).

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
	body          encoder
}

// KwirePeerDecodeResponse decodes a whole response frame (size prefix included) of
// (apiKey, version). Supported bodies: Metadata (3) and Fetch (1).
func KwirePeerDecodeResponse(frame []byte, apiKey, version int16) (*KwirePeerFrame, error) {
	if len(frame) < 8 {
		return nil, PacketDecodingError{"frame shorter than its header"}
	}
	var h responseHeader
	if err := decode(frame[:8], &h); err != nil {
		return nil, err
	}
	if int(h.length) != len(frame)-4 {
		return nil, PacketDecodingError{fmt.Sprintf("size %d, frame of %d bytes", h.length, len(frame))}
	}
	var body interface {
		encoder
		versionedDecoder
	}
	switch apiKey {
	case 1:
		body = &FetchResponse{}
	case 3:
		body = &MetadataResponse{}
	default:
		return nil, PacketDecodingError{fmt.Sprintf("no response body for api key %d", apiKey)}
	}
	if err := versionedDecode(frame[8:], body, version); err != nil {
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
	if err := decode(frame[4:], req); err != nil {
		return nil, err
	}
	return &KwirePeerFrame{Request: true, APIKey: req.body.key(), Version: req.body.version(),
		CorrelationID: req.correlationID, ClientID: req.clientID, Body: req.body,
		body: req.body}, nil
}

type kwirePeerResponse struct {
	correlationID int32
	body          encoder
}

func (r *kwirePeerResponse) encode(pe packetEncoder) error {
	pe.push(&lengthField{})
	pe.putInt32(r.correlationID)
	if err := r.body.encode(pe); err != nil {
		return err
	}
	return pe.pop()
}

// KwirePeerEncode encodes f as a whole frame, size prefix included.
func KwirePeerEncode(f *KwirePeerFrame) ([]byte, error) {
	if f.Request {
		return encode(&request{correlationID: f.CorrelationID, clientID: f.ClientID,
			body: f.body.(protocolBody)}, nil)
	}
	return encode(&kwirePeerResponse{correlationID: f.CorrelationID, body: f.body}, nil)
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
