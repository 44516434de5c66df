// franz_go_testee runs franz-go's kmsg (github.com/twmb/franz-go/pkg/kmsg, the Kafka
// message types of the franz-go client) behind kwire's conformance testee protocol,
// version 1 (conformance/README.md, "Testing another implementation: the testee
// protocol"). Built and started by run.sh; see README.md. The frame <-> kmsg part is
// the adapter package (adapter/adapter.go), the protocol itself (requests, answers,
// the worker process) ../gotestee: this file says what kmsg implements and runs it.
//
// Operations: roundtrip (kmsg reads the frame and writes what it read) and validate
// (kmsg reads; ok when it accepts the frame). No decode or encode: kmsg's struct and
// field names are franz-go's own (Topics for TopicData, Partition for Index,
// ThrottleMillis for ThrottleTimeMs, ...), not Kafka's, so the JSON mapping cannot be
// derived from them mechanically (README.md).
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"

	"kwire/conformance/testees/franz-go/adapter"
	"kwire/conformance/testees/gotestee"
)

const kmsgPath = "github.com/twmb/franz-go/pkg/kmsg"

// kmsgVersion is the kmsg module this binary was built with (go.mod pins it).
func kmsgVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == kmsgPath {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

var logf = gotestee.Logf

// Read modes (KWIRE_TESTEE_FRANZ_GO_READ): safe = ReadFrom (kgo's), unsafe =
// UnsafeReadFrom, both = both, answering ReadFrom's result and logging every
// operation where the two disagree ("DISAGREE" on stderr).
var readMode = "safe"

// unsupported says why kmsg does not implement the vector's API, version or direction
// ("" when it does): no type for the key, or a version above kmsg's MaxVersion.
func unsupported(r *gotestee.Request) string {
	if r.Direction != "request" && r.Direction != "response" {
		return fmt.Sprintf("unknown direction %q", r.Direction)
	}
	max, ok := adapter.MaxVersion(r.APIKey, r.Direction == "request")
	if !ok {
		return fmt.Sprintf("kmsg %s has no %s type for api key %d (%s)", kmsgVersion(),
			r.Direction, r.APIKey, r.APIName)
	}
	if r.Version < 0 || r.Version > max {
		return fmt.Sprintf("kmsg %s knows %s v0-v%d (MaxVersion)", kmsgVersion(), r.APIName, max)
	}
	return ""
}

// read and write run kmsg; a panic inside it becomes a gotestee.Crash ("crashed").
func read(r *gotestee.Request, frame []byte, mode adapter.ReadMode) (f *adapter.Frame, err error) {
	defer gotestee.Recover(r, &err, "kmsg panicked", "kmsg panicked while reading ("+mode.String()+")")
	if r.Direction == "request" {
		return adapter.ReadRequest(frame, mode)
	}
	return adapter.ReadResponse(frame, r.APIKey, r.Version, mode)
}

func write(r *gotestee.Request, f *adapter.Frame) (out []byte, err error) {
	defer gotestee.Recover(r, &err, "kmsg panicked while writing", "kmsg panicked while writing")
	return f.AppendTo(nil), nil
}

// outcome of one read (and write, for roundtrip) in one mode.
type outcome struct {
	f   *adapter.Frame
	out []byte
	err error
}

func runMode(r *gotestee.Request, frame []byte, mode adapter.ReadMode, encode bool) outcome {
	// kmsg's readers never write to their input, but UnsafeReadFrom keeps strings that
	// alias it: give each read its own copy so that the modes cannot see each other.
	in := append([]byte(nil), frame...)
	f, err := read(r, in, mode)
	if err != nil || !encode {
		return outcome{f: f, err: err}
	}
	out, err := write(r, f)
	return outcome{f: f, out: out, err: err}
}

func describe(o outcome) string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	if o.out != nil {
		return fmt.Sprintf("ok, %d bytes %x", len(o.out), o.out)
	}
	return "ok"
}

var disagreements int

// run performs roundtrip or validate.
func run(r *gotestee.Request, frame []byte) gotestee.Answer {
	encode := r.Op == "roundtrip"
	mode := adapter.Safe
	if readMode == "unsafe" {
		mode = adapter.Unsafe
	}
	o := runMode(r, frame, mode, encode)
	if readMode == "both" {
		u := runMode(r, frame, adapter.Unsafe, encode)
		same := (o.err == nil) == (u.err == nil) && bytes.Equal(o.out, u.out)
		if same && o.err == nil && o.f != nil && u.f != nil {
			same = reflect.DeepEqual(o.f.Message(), u.f.Message())
		}
		if !same {
			disagreements++
			logf("seq %d %s %s: DISAGREE: ReadFrom %s; UnsafeReadFrom %s", r.Seq, r.ID, r.Op,
				describe(o), describe(u))
		}
	}
	if o.err != nil {
		return gotestee.Refuse(r, o.err, "")
	}
	if !encode {
		return gotestee.Answer{Seq: r.Seq, Result: "ok"}
	}
	if !bytes.Equal(o.out, frame) {
		logf("seq %d %s: re-encoding differs: %s", r.Seq, r.ID, diagnose(r, frame, o))
	}
	return gotestee.Answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(o.out)}
}

// diagnose says how the re-encoding differs from the frame (for the log only).
func diagnose(r *gotestee.Request, frame []byte, o outcome) string {
	s := gotestee.Difference(frame, o.out)
	if o.f.Version != r.Version {
		s += fmt.Sprintf("; body read at v%d", o.f.Version)
	}
	if g, err := read(r, o.out, adapter.Safe); err != nil {
		s += "; kmsg cannot read its own output: " + err.Error()
	} else if reflect.DeepEqual(g.Message(), o.f.Message()) && g.CorrelationID == o.f.CorrelationID &&
		reflect.DeepEqual(g.ClientID, o.f.ClientID) {
		s += "; it reads back to the same kmsg message (kmsg does not keep what differs)"
	} else {
		s += "; it reads back to another kmsg message"
	}
	return s
}

const usage = `Usage: franz_go_testee [--help]
A testee for kwire's conformance runner (protocol 1) on franz-go's kmsg: reads JSON
requests on stdin, one per line, and answers on stdout. Operations: roundtrip, validate.
Run it through conformance/testees/franz-go/run.sh, e.g.
  kwire conformance --testee conformance/testees/franz-go/run.sh conformance/vectors
kmsg runs in a worker process (this binary with --worker) whose address space is
limited (KWIRE_TESTEE_FRANZ_GO_MEM_MB, default 2048, on top of what it has at start):
an allocation beyond it kills the worker, the operation is answered "crashed" and a new
worker started. A panic is answered "crashed" too.
KWIRE_TESTEE_FRANZ_GO_READ=safe (ReadFrom, the default: what kgo uses), unsafe
(UnsafeReadFrom), or both (answers ReadFrom's result; logs DISAGREE on stderr
where UnsafeReadFrom differs).
`

// setup reads the environment; a worker limits its memory.
func setup(worker bool) {
	switch m := os.Getenv("KWIRE_TESTEE_FRANZ_GO_READ"); m {
	case "", "safe":
	case "unsafe", "both":
		readMode = m
	default:
		fmt.Fprintf(os.Stderr, "franz_go_testee: KWIRE_TESTEE_FRANZ_GO_READ=%q: safe, unsafe or both\n", m)
		os.Exit(2)
	}
	if worker {
		mb := uint64(2048)
		if s := os.Getenv("KWIRE_TESTEE_FRANZ_GO_MEM_MB"); s != "" {
			if v, err := strconv.ParseUint(s, 10, 64); err == nil && v > 0 {
				mb = v
			}
		}
		gotestee.LimitMemory(mb)
	}
}

// stackFunc names the kmsg function of a stack line ("" for other packages').
func stackFunc(line string) string {
	if !strings.HasPrefix(line, kmsgPath+".") {
		return ""
	}
	fn := strings.TrimPrefix(line, kmsgPath+".")
	if j := strings.LastIndex(fn, "("); j > 0 {
		fn = fn[:j]
	}
	return fn
}

func main() {
	gotestee.Main(&gotestee.Testee{
		Prog: "franz_go_testee", Name: "franz-go (kmsg)", Version: kmsgVersion(), Usage: usage,
		Operations:  []string{"roundtrip", "validate"},
		NoOperation: "kmsg's field names are not Kafka's: no mechanical JSON mapping",
		Unsupported: unsupported,
		Run:         run,
		Setup:       setup,
		WorkerDone: func() {
			if readMode == "both" {
				logf("UnsafeReadFrom disagreed with ReadFrom on %d operations of this worker", disagreements)
			}
		},
		Died:      "the worker running kmsg died: ",
		Library:   "kmsg",
		StackFunc: stackFunc,
	})
}
