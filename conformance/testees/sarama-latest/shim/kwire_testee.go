// Exported entry points into the newest sarama's own frame codec for kwire's conformance
// testee: the functions conformance/testees/sarama/main.go calls (the same names as
// conformance/testees/sarama/shim/kwire_testee.go, written for sarama 1.22.1), here for
// github.com/IBM/sarama at the version in ../go.mod. run.sh copies the module's source
// into its cache and adds this file and kwire_peer.go (KwirePeerFrame, KwirePeerEncode)
// to the copy; nothing of sarama is changed.
//
// Requests are decoded by sarama's own decodeRequest (request.go), reading the frame
// from an io.Reader exactly as a broker (MockBroker.handleRequests) reads one from a
// connection. Responses are decoded as Broker.responseReceiver + handleResponsePromise
// do (broker.go): the response header (getHeaderLength(res.headerVersion()) bytes:
// 8, or 9 for header v1) through responseHeader's decode, then versionedDecode of the
// body with the version of the request (here: the vector's version), into the type
// allocateResponseBody gives for the key (request.go; the types Broker's methods
// allocate).
//
// What sarama implements is sarama's own answer, not a table kept by hand: a key is
// known when allocateBody / allocateResponseBody has a type for it, a version when
// that type's isValidVersion() says so (the check restrictApiVersion and the admin
// client rely on), and the header version is the type's headerVersion().

package sarama

import (
	"bytes"
	"fmt"
	"strings"
)

// KwireTesteeRelease is the sarama release compiled in: the module version Go recorded
// for this package (sarama's own version(), version.go, which it sends as
// ClientSoftwareVersion), without the "v".
func KwireTesteeRelease() string { return strings.TrimPrefix(version(), "v") }

// KwireTesteeDecodeRequest decodes a request frame with sarama's decodeRequest. rest is
// the number of bytes of frame that decodeRequest left unread: a reader on a connection
// would take them as the start of the next request.
func KwireTesteeDecodeRequest(frame []byte) (f *KwirePeerFrame, rest int, err error) {
	r := bytes.NewReader(frame)
	req, _, err := decodeRequest(r)
	if err != nil {
		return nil, r.Len(), err
	}
	return kwirePeerRequestFrame(req), r.Len(), nil
}

// kwireBody is the type sarama reads (apiKey, version) into, nil when it has none.
func kwireBody(apiKey, version int16, request bool) protocolBody {
	if request {
		return allocateBody(apiKey, version)
	}
	return allocateResponseBody(apiKey, version)
}

// kwireMaxScan bounds the search for a type's newest version (Kafka's API versions are
// small: the newest of any API in Kafka 4.x is below 20).
const kwireMaxScan = 64

// KwireTesteeMaxVersion is the newest version sarama's type for apiKey accepts
// (isValidVersion), and false when sarama has no type for it. The versions it accepts
// are 0..max: kwireTesteeCheckVersions (run at start) says so otherwise.
func KwireTesteeMaxVersion(apiKey int16, request bool) (max int16, ok bool) {
	if kwireBody(apiKey, 0, request) == nil {
		return 0, false
	}
	max = -1
	for v := int16(0); v < kwireMaxScan; v++ {
		if kwireBody(apiKey, v, request).isValidVersion() {
			max = v
		}
	}
	return max, max >= 0
}

// KwireTesteeHeaderVersion is the header version sarama writes and reads for
// (apiKey, version): the type's headerVersion() (1 or 2 for requests, 0 or 1 for
// responses).
func KwireTesteeHeaderVersion(apiKey, version int16, request bool) int16 {
	if b := kwireBody(apiKey, version, request); b != nil {
		return b.headerVersion()
	}
	if request {
		return 1
	}
	return 0
}

// KwireTesteeCheckVersions returns the API keys whose valid versions are not 0..max
// (a gap, or a minimum above 0), as "key request|response: versions"; main.go logs them.
func KwireTesteeCheckVersions() []string {
	var odd []string
	for key := int16(0); key < 128; key++ {
		for _, request := range []bool{true, false} {
			max, ok := KwireTesteeMaxVersion(key, request)
			if !ok {
				continue
			}
			for v := int16(0); v <= max; v++ {
				if !kwireBody(key, v, request).isValidVersion() {
					odd = append(odd, fmt.Sprintf("key %d %s: v%d invalid below max v%d",
						key, map[bool]string{true: "request", false: "response"}[request], v, max))
				}
			}
		}
	}
	return odd
}

// KwireTesteeHasResponse says whether sarama has a response type for apiKey.
func KwireTesteeHasResponse(apiKey int16) bool { return allocateResponseBody(apiKey, 0) != nil }

// KwireTesteeHasRequest says whether sarama's decodeRequest knows apiKey.
func KwireTesteeHasRequest(apiKey int16) bool { return allocateBody(apiKey, 0) != nil }

// KwireTesteeDecodeResponse decodes a whole response frame (size prefix included) of
// (apiKey, version) as responseReceiver and handleResponsePromise do. rest is the number
// of bytes after the length the header gives: responseReceiver would leave them on the
// connection for the next response.
func KwireTesteeDecodeResponse(frame []byte, apiKey, version int16) (f *KwirePeerFrame, rest int, err error) {
	body := allocateResponseBody(apiKey, version)
	if body == nil {
		return nil, 0, PacketDecodingError{fmt.Sprintf("no response type for api key %d", apiKey)}
	}
	// sendInternal: "response versions must always match their corresponding request's".
	body.setVersion(version)
	hl := kwireResponseHeaderLength(body.headerVersion())
	if len(frame) < hl {
		return nil, 0, ErrInsufficientData // b.readFull of the header fails
	}
	var h responseHeader
	if err := versionedDecode(frame[:hl], &h, body.headerVersion(), nil); err != nil {
		return nil, 0, err
	}
	// responseReceiver reads decodedHeader.length-headerLength+4 bytes after the header.
	end := 4 + int(h.length)
	if end > len(frame) {
		return nil, 0, ErrInsufficientData // b.readFull of the body fails
	}
	if err := versionedDecode(frame[hl:end], body, version, nil); err != nil {
		return nil, len(frame) - end, err
	}
	return &KwirePeerFrame{APIKey: apiKey, Version: version, CorrelationID: h.correlationID,
		Body: body, body: body}, len(frame) - end, nil
}
