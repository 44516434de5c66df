//go:build sarama_latest

// The peer "sarama-latest": github.com/IBM/sarama as latest/go.mod and latest/go.sum pin
// it (the release of conformance/testees/sarama-latest), reached through that testee's
// alias package (github.com/Shopify/sarama) and shims (conformance/testees/sarama/shim/kwire_peer.go,
// shim/kwire_testee.go), which bench/peers/run.sh copies into the build tree and into a
// copy of the module: decode (every request and response type sarama has), encode.

package main

import "github.com/Shopify/sarama"

const peerName = "sarama-latest"

func peerRelease() string { return sarama.KwireTesteeRelease() }

// peerMaxVersion is the newest version sarama's type for the API accepts
// (isValidVersion); false when sarama has no such type.
func peerMaxVersion(apiKey int16, request bool) (int16, bool) {
	return sarama.KwireTesteeMaxVersion(apiKey, request)
}
