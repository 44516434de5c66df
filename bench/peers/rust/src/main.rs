//! kafka_protocol_peer times the kafka-protocol crate (0.18.0, through the conformance
//! testee's adapter, conformance/testees/rust-kafka-protocol/src/lib.rs) decoding and
//! encoding the frames that kwire's frame_benchmark writes with --dump_frames, so that
//! kwire and the Rust crate are measured on the very same bytes (issue 31). Built and run
//! by bench/peers/run.sh.
//!
//!   kafka_protocol_peer --frames DIR --check      decode, re-encode, compare; one verdict per frame
//!   kafka_protocol_peer --frames DIR [--count N] [--benchtime SECONDS] [--filter SUBSTRING]
//!
//! ops (one JSON object per line and op, as the Go peers write them):
//!   decode         the frame (a `Bytes` made once; each iteration takes a reference-counted
//!                  slice after the size prefix, no copy) through the adapter's
//!                  decode_request / decode_response: the crate's header decode, then
//!                  RequestKind / ResponseKind::decode into a new message. Records fields
//!                  are `Bytes` slices of the frame (no copy, no check).
//!   encode         size prefix, header and body (the adapter's encode_message: the crate's
//!                  Encodable::encode) into a new `BytesMut::new()` that grows, as the
//!                  crate's README does it
//!   encode_reused  the same into one BytesMut kept across frames (cleared first)
//! The crate has no decode into an existing message (`Decodable::decode` returns a new
//! one), so there is no reused decode.
//!
//! Timing: per op, the iteration count is grown until a run lasts --benchtime seconds;
//! wall time (Instant) and the process's CPU time (clock_gettime(CLOCK_PROCESS_CPUTIME_ID))
//! of that run, divided by the count. Allocations: a counting global allocator (a
//! thread-local counter in front of the system allocator), per op of that run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::time::Instant;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol_adapter as adapter;
use kafka_protocol_adapter::{Direction, Message};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static ALLOC_BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(n: usize) {
    // try_with: nothing to count once the thread's locals are gone.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = ALLOC_BYTES.try_with(|c| c.set(c.get() + n as u64));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size());
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count(l.size());
        System.alloc_zeroed(l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(n);
        System.realloc(p, l, n)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> (u64, u64) {
    (ALLOCS.with(|c| c.get()), ALLOC_BYTES.with(|c| c.get()))
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn process_cpu_ns() -> f64 {
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

struct Frame {
    name: String,
    key: i16,
    version: i16,
    dir: Direction,
    bytes: Bytes,
}

fn load_frames(dir: &str) -> Result<Vec<Frame>, String> {
    let idx = std::fs::read_to_string(format!("{dir}/frames.tsv")).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for line in idx.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() != 6 {
            return Err(format!("frames.tsv: bad line {line:?}"));
        }
        let bad = |_| format!("frames.tsv: bad numbers in {line:?}");
        let key: i16 = c[1].parse().map_err(bad)?;
        let version: i16 = c[2].parse().map_err(bad)?;
        let n: usize = c[4].parse().map_err(bad)?;
        let b = std::fs::read(format!("{dir}/{}", c[5])).map_err(|e| e.to_string())?;
        if b.len() != n {
            return Err(format!("{}: {} bytes, frames.tsv says {n}", c[5], b.len()));
        }
        out.push(Frame {
            name: c[0].to_string(),
            key,
            version,
            dir: if c[3] == "request" {
                Direction::Request
            } else {
                Direction::Response
            },
            bytes: Bytes::from(b),
        });
    }
    Ok(out)
}

/// The message after the size prefix: a slice of the frame's `Bytes` (no copy), the
/// size checked as the adapter's split_frame does.
fn message_bytes(f: &Frame) -> Result<Bytes, String> {
    let b = &f.bytes;
    if b.len() < 4 || i32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i64 != b.len() as i64 - 4 {
        return Err("size prefix disagrees with the frame".into());
    }
    Ok(b.slice(4..))
}

fn decode(f: &Frame) -> Result<Message, String> {
    let buf = message_bytes(f)?;
    let key = adapter::api_key(f.key).ok_or("unknown API key")?;
    match f.dir {
        Direction::Request => adapter::decode_request(buf),
        Direction::Response => adapter::decode_response(key, f.version, buf),
    }
    .map_err(|e| e.to_string())
}

fn encode_into(m: &Message, out: &mut BytesMut) -> Result<(), String> {
    out.put_i32(0);
    adapter::encode_message(m, out)?;
    let size = (out.len() - 4) as i32;
    out[..4].copy_from_slice(&size.to_be_bytes());
    Ok(())
}

fn first_diff(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// A verdict line, and whether the frame is timed.
fn check(f: &Frame) -> (String, bool) {
    let v = adapter::KAFKA_PROTOCOL_VERSION;
    if let Some(why) = adapter::unsupported(f.key, f.version, f.dir) {
        return (format!("unsupported: {why}"), false);
    }
    let m = match decode(f) {
        Ok(m) => m,
        Err(e) => {
            return (
                format!("unsupported: kafka-protocol {v}: decode fails: {e}"),
                false,
            )
        }
    };
    if m.trailing != 0 {
        return (
            format!(
                "unsupported: kafka-protocol {v} leaves {} bytes unread",
                m.trailing
            ),
            false,
        );
    }
    let mut out = BytesMut::new();
    if let Err(e) = encode_into(&m, &mut out) {
        return (
            format!("unsupported: kafka-protocol {v}: re-encode fails: {e}"),
            false,
        );
    }
    if out[..] != f.bytes[..] {
        return (
            format!(
                "unsupported: kafka-protocol {v} re-encodes to other bytes ({} bytes, frame {}, \
                 first difference at byte {})",
                out.len(),
                f.bytes.len(),
                first_diff(&out, &f.bytes)
            ),
            false,
        );
    }
    (
        "ok: decodes; re-encodes byte for byte (no decode into an existing message: the crate \
      has none)"
            .into(),
        true,
    )
}

struct Run {
    ns: f64,
    cpu_ns: f64,
    allocs: f64,
    alloc_bytes: f64,
    n: u64,
}

/// Runs `body` n times, n grown (x10 at most per step) until a run lasts `min_secs`.
fn measure(min_secs: f64, mut body: impl FnMut()) -> Run {
    let mut n: u64 = 1;
    loop {
        let (a0, b0) = allocs();
        let cpu0 = process_cpu_ns();
        let t0 = Instant::now();
        for _ in 0..n {
            body();
        }
        let wall = t0.elapsed().as_secs_f64();
        let cpu = process_cpu_ns() - cpu0;
        let (a1, b1) = allocs();
        if wall >= min_secs || n >= 1_000_000_000 {
            let k = n as f64;
            return Run {
                ns: wall * 1e9 / k,
                cpu_ns: cpu / k,
                allocs: (a1 - a0) as f64 / k,
                alloc_bytes: (b1 - b0) as f64 / k,
                n,
            };
        }
        // Aim 20% past the goal from this run's rate, as testing.Benchmark does.
        let per = (wall / n as f64).max(1e-9);
        let next = ((min_secs * 1.2) / per) as u64;
        n = next.clamp(n + 1, n.saturating_mul(10));
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn emit(f: &Frame, op: &str, runs: &[Run]) {
    let list = |g: &dyn Fn(&Run) -> f64| {
        runs.iter()
            .map(|r| format!("{:.3}", g(r)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let last = runs.last().unwrap();
    println!(
        "{{\"peer\":\"rust\",\"frame\":{},\"op\":\"{op}\",\"bytes\":{},\"ns\":[{}],\"cpu_ns\":[{}],\
         \"allocs\":{:.2},\"alloc_bytes\":{:.0},\"n\":{}}}",
        json_str(&f.name),
        f.bytes.len(),
        list(&|r| r.ns),
        list(&|r| r.cpu_ns),
        last.allocs,
        last.alloc_bytes,
        last.n
    );
}

fn run(f: &Frame, count: usize, secs: f64) {
    let runs: Vec<Run> = (0..count)
        .map(|_| {
            measure(secs, || {
                let m = decode(black_box(f)).expect("decode");
                black_box(m);
            })
        })
        .collect();
    emit(f, "decode", &runs);
    let m = decode(f).expect("decode");
    let len = f.bytes.len();
    let runs: Vec<Run> = (0..count)
        .map(|_| {
            measure(secs, || {
                let mut out = BytesMut::new();
                encode_into(black_box(&m), &mut out).expect("encode");
                assert_eq!(out.len(), len);
                black_box(out);
            })
        })
        .collect();
    emit(f, "encode", &runs);
    let mut out = BytesMut::new();
    let runs: Vec<Run> = (0..count)
        .map(|_| {
            measure(secs, || {
                out.clear();
                encode_into(black_box(&m), &mut out).expect("encode");
                assert_eq!(out.len(), len);
                black_box(&out);
            })
        })
        .collect();
    emit(f, "encode_reused", &runs);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: kafka_protocol_peer --frames DIR [--check] [--count N] [--benchtime SECONDS] \
                 [--filter SUBSTRING]";
    let (mut dir, mut check_only, mut count, mut secs, mut filter) =
        (None, false, 1usize, 0.2f64, String::new());
    let mut i = 1;
    while i < args.len() {
        let val = |i: usize| -> String {
            args.get(i + 1).cloned().unwrap_or_else(|| {
                eprintln!("{usage}");
                std::process::exit(2)
            })
        };
        match args[i].as_str() {
            "--frames" => {
                dir = Some(val(i));
                i += 1
            }
            "--check" => check_only = true,
            "--count" => {
                count = val(i).parse().unwrap_or(0);
                i += 1
            }
            "--benchtime" => {
                secs = val(i).trim_end_matches('s').parse().unwrap_or(-1.0);
                i += 1
            }
            "--filter" => {
                filter = val(i);
                i += 1
            }
            _ => {
                eprintln!("{usage}");
                std::process::exit(2)
            }
        }
        i += 1;
    }
    let Some(dir) = dir else {
        eprintln!("{usage}");
        std::process::exit(2)
    };
    if count == 0 || secs <= 0.0 {
        eprintln!("{usage}");
        std::process::exit(2)
    }
    let frames = load_frames(&dir).unwrap_or_else(|e| {
        eprintln!("kafka_protocol_peer: {e}");
        std::process::exit(1)
    });
    for f in frames.iter().filter(|f| f.name.contains(&filter)) {
        let (verdict, ok) = check(f);
        if check_only {
            println!("{} ({} bytes): {verdict}", f.name, f.bytes.len());
        } else if ok {
            run(f, count, secs);
        }
    }
}
