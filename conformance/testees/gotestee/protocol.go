// Package gotestee is what kwire's Go conformance testees share (../sarama, whose
// main.go ../sarama-latest builds too, and ../franz-go): the testee protocol, version 1
// (conformance/README.md, "Testing another implementation: the testee protocol") with
// its request, answer and hello types, the request loop, the worker process that runs
// the library and is restarted when it dies (worker.go), the worker's memory cap, and
// the answers for a panic or a death inside the library. A testee's main.go only says
// what its library implements and runs the library's reader and writer on a frame:
//
//	func main() {
//		gotestee.Main(&gotestee.Testee{Prog: "x_testee", Name: "x", ...})
//	}
//
// It builds as a module (kwire/conformance/testees/gotestee, go.mod here; the testees'
// go.mod files point at it with a replace directive) and in GOPATH mode (../sarama/run.sh
// copies it to $GOPATH/src/kwire/conformance/testees/gotestee), with Go 1.19 (Debian 12)
// or newer.
package gotestee

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Request is one line from the runner.
type Request struct {
	Type          string `json:"type"`
	Protocol      int    `json:"protocol"`
	Seq           int64  `json:"seq"`
	Op            string `json:"op"`
	ID            string `json:"id"`
	APIKey        int16  `json:"api_key"`
	APIName       string `json:"api_name"`
	Version       int16  `json:"version"`
	Direction     string `json:"direction"`
	HeaderVersion int    `json:"header_version"`
	Frame         string `json:"frame"`
}

// Answer is the testee's answer to a Request: Result ok (with the Frame for
// roundtrip), rejected (Error), unsupported (Reason) or crashed (Error).
type Answer struct {
	Seq    int64  `json:"seq"`
	Result string `json:"result"`
	Frame  string `json:"frame,omitempty"`
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Hello answers the runner's hello.
type Hello struct {
	Type       string   `json:"type"`
	Protocol   int      `json:"protocol"`
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
}

// Testee is what differs from one library to another.
type Testee struct {
	Prog    string // the binary's name: the prefix of its log lines
	Name    string // the hello's name and version
	Version string
	Usage   string // printed by --help

	// Operations offered (the hello's list); any other is answered unsupported,
	// "operation OP not implemented (NoOperation)".
	Operations  []string
	NoOperation string

	// Unsupported says why the library does not implement the request's API key,
	// version or direction, or "" when it does.
	Unsupported func(r *Request) string
	// Run performs r.Op, one of Operations, on the request's frame (already decoded
	// from hex). A panic that it does not catch itself kills the worker (answered
	// crashed); Recover turns one into a Crash error, which Refuse answers.
	Run func(r *Request, frame []byte) Answer

	// Setup, if set, runs once the arguments are read: in the supervisor
	// (worker=false) and in each worker process (worker=true; the place for
	// LimitMemory). WorkerDone, if set, runs in a worker when its input ends.
	Setup      func(worker bool)
	WorkerDone func()
	// Commands are extra arguments that do something and exit (--list-supported).
	Commands map[string]func()

	// The worker's death: the runner gets "crashed" with Died + the Go runtime's
	// message + ", in Library's F at file.go:N", F being the innermost function on the
	// dying goroutine's stack for which StackFunc, given a stack line, returns a name
	// ("" for the lines of other packages).
	Died      string
	Library   string
	StackFunc func(line string) string
}

var prog = "gotestee"

// Logf writes a line to stderr (the runner's --testee-log), prefixed with the Prog.
func Logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, prog+": "+format+"\n", args...)
}

// Main reads the arguments (--help, --worker: be the worker, and t.Commands), then
// runs the supervisor, or the worker's loop.
func Main(t *Testee) {
	prog = t.Prog
	worker := false
	for _, a := range os.Args[1:] {
		switch a {
		case "-h", "--help":
			fmt.Print(t.Usage)
			return
		case "--worker":
			worker = true
		default:
			if cmd := t.Commands[a]; cmd != nil {
				cmd()
				return
			}
			fmt.Fprintf(os.Stderr, "%s: unexpected argument %q\n%s", t.Prog, a, t.Usage)
			os.Exit(2)
		}
	}
	if t.Setup != nil {
		t.Setup(worker)
	}
	if worker {
		t.serve(bufio.NewReaderSize(os.Stdin, 1<<20), bufio.NewWriter(os.Stdout))
		return
	}
	t.supervise()
}

func (t *Testee) hello() Hello {
	return Hello{Type: "hello", Protocol: 1, Name: t.Name, Version: t.Version,
		Operations: t.Operations}
}

// handle answers one request (in the worker).
func (t *Testee) handle(r *Request) Answer {
	offered := false
	for _, op := range t.Operations {
		offered = offered || op == r.Op
	}
	if !offered {
		return Answer{Seq: r.Seq, Result: "unsupported", Reason: "operation " + r.Op +
			" not implemented (" + t.NoOperation + ")"}
	}
	if why := t.Unsupported(r); why != "" {
		return Answer{Seq: r.Seq, Result: "unsupported", Reason: why}
	}
	frame, err := hex.DecodeString(r.Frame)
	if err != nil {
		return Answer{Seq: r.Seq, Result: "rejected", Error: "frame is not hex: " + err.Error()}
	}
	return t.Run(r, frame)
}

// sender writes one JSON answer per line and flushes it; a write error ends the
// process (the runner is gone).
func sender(out *bufio.Writer) func(v interface{}) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return func(v interface{}) {
		if err := enc.Encode(v); err != nil {
			Logf("write: %v", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			Logf("write: %v", err)
			os.Exit(1)
		}
	}
}

// lines calls f with each non-blank line of in (with its newline, if any) until the
// end of the input; a read error ends the process.
func lines(in *bufio.Reader, f func(line []byte)) {
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			f(line)
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			Logf("read: %v", err)
			os.Exit(1)
		}
	}
}

// serve answers the requests of in on out (the worker's loop).
func (t *Testee) serve(in *bufio.Reader, out *bufio.Writer) {
	send := sender(out)
	lines(in, func(line []byte) {
		var r Request
		if err := json.Unmarshal(line, &r); err != nil {
			Logf("not a JSON request (%v): %.200s", err, strings.TrimSpace(string(line)))
			send(Answer{Seq: r.Seq, Result: "rejected", Error: "bad request: " + err.Error()})
		} else if r.Type == "hello" {
			send(t.hello())
		} else {
			send(t.handle(&r))
		}
	})
	if t.WorkerDone != nil {
		t.WorkerDone()
	}
}

// Crash is the error of a panic inside the library: answered "crashed" (a failure
// whatever the vector expects), not "rejected": a real client or broker would crash
// there.
type Crash struct{ Msg string }

func (c Crash) Error() string { return c.Msg }

// Recover, deferred by a function with a named error result err that calls into the
// library, turns a panic into err = Crash{msg + ": " + the panic's value} and logs it
// with the stack, as "seq N ID: doing: value":
//
//	defer gotestee.Recover(r, &err, "lib panicked", "lib panicked while decoding")
func Recover(r *Request, err *error, msg, doing string) {
	if p := recover(); p != nil {
		*err = Crash{fmt.Sprintf("%s: %v", msg, p)}
		Logf("seq %d %s: %s: %v\n%s", r.Seq, r.ID, doing, p, debug.Stack())
	}
}

// Refuse answers the library's error: "crashed" for a Crash, else "rejected"; the
// prefix goes before the error's text.
func Refuse(r *Request, err error, prefix string) Answer {
	if c, ok := err.(Crash); ok {
		return Answer{Seq: r.Seq, Result: "crashed", Error: prefix + c.Msg}
	}
	return Answer{Seq: r.Seq, Result: "rejected", Error: prefix + err.Error()}
}

// Difference says where the library's re-encoding out first differs from the frame
// (for the log).
func Difference(frame, out []byte) string {
	at := 0
	for at < len(frame) && at < len(out) && frame[at] == out[at] {
		at++
	}
	return fmt.Sprintf("%d bytes, frame %d; first difference at byte %d", len(out), len(frame), at)
}
