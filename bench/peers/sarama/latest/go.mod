// The module of the peer "sarama-latest" (bench/peers/run.sh): bench/peers/sarama/main.go
// built against the newest sarama, github.com/IBM/sarama, pinned here and in go.sum (the
// release of the conformance testee conformance/testees/sarama-latest, whose alias package
// and shims run.sh copies into the build tree: ./alias stands for
// github.com/Shopify/sarama, and a copy of sarama's module with the shims added replaces
// github.com/IBM/sarama). To move to a newer sarama: change the version here, in go.sum
// (go mod tidy in a copy of the build tree) and in the testee.
module kwire/bench/peers/sarama-latest

go 1.26.0

require github.com/Shopify/sarama v0.0.0-00010101000000-000000000000

require (
	github.com/IBM/sarama v1.61.1 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/eapache/go-resiliency v1.7.0 // indirect
	github.com/hashicorp/go-uuid v1.0.3 // indirect
	github.com/jcmturner/aescts/v2 v2.0.0 // indirect
	github.com/jcmturner/dnsutils/v2 v2.0.0 // indirect
	github.com/jcmturner/gofork v1.7.6 // indirect
	github.com/jcmturner/gokrb5/v8 v8.4.4 // indirect
	github.com/jcmturner/rpc/v2 v2.0.3 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/pierrec/lz4/v4 v4.1.31 // indirect
	github.com/rcrowley/go-metrics v0.0.0-20250401214520-65e299d6c5c9 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/Shopify/sarama => ./alias
