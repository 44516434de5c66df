// Exported entry points into sarama's own frame codec for kwire's conformance testee
// (conformance/testees/sarama). run.sh copies Debian's sarama source into a temporary
// GOPATH and adds this file and the peer benchmark's shim
// (bench/peers/sarama/shim/kwire_peer.go: KwirePeerFrame, KwirePeerDecodeRequest,
// KwirePeerEncode) to the copy; nothing of sarama is changed.
//
// Requests are decoded by sarama's own decodeRequest (request.go), reading the frame
// from an io.Reader exactly as a broker (MockBroker) reads one from a connection.
// Responses are decoded as Broker.responseReceiver + sendAndReceive do (broker.go): the
// 8-byte header through responseHeader.decode, then versionedDecode of the body with the
// version of the request (here: the vector's version), into the type Broker's method for
// that API allocates.

package sarama

import (
	"bytes"
	"fmt"
)

// KwireTesteeDecodeRequest decodes a request frame with sarama's decodeRequest. rest is
// the number of bytes of frame that decodeRequest left unread: a reader on a connection
// would take them as the start of the next request.
func KwireTesteeDecodeRequest(frame []byte) (f *KwirePeerFrame, rest int, err error) {
	r := bytes.NewReader(frame)
	req, _, err := decodeRequest(r)
	if err != nil {
		return nil, r.Len(), err
	}
	return &KwirePeerFrame{Request: true, APIKey: req.body.key(), Version: req.body.version(),
		CorrelationID: req.correlationID, ClientID: req.clientID, Body: req.body,
		body: req.body}, r.Len(), nil
}

type kwireResponseBody interface {
	encoder
	versionedDecoder
}

// kwireAllocateResponse is the response type that Broker's method for apiKey decodes
// into (broker.go), nil when sarama has none.
func kwireAllocateResponse(apiKey int16) kwireResponseBody {
	switch apiKey {
	case 0:
		return &ProduceResponse{}
	case 1:
		return &FetchResponse{}
	case 2:
		return &OffsetResponse{}
	case 3:
		return &MetadataResponse{}
	case 8:
		return &OffsetCommitResponse{}
	case 9:
		return &OffsetFetchResponse{}
	case 10:
		return &FindCoordinatorResponse{}
	case 11:
		return &JoinGroupResponse{}
	case 12:
		return &HeartbeatResponse{}
	case 13:
		return &LeaveGroupResponse{}
	case 14:
		return &SyncGroupResponse{}
	case 15:
		return &DescribeGroupsResponse{}
	case 16:
		return &ListGroupsResponse{}
	case 17:
		return &SaslHandshakeResponse{}
	case 18:
		return &ApiVersionsResponse{}
	case 19:
		return &CreateTopicsResponse{}
	case 20:
		return &DeleteTopicsResponse{}
	case 21:
		return &DeleteRecordsResponse{}
	case 22:
		return &InitProducerIDResponse{}
	case 24:
		return &AddPartitionsToTxnResponse{}
	case 25:
		return &AddOffsetsToTxnResponse{}
	case 26:
		return &EndTxnResponse{}
	case 28:
		return &TxnOffsetCommitResponse{}
	case 29:
		return &DescribeAclsResponse{}
	case 30:
		return &CreateAclsResponse{}
	case 31:
		return &DeleteAclsResponse{}
	case 32:
		return &DescribeConfigsResponse{}
	case 33:
		return &AlterConfigsResponse{}
	case 36:
		return &SaslAuthenticateResponse{}
	case 37:
		return &CreatePartitionsResponse{}
	case 42:
		return &DeleteGroupsResponse{}
	}
	return nil
}

// KwireTesteeHasResponse says whether sarama has a response type for apiKey.
func KwireTesteeHasResponse(apiKey int16) bool { return kwireAllocateResponse(apiKey) != nil }

// KwireTesteeHasRequest says whether sarama's decodeRequest knows apiKey.
func KwireTesteeHasRequest(apiKey int16) bool { return allocateBody(apiKey, 0) != nil }

// KwireTesteeDecodeResponse decodes a whole response frame (size prefix included) of
// (apiKey, version). rest is the number of bytes after the length the header gives:
// responseReceiver would leave them on the connection for the next response.
func KwireTesteeDecodeResponse(frame []byte, apiKey, version int16) (f *KwirePeerFrame, rest int, err error) {
	body := kwireAllocateResponse(apiKey)
	if body == nil {
		return nil, 0, PacketDecodingError{fmt.Sprintf("no response type for api key %d", apiKey)}
	}
	if len(frame) < 8 {
		return nil, 0, ErrInsufficientData // io.ReadFull of the 8-byte header fails
	}
	var h responseHeader
	if err := decode(frame[:8], &h); err != nil {
		return nil, 0, err
	}
	end := 4 + int(h.length)
	if end > len(frame) {
		return nil, 0, ErrInsufficientData // io.ReadFull of the body fails
	}
	if err := versionedDecode(frame[8:end], body, version); err != nil {
		return nil, len(frame) - end, err
	}
	return &KwirePeerFrame{APIKey: apiKey, Version: version, CorrelationID: h.correlationID,
		Body: body, body: body}, len(frame) - end, nil
}
