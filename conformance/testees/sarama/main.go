// sarama_testee runs sarama's own request/response decoders and encoders behind kwire's
// conformance testee protocol, version 1 (conformance/README.md, "Testing another
// implementation: the testee protocol"): Debian's golang-github-shopify-sarama-dev
// 1.22.1, built and started by run.sh (README.md), or the newest github.com/IBM/sarama,
// built by ../sarama-latest/run.sh under this import path (../sarama-latest/README.md).
// The protocol itself (requests, answers, the worker process) is ../gotestee's; this
// file says what sarama implements and runs sarama on a frame.
//
// Operations: roundtrip (sarama decodes the frame into its own types and re-encodes
// them) and validate (sarama decodes; ok when it accepts the frame). No decode or encode:
// sarama's structs do not carry Kafka's field names (maps keyed by topic, durations,
// merged fields), so there is no honest mapping onto the JSON mapping.
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/Shopify/sarama"
	"kwire/conformance/testees/gotestee"
)

// What sarama implements (API keys, versions, header versions) and its release come from
// the shim compiled into sarama's package: shim/kwire_testee.go for Debian's 1.22.1 (a
// table derived from its sources), ../sarama-latest/shim/kwire_testee.go for the newest
// github.com/IBM/sarama (the library's own isValidVersion and headerVersion).
var saramaVersion = sarama.KwireTesteeRelease()

var logf = gotestee.Logf

// unsupported returns why sarama does not implement (key, version, direction), or ""
// when it does.
func unsupported(r *gotestee.Request) string {
	request := r.Direction == "request"
	if r.Direction != "request" && r.Direction != "response" {
		return fmt.Sprintf("unknown direction %q", r.Direction)
	}
	max, ok := sarama.KwireTesteeMaxVersion(r.APIKey, request)
	has := ok && ((request && sarama.KwireTesteeHasRequest(r.APIKey)) ||
		(!request && sarama.KwireTesteeHasResponse(r.APIKey)))
	if !has {
		return fmt.Sprintf("sarama %s has no %s type for api key %d (%s)", saramaVersion,
			r.Direction, r.APIKey, r.APIName)
	}
	if r.Version < 0 || r.Version > max {
		return fmt.Sprintf("sarama %s handles %s %ss v0-v%d only", saramaVersion, r.APIName,
			r.Direction, max)
	}
	// Within sarama's versions its header version is Kafka's (1.22.1: request header v1,
	// response header v0, no flexible versions at all). A disagreement would be sarama's
	// bug: it is tested, not hidden, and logged.
	if hv := sarama.KwireTesteeHeaderVersion(r.APIKey, r.Version, request); int(hv) != r.HeaderVersion {
		logf("seq %d %s: sarama %s uses %s header v%d for %s v%d, the vector header v%d",
			r.Seq, r.ID, saramaVersion, r.Direction, hv, r.APIName, r.Version, r.HeaderVersion)
	}
	return ""
}

// decodeFrame runs sarama's decoder on the frame. A panic inside sarama is caught and
// returned as a gotestee.Crash (answered "crashed").
func decodeFrame(r *gotestee.Request, frame []byte) (f *sarama.KwirePeerFrame, rest int, err error) {
	defer gotestee.Recover(r, &err, "sarama panicked", "sarama panicked while decoding")
	if r.Direction == "request" {
		return sarama.KwireTesteeDecodeRequest(frame)
	}
	return sarama.KwireTesteeDecodeResponse(frame, r.APIKey, r.Version)
}

func encodeFrame(r *gotestee.Request, f *sarama.KwirePeerFrame) (out []byte, err error) {
	defer gotestee.Recover(r, &err, "sarama panicked", "sarama panicked while encoding")
	return sarama.KwirePeerEncode(f)
}

// decodeWhole decodes the frame and also refuses bytes after the message: the vector's
// frame is one message, and a reader on a connection (decodeRequest, responseReceiver)
// would take them as the start of the next message.
func decodeWhole(r *gotestee.Request, frame []byte) (*sarama.KwirePeerFrame, error) {
	f, rest, err := decodeFrame(r, frame)
	if err != nil {
		return nil, err
	}
	if rest != 0 {
		return nil, fmt.Errorf("the size prefix covers %d bytes of the %d-byte frame: "+
			"sarama would read the last %d as the next message", len(frame)-4-rest, len(frame), rest)
	}
	return f, nil
}

// Retry budget for roundtrip: sarama keeps topics, partitions, members, configs, ... in
// Go maps, whose iteration order is randomised per iteration, so one decoded message
// encodes in several orders. roundtrip passes when some encode writes the frame's order.
const (
	maxEncodes  = 4096
	encodeSpend = 2 * time.Second
)

func roundtrip(r *gotestee.Request, frame []byte) gotestee.Answer {
	f, err := decodeWhole(r, frame)
	if err != nil {
		return gotestee.Refuse(r, err, "")
	}
	first, err := encodeFrame(r, f)
	if err != nil {
		return gotestee.Refuse(r, err, "sarama decoded the frame but cannot encode what it decoded: ")
	}
	if bytes.Equal(first, frame) {
		return gotestee.Answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(first)}
	}
	// Another order? Only worth trying when the size matches. Each try decodes afresh:
	// sarama caches a record batch's encoded records after the first encode.
	if len(first) == len(frame) {
		start := time.Now()
		for i := 2; i <= maxEncodes && time.Since(start) < encodeSpend; i++ {
			g, err := decodeWhole(r, frame)
			if err != nil {
				break
			}
			again, err := encodeFrame(r, g)
			if err != nil {
				break
			}
			if bytes.Equal(again, frame) {
				logf("seq %d %s: re-encoded byte for byte at encode %d (the earlier ones: "+
					"Go map order)", r.Seq, r.ID, i)
				return gotestee.Answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(again)}
			}
		}
	}
	logf("seq %d %s: re-encoding differs: %s", r.Seq, r.ID, diagnose(r, frame, first, f))
	return gotestee.Answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(first)}
}

// diagnose says how sarama's re-encoding differs from the frame (for the log only).
func diagnose(r *gotestee.Request, frame, out []byte, f *sarama.KwirePeerFrame) string {
	s := gotestee.Difference(frame, out)
	if g, err := decodeWhole(r, out); err != nil {
		s += "; sarama cannot decode its own re-encoding: " + err.Error()
	} else if reflect.DeepEqual(g.Body, f.Body) && g.CorrelationID == f.CorrelationID &&
		g.ClientID == f.ClientID {
		s += "; it decodes to the same sarama message (the difference is order, or something sarama does not keep)"
	} else {
		s += "; it decodes to another sarama message"
	}
	return s
}

func validate(r *gotestee.Request, frame []byte) gotestee.Answer {
	if _, err := decodeWhole(r, frame); err != nil {
		return gotestee.Refuse(r, err, "")
	}
	return gotestee.Answer{Seq: r.Seq, Result: "ok"}
}

func run(r *gotestee.Request, frame []byte) gotestee.Answer {
	if r.Op == "roundtrip" {
		return roundtrip(r, frame)
	}
	return validate(r, frame)
}

const usage = `Usage: sarama_testee [--help] [--list-supported]
A testee for kwire's conformance runner (protocol 1): reads JSON requests on stdin, one
per line, and answers on stdout. Operations: roundtrip, validate. Run it through
conformance/testees/sarama/run.sh, e.g.
  kwire conformance --testee conformance/testees/sarama/run.sh conformance/vectors
It runs sarama in a worker process (itself, with --worker): some frames make sarama
allocate a slice of 2^31 elements and the Go runtime dies ("fatal error: runtime: out of
memory", which recover cannot catch); such an operation is answered "crashed" with
"sarama crashed the process: ..." and a new worker is started. A panic that recover
catches is answered "crashed" too: either is a failure, whatever the vector expects.
--list-supported prints the API keys and versions sarama implements, then exits.
`

// listSupported prints, per API key sarama has a type for, the versions it implements
// and the header version of each, for requests and responses.
func listSupported() {
	fmt.Printf("sarama %s\n", saramaVersion)
	for key := int16(0); key < 128; key++ {
		for _, request := range []bool{true, false} {
			max, ok := sarama.KwireTesteeMaxVersion(key, request)
			if !ok || (request && !sarama.KwireTesteeHasRequest(key)) ||
				(!request && !sarama.KwireTesteeHasResponse(key)) {
				continue
			}
			dir, headers := "response", ""
			if request {
				dir = "request"
			}
			for v := int16(0); v <= max; v++ {
				headers += fmt.Sprint(sarama.KwireTesteeHeaderVersion(key, v, request))
			}
			fmt.Printf("%3d %-8s v0-v%-2d header versions by version: %s\n", key, dir, max, headers)
		}
	}
	for _, odd := range sarama.KwireTesteeCheckVersions() {
		fmt.Println("warning:", odd)
	}
}

// saramaFrame matches a stack line of a sarama function (for the crash report).
var saramaFrame = regexp.MustCompile(`^github\.com/(?:Shopify|IBM)/sarama\.((?:\(\*?\w+\)\.)?\w+)\(`)

// stackFunc names the sarama function of a stack line, "" for others and for the
// shims' (Kwire*) entry points.
func stackFunc(line string) string {
	m := saramaFrame.FindStringSubmatch(line)
	if m == nil || strings.Contains(m[1], "Kwire") {
		return ""
	}
	return m[1]
}

func main() {
	gotestee.Main(&gotestee.Testee{
		Prog: "sarama_testee", Name: "sarama", Version: saramaVersion, Usage: usage,
		Operations:  []string{"roundtrip", "validate"},
		NoOperation: "sarama's structs have no honest JSON mapping",
		Unsupported: unsupported,
		Run:         run,
		Setup: func(worker bool) {
			if worker {
				return
			}
			for _, odd := range sarama.KwireTesteeCheckVersions() {
				logf("warning: sarama's valid versions are not 0..max: %s", odd)
			}
		},
		Commands:  map[string]func(){"--list-supported": listSupported},
		Died:      "sarama crashed the process: ",
		Library:   "sarama",
		StackFunc: stackFunc,
	})
}
