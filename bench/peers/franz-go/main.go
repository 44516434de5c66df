// franz_go_peer times franz-go's kmsg (github.com/twmb/franz-go/pkg/kmsg, the version in
// go.mod) decoding and encoding the frames that kwire's frame_benchmark writes with
// --dump_frames, so that kwire and franz-go are measured on the very same bytes (issue 31).
// Built and run by bench/peers/run.sh.
//
//	franz_go_peer -frames DIR -check     decode, re-encode, compare; one verdict per frame
//	franz_go_peer -frames DIR [-count N] [-benchtime D] [-filter RE]
//
// Frames reach kmsg through the conformance testee's adapter
// (conformance/testees/franz-go/adapter: the size prefix and headers as kgo and kfake read
// them, then kmsg's ReadFrom / UnsafeReadFrom), and are written as franz-go writes them:
// requests with kmsg.RequestFormatter.AppendRequest (one formatter, made once, as kgo's
// client does), responses as kfake does (size, correlation id, empty header tags when
// flexible and not ApiVersions, AppendTo).
//
// ops (one JSON object per line and op, as bench/peers/sarama/main.go writes them):
//
//	decode                adapter.ReadRequest/ReadResponse, ReadFrom: a new message per frame
//	decode_unsafe         the same with UnsafeReadFrom (strings alias the frame's bytes)
//	decode_reused         the header read as the adapter does, then Default() and ReadFrom
//	                      into one message kept across frames (kmsg reuses its slices'
//	                      capacity; strings are copied anew)
//	decode_unsafe_reused  the same with UnsafeReadFrom
//	encode                the decoded frame appended to nil (a new buffer per frame)
//	encode_reused         appended to dst[:0] of one buffer kept across frames
//
// Records fields (Produce, Fetch) are []byte in kmsg: both ReadFrom and UnsafeReadFrom
// keep them as slices of the frame (no copy, no check), and AppendTo copies them out.
//
// Timing: testing.Benchmark (wall time per operation, the loop grown until it lasts
// -benchtime; a GC before each run), -count times per operation, plus the process's CPU
// time (getrusage: every thread, the garbage collector's too) over the same final loop.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
	"kwire/conformance/testees/franz-go/adapter"
)

const release = "kmsg v1.15.1"

type frame struct {
	name    string
	apiKey  int16
	version int16
	request bool
	bytes   []byte
}

func loadFrames(dir string) ([]*frame, error) {
	idx, err := os.Open(filepath.Join(dir, "frames.tsv"))
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	var out []*frame
	sc := bufio.NewScanner(idx)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 {
			return nil, fmt.Errorf("frames.tsv: bad line %q", sc.Text())
		}
		k, err1 := strconv.Atoi(c[1])
		v, err2 := strconv.Atoi(c[2])
		n, err3 := strconv.Atoi(c[4])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("frames.tsv: bad numbers in %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, c[5]))
		if err != nil {
			return nil, err
		}
		if len(b) != n {
			return nil, fmt.Errorf("%s: %d bytes, frames.tsv says %d", c[5], len(b), n)
		}
		out = append(out, &frame{name: c[0], apiKey: int16(k), version: int16(v),
			request: c[3] == "request", bytes: b})
	}
	return out, sc.Err()
}

func mode(unsafe bool) adapter.ReadMode {
	if unsafe {
		return adapter.Unsafe
	}
	return adapter.Safe
}

// decode reads f into a new message.
func decode(f *frame, unsafe bool) (*adapter.Frame, error) {
	if f.request {
		return adapter.ReadRequest(f.bytes, mode(unsafe))
	}
	return adapter.ReadResponse(f.bytes, f.apiKey, f.version, mode(unsafe))
}

var errShort = errors.New("frame header: not enough data")

// skipTags skips a tag section (uvarint count, then per tag a uvarint tag, a uvarint
// length and the bytes), as kmsg.SkipTags does; returns the bytes after it.
func skipTags(b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errShort
	}
	b = b[k:]
	for i := uint64(0); i < n; i++ {
		if _, k = binary.Uvarint(b); k <= 0 {
			return nil, errShort
		}
		b = b[k:]
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, errShort
		}
		b = b[k+int(l):]
	}
	return b, nil
}

// body returns the frame's body: the header read as the adapter (kgo's readResponse,
// kfake's clientConn.read) reads it, for a frame whose message has m's version.
func body(f *frame, m interface{ IsFlexible() bool }) ([]byte, error) {
	b := f.bytes
	if len(b) < 4 || int(binary.BigEndian.Uint32(b)) != len(b)-4 {
		return nil, errors.New("size prefix")
	}
	b = b[4:]
	if f.request {
		if len(b) < 10 {
			return nil, errShort
		}
		l := int(int16(binary.BigEndian.Uint16(b[8:])))
		b = b[10:]
		if l > 0 {
			if len(b) < l {
				return nil, errShort
			}
			b = b[l:]
		}
		if m.IsFlexible() {
			return skipTags(b)
		}
		return b, nil
	}
	if len(b) < 4 {
		return nil, errShort
	}
	b = b[4:]
	if m.IsFlexible() && f.apiKey != 18 {
		return skipTags(b)
	}
	return b, nil
}

type message interface {
	ReadFrom([]byte) error
	IsFlexible() bool
	Default()
}

// decodeInto reads f into m, a message of f's type and version decoded before: the
// header, then m.Default() and ReadFrom (or UnsafeReadFrom).
func decodeInto(f *frame, m message, unsafe bool) error {
	b, err := body(f, m)
	if err != nil {
		return err
	}
	m.Default()
	if unsafe {
		return m.(kmsg.UnsafeReadFrom).UnsafeReadFrom(b)
	}
	return m.ReadFrom(b)
}

// encoder writes a decoded frame as franz-go does.
type encoder struct {
	d  *adapter.Frame
	fm *kmsg.RequestFormatter
}

func newEncoder(d *adapter.Frame) *encoder {
	e := &encoder{d: d}
	if d.Request {
		if d.ClientID != nil {
			e.fm = kmsg.NewRequestFormatter(kmsg.FormatterClientID(*d.ClientID))
		} else {
			e.fm = kmsg.NewRequestFormatter()
		}
	}
	return e
}

func (e *encoder) appendTo(dst []byte) []byte {
	if e.fm != nil {
		return e.fm.AppendRequest(dst, e.d.Req, e.d.CorrelationID)
	}
	return e.d.AppendTo(dst) // kfake's clientConn.write
}

func messageOf(d *adapter.Frame) message {
	if d.Request {
		return d.Req.(message)
	}
	return d.Resp.(message)
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) < len(b) {
		return len(a)
	}
	return len(b)
}

// check decodes f every way the benchmark does and re-encodes it; returns a verdict line
// and whether f is timed ("ok").
func check(f *frame) (string, bool) {
	if max, ok := adapter.MaxVersion(f.apiKey, f.request); !ok {
		return fmt.Sprintf("unsupported: %s has no type for API key %d", release, f.apiKey), false
	} else if f.version > max {
		return fmt.Sprintf("unsupported: %s has this API up to v%d", release, max), false
	}
	for _, unsafe := range []bool{false, true} {
		d, err := decode(f, unsafe)
		if err != nil {
			return fmt.Sprintf("unsupported: %s: decode fails: %v", mode(unsafe), err), false
		}
		if d.CorrelationID != 7 || d.Version != f.version {
			return fmt.Sprintf("unsupported: %s: header read as correlation id %d, v%d",
				mode(unsafe), d.CorrelationID, d.Version), false
		}
		out := newEncoder(d).appendTo(nil)
		if !bytes.Equal(out, f.bytes) {
			return fmt.Sprintf("unsupported: %s: re-encodes to other bytes (%d bytes, frame "+
				"%d, first difference at byte %d)", mode(unsafe), len(out), len(f.bytes),
				firstDiff(out, f.bytes)), false
		}
		// Reused: read a second time into the same message, then encode into a reused buffer.
		m := messageOf(d)
		if err := decodeInto(f, m, unsafe); err != nil {
			return fmt.Sprintf("unsupported: %s into a reused message: %v", mode(unsafe), err), false
		}
		if again := newEncoder(d).appendTo(out[:0]); !bytes.Equal(again, f.bytes) {
			return fmt.Sprintf("unsupported: %s into a reused message re-encodes to other "+
				"bytes", mode(unsafe)), false
		}
	}
	return "ok: decodes (ReadFrom, UnsafeReadFrom, fresh and into a reused message); " +
		"re-encodes byte for byte", true
}

type result struct {
	Peer       string    `json:"peer"`
	Frame      string    `json:"frame"`
	Op         string    `json:"op"`
	GoMaxProcs int       `json:"gomaxprocs"`
	Bytes      int       `json:"bytes"`
	Ns         []float64 `json:"ns"`     // wall time per op (testing.Benchmark)
	CPUNs      []float64 `json:"cpu_ns"` // CPU time per op, all threads (GC workers included)
	Allocs     int64     `json:"allocs"`
	AllocBytes int64     `json:"alloc_bytes"`
	N          int       `json:"n"`
}

var sink interface{}

func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func bench(f *frame, op string, count int, body func(b *testing.B)) result {
	r := result{Peer: "franz-go", Frame: f.name, Op: op, GoMaxProcs: runtime.GOMAXPROCS(0),
		Bytes: len(f.bytes)}
	for i := 0; i < count; i++ {
		var cpu int64
		var cpuN int
		br := testing.Benchmark(func(b *testing.B) {
			start := processCPU()
			body(b)
			cpu, cpuN = processCPU()-start, b.N
		})
		r.Ns = append(r.Ns, float64(br.T.Nanoseconds())/float64(br.N))
		if cpuN == br.N {
			r.CPUNs = append(r.CPUNs, float64(cpu)/float64(br.N))
		}
		r.Allocs, r.AllocBytes, r.N = br.AllocsPerOp(), br.AllocedBytesPerOp(), br.N
	}
	return r
}

func run(f *frame, count int, emit func(result)) error {
	for _, unsafe := range []bool{false, true} {
		op := "decode"
		if unsafe {
			op = "decode_unsafe"
		}
		emit(bench(f, op, count, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x, err := decode(f, unsafe)
				if err != nil {
					b.Fatal(err)
				}
				sink = x
			}
		}))
		d, err := decode(f, unsafe)
		if err != nil {
			return err
		}
		m := messageOf(d)
		emit(bench(f, op+"_reused", count, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := decodeInto(f, m, unsafe); err != nil {
					b.Fatal(err)
				}
			}
			sink = m
		}))
	}
	d, err := decode(f, false)
	if err != nil {
		return err
	}
	e := newEncoder(d)
	emit(bench(f, "encode", count, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out := e.appendTo(nil)
			if len(out) != len(f.bytes) {
				b.Fatal("encoded size")
			}
			sink = out
		}
	}))
	dst := e.appendTo(nil)
	emit(bench(f, "encode_reused", count, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dst = e.appendTo(dst[:0])
			if len(dst) != len(f.bytes) {
				b.Fatal("encoded size")
			}
		}
		sink = dst
	}))
	return nil
}

func main() {
	testing.Init()
	dir := flag.String("frames", "", "directory written by frame_benchmark --dump_frames")
	checkOnly := flag.Bool("check", false, "check decode and re-encode of every frame, time nothing")
	count := flag.Int("count", 1, "timed runs per operation")
	benchtime := flag.String("benchtime", "0.2s", "minimum time of one timed run")
	filter := flag.String("filter", "", "regular expression: only frames whose name matches")
	flag.Parse()
	if *dir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: franz_go_peer -frames DIR [-check] [-count N] [-benchtime D] [-filter RE]")
		os.Exit(2)
	}
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "franz_go_peer: -benchtime:", err)
		os.Exit(2)
	}
	re, err := regexp.Compile(*filter)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franz_go_peer: -filter:", err)
		os.Exit(2)
	}
	frames, err := loadFrames(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "franz_go_peer:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, f := range frames {
		if !re.MatchString(f.name) {
			continue
		}
		verdict, ok := check(f)
		if *checkOnly {
			fmt.Printf("%s (%d bytes): %s\n", f.name, len(f.bytes), verdict)
			continue
		}
		if !ok {
			continue
		}
		if err := run(f, *count, func(r result) { enc.Encode(r) }); err != nil {
			fmt.Fprintf(os.Stderr, "franz_go_peer: %s: %v\n", f.name, err)
			os.Exit(1)
		}
	}
}
