// sarama_testee runs sarama's (Debian's golang-github-shopify-sarama-dev, 1.22.1) own
// request/response decoders and encoders behind kwire's conformance testee protocol,
// version 1 (conformance/README.md, "Testing another implementation: the testee
// protocol"). Built and started by run.sh; see README.md.
//
// Operations: roundtrip (sarama decodes the frame into its own types and re-encodes
// them) and validate (sarama decodes; ok when it accepts the frame). No decode or encode:
// sarama's structs do not carry Kafka's field names (maps keyed by topic, durations,
// merged fields), so there is no honest mapping onto the JSON mapping.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Shopify/sarama"
)

const saramaVersion = "1.22.1"

// maxVersion: the newest version of each API that sarama 1.22.1 can send (requests: the
// versions its type's version() can return, i.e. the cases of requiredVersion; a type
// whose version() is the constant 0 knows only v0) and therefore decodes the response of
// (Broker decodes a response with the request's version). Derived from sarama's sources;
// README.md lists the reasons. Every later version is answered unsupported, as are flexible
// versions (KIP-482, which sarama 1.22.1 predates) and API keys sarama has no type for.
var maxVersion = map[int16]int16{
	0:  3, // Produce: ProduceRequest requiredVersion v1..v3 (produce_request.go:209)
	1:  4, // Fetch: FetchRequest requiredVersion v1..v4 (fetch_request.go:141)
	2:  1, // ListOffsets: OffsetRequest v0..v1 (offset_request.go:119)
	3:  5, // Metadata: MetadataRequest encode refuses > 5 (metadata_request.go:10)
	8:  4, // OffsetCommit: OffsetCommitRequest encode refuses > 4 (offset_commit_request.go:62)
	9:  5, // OffsetFetch: OffsetFetchRequest encode refuses > 5 (offset_fetch_request.go:10)
	10: 1, // FindCoordinator: v0..v1 (find_coordinator_request.go:54)
	11: 2, // JoinGroup: v0..v2 (join_group_request.go:137)
	12: 0, // Heartbeat: version() is 0 (heartbeat_request.go:42)
	13: 0, // LeaveGroup: version() is 0
	14: 0, // SyncGroup: version() is 0
	15: 0, // DescribeGroups: version() is 0
	16: 0, // ListGroups: version() is 0
	17: 1, // SaslHandshake: Version field, v0 and v1 sent (broker.go sendAndReceiveSASLHandshake)
	18: 0, // ApiVersions: version() is 0
	19: 2, // CreateTopics: v0..v2 (create_topics_request.go:82)
	20: 1, // DeleteTopics: v0..v1 (delete_topics_request.go:41)
	21: 0, // DeleteRecords: version() is 0
	22: 0, // InitProducerId: version() is 0
	24: 0, // AddPartitionsToTxn: version() is 0
	25: 0, // AddOffsetsToTxn: version() is 0
	26: 0, // EndTxn: version() is 0
	28: 0, // TxnOffsetCommit: version() is 0
	29: 1, // DescribeAcls: v0..v1 (acl_describe_request.go:28)
	30: 1, // CreateAcls: v0..v1 (acl_create_request.go:50)
	31: 1, // DeleteAcls: v0..v1 (acl_delete_request.go:51)
	32: 2, // DescribeConfigs: v0..v2 (describe_configs_request.go:103)
	33: 0, // AlterConfigs: version() is 0
	36: 0, // SaslAuthenticate: version() is 0
	37: 0, // CreatePartitions: version() is 0
	42: 0, // DeleteGroups: version() is 0
}

type request struct {
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

type answer struct {
	Seq    int64  `json:"seq"`
	Result string `json:"result"`
	Frame  string `json:"frame,omitempty"`
	Error  string `json:"error,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type hello struct {
	Type       string   `json:"type"`
	Protocol   int      `json:"protocol"`
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
}

var logf = func(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "sarama_testee: "+format+"\n", args...)
}

// unsupported returns why sarama 1.22.1 does not implement (key, version, direction),
// or "" when it does.
func unsupported(r *request) string {
	request := r.Direction == "request"
	if r.Direction != "request" && r.Direction != "response" {
		return fmt.Sprintf("unknown direction %q", r.Direction)
	}
	max, ok := maxVersion[r.APIKey]
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
	if (request && r.HeaderVersion != 1) || (!request && r.HeaderVersion != 0) {
		return fmt.Sprintf("sarama %s reads request header v1 and response header v0 only",
			saramaVersion)
	}
	return ""
}

// crash is the error of a panic inside sarama: answered "crashed" (a failure whatever
// the vector expects), not "rejected": a real client or broker would crash there.
type crash struct{ msg string }

func (c crash) Error() string { return c.msg }

// refuse answers a decode or encode error: "crashed" for a panic, else "rejected".
func refuse(r *request, err error, prefix string) answer {
	if c, ok := err.(crash); ok {
		return answer{Seq: r.Seq, Result: "crashed", Error: prefix + c.msg}
	}
	return answer{Seq: r.Seq, Result: "rejected", Error: prefix + err.Error()}
}

// decodeFrame runs sarama's decoder on the frame. A panic inside sarama is caught and
// returned as a crash.
func decodeFrame(r *request, frame []byte) (f *sarama.KwirePeerFrame, rest int, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, crash{fmt.Sprintf("sarama panicked: %v", p)}
			logf("seq %d %s: sarama panicked while decoding: %v\n%s", r.Seq, r.ID, p, debug.Stack())
		}
	}()
	if r.Direction == "request" {
		return sarama.KwireTesteeDecodeRequest(frame)
	}
	return sarama.KwireTesteeDecodeResponse(frame, r.APIKey, r.Version)
}

func encodeFrame(r *request, f *sarama.KwirePeerFrame) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, crash{fmt.Sprintf("sarama panicked: %v", p)}
			logf("seq %d %s: sarama panicked while encoding: %v\n%s", r.Seq, r.ID, p, debug.Stack())
		}
	}()
	return sarama.KwirePeerEncode(f)
}

// decodeWhole decodes the frame and also refuses bytes after the message: the vector's
// frame is one message, and a reader on a connection (decodeRequest, responseReceiver)
// would take them as the start of the next message.
func decodeWhole(r *request, frame []byte) (*sarama.KwirePeerFrame, error) {
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

func roundtrip(r *request, frame []byte) answer {
	f, err := decodeWhole(r, frame)
	if err != nil {
		return refuse(r, err, "")
	}
	first, err := encodeFrame(r, f)
	if err != nil {
		return refuse(r, err, "sarama decoded the frame but cannot encode what it decoded: ")
	}
	if bytes.Equal(first, frame) {
		return answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(first)}
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
				return answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(again)}
			}
		}
	}
	logf("seq %d %s: re-encoding differs: %s", r.Seq, r.ID, diagnose(r, frame, first, f))
	return answer{Seq: r.Seq, Result: "ok", Frame: hex.EncodeToString(first)}
}

// diagnose says how sarama's re-encoding differs from the frame (for the log only).
func diagnose(r *request, frame, out []byte, f *sarama.KwirePeerFrame) string {
	at := 0
	for at < len(frame) && at < len(out) && frame[at] == out[at] {
		at++
	}
	s := fmt.Sprintf("%d bytes, frame %d; first difference at byte %d", len(out), len(frame), at)
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

func validate(r *request, frame []byte) answer {
	if _, err := decodeWhole(r, frame); err != nil {
		return refuse(r, err, "")
	}
	return answer{Seq: r.Seq, Result: "ok"}
}

func handle(r *request) answer {
	switch r.Op {
	case "roundtrip", "validate":
	default:
		return answer{Seq: r.Seq, Result: "unsupported", Reason: "operation " + r.Op +
			" not implemented (sarama's structs have no honest JSON mapping)"}
	}
	if why := unsupported(r); why != "" {
		return answer{Seq: r.Seq, Result: "unsupported", Reason: why}
	}
	frame, err := hex.DecodeString(r.Frame)
	if err != nil {
		return answer{Seq: r.Seq, Result: "rejected", Error: "frame is not hex: " + err.Error()}
	}
	if r.Op == "roundtrip" {
		return roundtrip(r, frame)
	}
	return validate(r, frame)
}

const usage = `Usage: sarama_testee [--help]
A testee for kwire's conformance runner (protocol 1): reads JSON requests on stdin, one
per line, and answers on stdout. Operations: roundtrip, validate. Run it through
conformance/testees/sarama/run.sh, e.g.
  kwire conformance --testee conformance/testees/sarama/run.sh conformance/vectors
It runs sarama in a worker process (itself, with --worker): some frames make sarama
allocate a slice of 2^31 elements and the Go runtime dies ("fatal error: runtime: out of
memory", which recover cannot catch); such an operation is answered "crashed" with
"sarama crashed the process: ..." and a new worker is started. A panic that recover
catches is answered "crashed" too: either is a failure, whatever the vector expects.
`

// serve answers the requests of in on out (the worker's loop).
func serve(in *bufio.Reader, out *bufio.Writer) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	send := func(v interface{}) {
		if err := enc.Encode(v); err != nil {
			logf("write: %v", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			logf("write: %v", err)
			os.Exit(1)
		}
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var r request
			if jerr := json.Unmarshal(line, &r); jerr != nil {
				logf("not a JSON request (%v): %.200s", jerr, strings.TrimSpace(string(line)))
				send(answer{Seq: r.Seq, Result: "rejected", Error: "bad request: " + jerr.Error()})
			} else if r.Type == "hello" {
				send(helloAnswer())
			} else {
				send(handle(&r))
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			logf("read: %v", err)
			os.Exit(1)
		}
	}
}

func helloAnswer() hello {
	return hello{Type: "hello", Protocol: 1, Name: "sarama", Version: saramaVersion,
		Operations: []string{"roundtrip", "validate"}}
}

// worker is a child process running serve; its stderr is copied to ours, and its last
// lines are kept to say why it died.
type worker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	tail []string
	done chan struct{} // closed when its stderr is drained
}

func startWorker() (*worker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: exec.Command(self, "--worker"), done: make(chan struct{})}
	// The worker dies with us (the runner kills us on a timeout).
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			fmt.Fprintln(os.Stderr, l)
			w.mu.Lock()
			if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
				w.tail = []string{l} // the death notice and its stacks
			} else if len(w.tail) > 0 && len(w.tail) < 400 {
				w.tail = append(w.tail, l)
			}
			w.mu.Unlock()
		}
	}()
	return w, nil
}

var saramaFrame = regexp.MustCompile(`^github\.com/Shopify/sarama\.((?:\(\*?\w+\)\.)?\w+)\(`)

// death says why the worker ended: the first line of the Go runtime's fatal error or
// panic, and the innermost sarama function on its stack.
func (w *worker) death() string {
	w.in.Close()
	err := w.cmd.Wait()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	why, where := "", ""
	for i, l := range w.tail {
		if i == 0 {
			why = l
			continue
		}
		m := saramaFrame.FindStringSubmatch(l)
		if where == "" && m != nil && !strings.Contains(m[1], "Kwire") && i+1 < len(w.tail) {
			loc := strings.TrimSpace(w.tail[i+1])
			if j := strings.LastIndex(loc, "/"); j >= 0 {
				loc = loc[j+1:]
			}
			if j := strings.Index(loc, " "); j >= 0 {
				loc = loc[:j]
			}
			where = m[1] + " at " + loc
		}
	}
	if why == "" {
		why = fmt.Sprintf("worker ended (%v)", err)
	}
	if where != "" {
		why += ", in sarama's " + where
	}
	return why
}

func supervise() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	send := func(v interface{}) {
		if err := enc.Encode(v); err != nil {
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	var w *worker
	defer func() {
		if w != nil {
			w.in.Close()
			w.cmd.Wait()
		}
	}()
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var r request
			if jerr := json.Unmarshal(line, &r); jerr == nil && r.Type == "hello" {
				send(helloAnswer())
			} else {
				if w == nil {
					if w, err = startWorker(); err != nil {
						logf("cannot start a worker: %v", err)
						os.Exit(1)
					}
				}
				if line[len(line)-1] != '\n' {
					line = append(line, '\n')
				}
				var a []byte
				if _, werr := w.in.Write(line); werr == nil {
					a, _ = w.out.ReadBytes('\n')
				}
				if len(a) > 0 && a[len(a)-1] == '\n' {
					out.Write(a)
					out.Flush()
				} else {
					why := w.death()
					w = nil
					logf("seq %d %s: sarama crashed the worker: %s", r.Seq, r.ID, why)
					send(answer{Seq: r.Seq, Result: "crashed",
						Error: "sarama crashed the process: " + why})
				}
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			logf("read: %v", err)
			os.Exit(1)
		}
	}
}

func main() {
	workerMode := false
	for _, a := range os.Args[1:] {
		switch a {
		case "-h", "--help":
			fmt.Print(usage)
			return
		case "--worker":
			workerMode = true
		default:
			fmt.Fprintf(os.Stderr, "sarama_testee: unexpected argument %q\n%s", a, usage)
			os.Exit(2)
		}
	}
	if workerMode {
		serve(bufio.NewReaderSize(os.Stdin, 1<<20), bufio.NewWriter(os.Stdout))
		return
	}
	supervise()
}
