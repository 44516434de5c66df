//go:build !sarama_latest

// The peer "sarama": Debian's sarama 1.22.1 (bench/peers/run.sh builds it in GOPATH mode
// with conformance/testees/sarama/shim/kwire_peer.go added to a copy of the package).

package main

import "fmt"

const peerName = "sarama"

func peerRelease() string { return "1.22.1" }

// The newest version of each message that sarama 1.22.1 decodes and encodes: its
// MetadataResponse knows v0–v5 (requiredVersion stops at 5: Kafka 1.0), FetchResponse
// v0–v4 (Kafka 0.11), OffsetCommitRequest v0–v4 (encode refuses later versions). The
// shim has entry points for these three only.
var maxVersion = map[string]int16{
	"3/response": 5,
	"1/response": 4,
	"8/request":  4,
}

func peerMaxVersion(apiKey int16, request bool) (int16, bool) {
	d := "response"
	if request {
		d = "request"
	}
	max, ok := maxVersion[fmt.Sprintf("%d/%s", apiKey, d)]
	return max, ok
}
