// kwire's conformance testee for franz-go's kmsg (README.md). The adapter package
// (adapter/) is importable by a peer benchmark through a replace directive. The testee
// protocol is ../gotestee (a local module, no download).
module kwire/conformance/testees/franz-go

go 1.26.0

require (
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	kwire/conformance/testees/gotestee v0.0.0
)

replace kwire/conformance/testees/gotestee => ../gotestee
