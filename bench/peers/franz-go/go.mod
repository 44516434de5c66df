// kwire's peer benchmark of franz-go's kmsg (bench/peers/run.sh --peers franz-go; see
// bench/README.md, "Peers"). kmsg is pinned here and in go.sum, at the version of the
// conformance testee whose adapter (frame bytes -> kmsg message -> bytes) it imports.
module kwire/bench/peers/franz-go

go 1.26.0

require (
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	kwire/conformance/testees/franz-go v0.0.0
)

replace kwire/conformance/testees/franz-go => ../../../conformance/testees/franz-go
