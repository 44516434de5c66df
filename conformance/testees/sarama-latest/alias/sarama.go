// Package sarama gives the newest sarama (github.com/IBM/sarama, the version in
// ../go.mod, with ../shim compiled into it) the import path of the sarama 1.22.1
// testee, github.com/Shopify/sarama, so that one main.go (../../sarama/main.go) serves
// both releases. It forwards the entry points main.go calls, and those the peer
// benchmark's bench/peers/sarama/main.go calls (KwirePeerDecode*, FetchResponse, ...),
// so that the same benchmark can be built against the newest sarama too.
// run.sh builds with `replace github.com/Shopify/sarama => ./alias` (../go.mod).
package sarama

import ibm "github.com/IBM/sarama"

type (
	KwirePeerFrame = ibm.KwirePeerFrame
	FetchResponse  = ibm.FetchResponse
)

var (
	KwirePeerEncode               = ibm.KwirePeerEncode
	KwirePeerDecodeRequest        = ibm.KwirePeerDecodeRequest
	KwirePeerDecodeResponse       = ibm.KwirePeerDecodeResponse
	KwirePeerForgetEncodedRecords = ibm.KwirePeerForgetEncodedRecords
	KwireTesteeRelease            = ibm.KwireTesteeRelease
	KwireTesteeDecodeRequest      = ibm.KwireTesteeDecodeRequest
	KwireTesteeDecodeResponse     = ibm.KwireTesteeDecodeResponse
	KwireTesteeHasRequest         = ibm.KwireTesteeHasRequest
	KwireTesteeHasResponse        = ibm.KwireTesteeHasResponse
	KwireTesteeMaxVersion         = ibm.KwireTesteeMaxVersion
	KwireTesteeHeaderVersion      = ibm.KwireTesteeHeaderVersion
	KwireTesteeCheckVersions      = ibm.KwireTesteeCheckVersions
)
