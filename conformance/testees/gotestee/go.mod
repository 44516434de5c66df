// kwire's Go testee protocol, shared by conformance/testees/{sarama,sarama-latest,franz-go}
// (README.md). No dependencies; go 1.19 so that Debian 12's Go builds it too.
module kwire/conformance/testees/gotestee

go 1.19
