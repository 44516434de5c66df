// Exported entry points into sarama's own frame codec for kwire's conformance testee
// (conformance/testees/sarama). run.sh copies Debian's sarama source into a temporary
// GOPATH and adds this file and the peer benchmark's shim
// (conformance/testees/sarama/shim/kwire_peer.go: KwirePeerFrame, KwirePeerDecodeRequest,
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

// KwireTesteeRelease is the sarama release compiled in (Debian 12's
// golang-github-shopify-sarama-dev; sarama 1.22.1 has no version string of its own).
func KwireTesteeRelease() string { return "1.22.1" }

// kwireTesteeMaxVersion: the newest version of each API that sarama 1.22.1 can send
// (requests: the versions its type's version() can return, i.e. the cases of
// requiredVersion; a type whose version() is the constant 0 knows only v0) and therefore
// decodes the response of (Broker decodes a response with the request's version).
// Derived from sarama's sources; README.md lists the reasons. Every later version is
// answered unsupported, as are flexible versions (KIP-482, which sarama 1.22.1 predates)
// and API keys sarama has no type for.
var kwireTesteeMaxVersion = map[int16]int16{
	0:  3, // Produce: ProduceRequest requiredVersion v1..v3 (produce_request.go:209)
	1:  4, // Fetch: FetchRequest requiredVersion v1..v4 (fetch_request.go:141)
	2:  1, // ListOffsets: OffsetRequest v0..v1 (offset_request.go:119)
	3:  5, // Metadata: MetadataRequest encode refuses > 5 (metadata_request.go:10)
	8:  4, // OffsetCommit: OffsetCommitRequest encode refuses > 4 (offset_commit_request.go:62)
	9:  5, // OffsetFetch: OffsetFetchRequest encode refuses > 5 (offset_fetch_request.go:10)
	10: 1, // FindCoordinator: v0..v1 (find_coordinator_request.go:54)
	11: 2, // JoinGroup: v0..v2 (join_group_request.go:137)
	12: 0, // Heartbeat: version() is 0 (heartbeat_request.go:42)
	13: 0, // LeaveGroup: version() is 0
	14: 0, // SyncGroup: version() is 0
	15: 0, // DescribeGroups: version() is 0
	16: 0, // ListGroups: version() is 0
	17: 1, // SaslHandshake: Version field, v0 and v1 sent (broker.go sendAndReceiveSASLHandshake)
	18: 0, // ApiVersions: version() is 0
	19: 2, // CreateTopics: v0..v2 (create_topics_request.go:82)
	20: 1, // DeleteTopics: v0..v1 (delete_topics_request.go:41)
	21: 0, // DeleteRecords: version() is 0
	22: 0, // InitProducerId: version() is 0
	24: 0, // AddPartitionsToTxn: version() is 0
	25: 0, // AddOffsetsToTxn: version() is 0
	26: 0, // EndTxn: version() is 0
	28: 0, // TxnOffsetCommit: version() is 0
	29: 1, // DescribeAcls: v0..v1 (acl_describe_request.go:28)
	30: 1, // CreateAcls: v0..v1 (acl_create_request.go:50)
	31: 1, // DeleteAcls: v0..v1 (acl_delete_request.go:51)
	32: 2, // DescribeConfigs: v0..v2 (describe_configs_request.go:103)
	33: 0, // AlterConfigs: version() is 0
	36: 0, // SaslAuthenticate: version() is 0
	37: 0, // CreatePartitions: version() is 0
	42: 0, // DeleteGroups: version() is 0
}

// KwireTesteeMaxVersion is the newest version of apiKey's requests (or responses) that
// sarama 1.22.1 implements, false when it has none (the table above).
func KwireTesteeMaxVersion(apiKey int16, request bool) (max int16, ok bool) {
	max, ok = kwireTesteeMaxVersion[apiKey]
	return max, ok
}

// KwireTesteeHeaderVersion: sarama 1.22.1 predates flexible versions; it writes and
// reads request header v1 and response header v0 only.
func KwireTesteeHeaderVersion(apiKey, version int16, request bool) int16 {
	if request {
		return 1
	}
	return 0
}

// KwireTesteeCheckVersions: the table above has no gaps.
func KwireTesteeCheckVersions() []string { return nil }

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
