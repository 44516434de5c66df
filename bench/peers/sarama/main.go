// sarama_peer times sarama decoding and encoding the frames that kwire's frame_benchmark
// writes with --dump_frames, so that kwire and a Go client are measured on the very same
// bytes (issue 16; issue 31 for the newest sarama).
//
// Built by bench/peers/run.sh against one of two sarama releases:
//   - peer "sarama": Debian's golang-github-shopify-sarama-dev 1.22.1 (GOPATH mode, the
//     packaged sources, no network), with conformance/testees/sarama/shim/kwire_peer.go added to a temporary copy
//     of sarama's package (release_1_22.go);
//   - peer "sarama-latest" (build tag sarama_latest): github.com/IBM/sarama as pinned by
//     latest/go.mod and latest/go.sum (the release of conformance/testees/sarama-latest),
//     with that testee's shims (the same KwirePeer* entry points, rewritten for the newest
//     release) added to a copy of the module, and its alias package standing for
//     github.com/Shopify/sarama (release_latest.go).
//
// sarama decodes into a new message only and encodes into a new buffer only (its
// encode() sizes the message, then allocates): no reused decode or encode is timed.
//
//	sarama_peer -frames DIR -check             decode, re-encode, compare; exit 1 on failure
//	sarama_peer -frames DIR [-count N] [-benchtime D] [-filter RE]
//
// Timing: testing.Benchmark (wall time per operation, the loop grown until it lasts
// -benchtime; a GC before each run), -count times per operation, plus the process's CPU
// time (getrusage: every thread, the garbage collector's too) over the same final loop;
// one JSON object per line: {"frame","op","gomaxprocs","bytes","ns":[...],
// "cpu_ns":[...],"allocs","alloc_bytes","n"}. ops:
// decode (size prefix + header + body from the frame in memory), encode (the decoded
// frame to a new buffer; for record batches sarama serialises the records again, as the
// first encode of a decoded message does), encode_cached (Fetch only: repeated encodes
// of one decoded object, where sarama's RecordBatch reuses the record bytes of its first
// encode), copy (a copy of the frame into a new slice: the allocator + memcpy floor).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/Shopify/sarama"
)

type frame struct {
	name    string
	apiKey  int16
	version int16
	request bool
	bytes   []byte
}

func supported(f *frame) (bool, string) {
	max, ok := peerMaxVersion(f.apiKey, f.request)
	if !ok {
		return false, "no entry point for this API in the peer"
	}
	if f.version > max {
		return false, fmt.Sprintf("sarama %s handles this message up to v%d", peerRelease(), max)
	}
	return true, ""
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

func decode(f *frame) (*sarama.KwirePeerFrame, error) {
	if f.request {
		return sarama.KwirePeerDecodeRequest(f.bytes)
	}
	return sarama.KwirePeerDecodeResponse(f.bytes, f.apiKey, f.version)
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

// check decodes and re-encodes f; returns a verdict line and whether f is timed. A
// frame sarama cannot handle (a version beyond it, a decode error, other bytes when
// re-encoded) is "unsupported: <why>"; it is not timed.
func check(f *frame) (string, bool) {
	if ok, why := supported(f); !ok {
		// Say what sarama does with it anyway.
		d, err := decode(f)
		switch {
		case err != nil:
			return fmt.Sprintf("unsupported: %s; decoding it fails: %v", why, err), false
		default:
			out, err := sarama.KwirePeerEncode(d)
			same := err == nil && bytes.Equal(out, f.bytes)
			return fmt.Sprintf("unsupported: %s; decoding it 'succeeds' as an older layout "+
				"(re-encoding identical: %v)", why, same), false
		}
	}
	d, err := decode(f)
	if err != nil {
		return fmt.Sprintf("unsupported: decode fails: %v", err), false
	}
	if d.APIKey != f.apiKey || d.Version != f.version || d.CorrelationID != 7 {
		return fmt.Sprintf("unsupported: header read as api key %d v%d correlation id %d",
			d.APIKey, d.Version, d.CorrelationID), false
	}
	out, err := sarama.KwirePeerEncode(d)
	if err != nil {
		return fmt.Sprintf("unsupported: re-encode fails: %v", err), false
	}
	if bytes.Equal(out, f.bytes) {
		return "ok: decodes; re-encodes byte for byte", true
	}
	if len(out) != len(f.bytes) {
		return fmt.Sprintf("unsupported: re-encodes %d bytes, frame %d (first difference at "+
			"byte %d)", len(out), len(f.bytes), firstDiff(out, f.bytes)), false
	}
	// Same size, other bytes: sarama keeps Fetch and OffsetCommit blocks in Go maps, whose
	// iteration order is random, so it writes topics and partitions in some order. Encode
	// again (records serialised anew each time) until an encoding has the frame's order...
	const tries = 256
	same := 0
	for i := 0; i < tries; i++ {
		sarama.KwirePeerForgetEncodedRecords(d)
		if again, err := sarama.KwirePeerEncode(d); err == nil && bytes.Equal(again, f.bytes) {
			same++
		}
	}
	if same > 0 {
		return fmt.Sprintf("ok: decodes; re-encodes byte for byte in %d of %d encodes "+
			"(the others: the same bytes with topics and partitions in another Go map order)",
			same, tries), true
	}
	// ...or, when that is too unlikely (many map entries), decode the re-encoding and
	// compare it with a fresh decode of the frame.
	fresh, err1 := decode(f)
	again, err2 := decode(&frame{name: f.name, apiKey: f.apiKey, version: f.version,
		request: f.request, bytes: out})
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("unsupported: re-decode: %v %v", err1, err2), false
	}
	if !reflect.DeepEqual(fresh, again) {
		return fmt.Sprintf("unsupported: re-encodes to other bytes of the same size (first "+
			"difference at byte %d), which decode to another message", firstDiff(out, f.bytes)), false
	}
	return fmt.Sprintf("ok: decodes; re-encodes to the same size and, decoded again, the "+
		"same message, topics and partitions in Go map order (byte for byte in none of %d "+
		"encodes)", tries), true
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

// processCPU is the CPU time of the whole process (every thread: the benchmark's and the
// garbage collector's), in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func bench(f *frame, op string, count int, body func(b *testing.B)) result {
	r := result{Peer: peerName, Frame: f.name, Op: op, GoMaxProcs: runtime.GOMAXPROCS(0),
		Bytes: len(f.bytes)}
	for i := 0; i < count; i++ {
		// testing.Benchmark calls the function with growing b.N; the last call is the
		// run its result describes.
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
	d, err := decode(f)
	if err != nil {
		return err
	}
	emit(bench(f, "decode", count, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x, err := decode(f)
			if err != nil {
				b.Fatal(err)
			}
			sink = x
		}
	}))
	_, hasRecords := d.Body.(*sarama.FetchResponse)
	emit(bench(f, "encode", count, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if hasRecords {
				sarama.KwirePeerForgetEncodedRecords(d)
			}
			out, err := sarama.KwirePeerEncode(d)
			if err != nil || len(out) != len(f.bytes) {
				b.Fatal(err)
			}
			sink = out
		}
	}))
	if hasRecords {
		emit(bench(f, "encode_cached", count, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := sarama.KwirePeerEncode(d)
				if err != nil || len(out) != len(f.bytes) {
					b.Fatal(err)
				}
				sink = out
			}
		}))
	}
	emit(bench(f, "copy", count, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out := make([]byte, len(f.bytes))
			copy(out, f.bytes)
			sink = out
		}
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
		fmt.Fprintln(os.Stderr, "usage: sarama_peer -frames DIR [-check] [-count N] [-benchtime D] [-filter RE]")
		os.Exit(2)
	}
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "sarama_peer: -benchtime:", err)
		os.Exit(2)
	}
	re, err := regexp.Compile(*filter)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sarama_peer: -filter:", err)
		os.Exit(2)
	}
	frames, err := loadFrames(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sarama_peer:", err)
		os.Exit(1)
	}
	if *checkOnly {
		for _, f := range frames {
			if !re.MatchString(f.name) {
				continue
			}
			verdict, _ := check(f)
			fmt.Printf("%s (%d bytes): %s\n", f.name, len(f.bytes), verdict)
		}
		return
	}
	enc := json.NewEncoder(os.Stdout)
	for _, f := range frames {
		if !re.MatchString(f.name) {
			continue
		}
		if _, ok := check(f); !ok {
			continue
		}
		if err := run(f, *count, func(r result) { enc.Encode(r) }); err != nil {
			fmt.Fprintf(os.Stderr, "sarama_peer: %s: %v\n", f.name, err)
			os.Exit(1)
		}
	}
}
