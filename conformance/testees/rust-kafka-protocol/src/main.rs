//! kafka_protocol_testee: the `kafka-protocol` crate (0.18.0, Rust) behind kwire's
//! conformance testee protocol, version 1 (conformance/README.md, "Testing another
//! implementation: the testee protocol"). Built and started by run.sh; see README.md.
//!
//! Operations: `roundtrip` (the crate decodes the frame into its own message types and
//! encodes them again) and `validate` (the crate decodes; `ok` when it accepts the frame).
//! No `decode`/`encode`: the crate has no serde support and no mapping onto Kafka's field
//! names (README.md).
//!
//! The crate runs in a worker process (this program with `--worker`), whose heap is capped
//! by the global allocator below: a hostile count makes the crate ask for gigabytes up
//! front, the capped allocator refuses, the standard library aborts the worker, and the
//! supervisor (this program without `--worker`) answers `crashed` with the reason and
//! starts a new worker. Panics are caught in the worker (`catch_unwind`) and also answered
//! `crashed`.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::thread::JoinHandle;

use kafka_protocol_adapter::{self as adapter, DecodeError, Direction, KAFKA_PROTOCOL_VERSION};
use serde_json::{json, Map, Value};

const NAME: &str = "kafka-protocol (Rust)";
const DEFAULT_HEAP_MB: usize = 1024;
/// Marks the lines of the worker's stderr that the supervisor puts in a `crashed` answer.
const CRASH_MARK: &str = "kafka_protocol_testee: CRASH: ";

#[global_allocator]
static ALLOCATOR: guard::Capped = guard::Capped;

/// A heap cap for the worker: an allocation that would take the live heap above
/// `LIMIT` bytes is refused (null), after writing where it came from to stderr; the
/// standard library then prints "memory allocation of N bytes failed" and aborts.
mod guard {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    pub static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    thread_local! {
        static REPORTING: Cell<bool> = const { Cell::new(false) };
    }

    pub struct Capped;

    fn reporting() -> bool {
        REPORTING.try_with(|r| r.get()).unwrap_or(true)
    }

    /// Counts `n` more bytes, or refuses them (and reports) when they pass the cap.
    fn admit(n: usize) -> bool {
        let before = LIVE.fetch_add(n, Relaxed);
        let limit = LIMIT.load(Relaxed);
        if before.saturating_add(n) <= limit || reporting() {
            return true;
        }
        LIVE.fetch_sub(n, Relaxed);
        let _ = REPORTING.try_with(|r| {
            r.set(true);
            super::report_refused_allocation(n, before, limit);
            r.set(false);
        });
        false
    }

    unsafe impl GlobalAlloc for Capped {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            if !admit(l.size()) {
                return std::ptr::null_mut();
            }
            let p = System.alloc(l);
            if p.is_null() {
                LIVE.fetch_sub(l.size(), Relaxed);
            }
            p
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            if !admit(l.size()) {
                return std::ptr::null_mut();
            }
            let p = System.alloc_zeroed(l);
            if p.is_null() {
                LIVE.fetch_sub(l.size(), Relaxed);
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            System.dealloc(p, l);
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            let old = l.size();
            if new > old && !admit(new - old) {
                return std::ptr::null_mut();
            }
            let q = System.realloc(p, l, new);
            if q.is_null() {
                if new > old {
                    LIVE.fetch_sub(new - old, Relaxed);
                }
            } else if new < old {
                LIVE.fetch_sub(old - new, Relaxed);
            }
            q
        }
    }
}

/// The frames of a backtrace inside the crate (or, when there are none, the first few),
/// as "function at file:line" strings.
fn crate_frames(bt: &std::backtrace::Backtrace) -> Vec<String> {
    let text = bt.to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut frames = Vec::new(); // (function, location)
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        // "N: function" then, optionally, "at file:line:col"
        if let Some((num, func)) = l.split_once(": ") {
            if num.chars().all(|c| c.is_ascii_digit()) && !num.is_empty() {
                let mut at = String::new();
                if i + 1 < lines.len() && lines[i + 1].trim().starts_with("at ") {
                    at = lines[i + 1].trim()[3..].to_string();
                    // Paths into ~/.cargo/registry/src/<index>/ are shortened to the crate.
                    if let Some(p) = at.find("/registry/src/") {
                        let rest = &at[p + "/registry/src/".len()..];
                        at = rest
                            .split_once('/')
                            .map(|x| x.1)
                            .unwrap_or(rest)
                            .to_string();
                    }
                    i += 1;
                }
                frames.push((func.to_string(), at));
            }
        }
        i += 1;
    }
    let fmt = |(f, at): &(String, String)| {
        if at.is_empty() {
            f.clone()
        } else {
            format!("{f} at {at}")
        }
    };
    // Frames in the crate's source first; without line tables, the crate's functions.
    let mut picked: Vec<String> = frames
        .iter()
        .filter(|(_, at)| at.starts_with("kafka-protocol-"))
        .map(fmt)
        .collect();
    if picked.is_empty() {
        picked = frames
            .iter()
            .filter(|(f, _)| {
                f.starts_with("kafka_protocol::") || f.starts_with("<kafka_protocol::")
            })
            .map(fmt)
            .collect();
    }
    if picked.is_empty() {
        picked = frames.iter().take(6).map(fmt).collect();
    }
    picked.truncate(4);
    picked
}

/// Set from $KWIRE_TESTEE_BACKTRACE in the worker: name the crate's frames of a refused
/// allocation (resolving a backtrace costs ~0.1 s per crash, so it is off by default).
static ALLOC_BACKTRACE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn report_refused_allocation(n: usize, live: usize, limit: usize) {
    let mut msg = format!(
        "{CRASH_MARK}kafka-protocol asked for {n} bytes at once (refused: heap cap {} MiB, \
         {live} bytes in use)",
        limit >> 20
    );
    if ALLOC_BACKTRACE.load(std::sync::atomic::Ordering::Relaxed) {
        let bt = std::backtrace::Backtrace::force_capture();
        msg.push_str(" in ");
        msg.push_str(&crate_frames(&bt).join(" <- "));
    }
    let _ = writeln!(io::stderr(), "{msg}");
}

struct Options {
    worker: bool,
    in_process: bool,
    reject_trailing: bool,
}

fn usage() -> &'static str {
    "Usage: kafka_protocol_testee [--reject-trailing] [--in-process] [--help]\n\
     Speaks kwire's testee protocol (version 1) on stdin/stdout for the kafka-protocol\n\
     crate 0.18.0: operations roundtrip and validate. The crate runs in a worker process\n\
     (this program with --worker) whose heap is capped at $KWIRE_TESTEE_HEAP_MB MiB\n\
     (default 1024); a worker that aborts is answered `crashed` and replaced.\n\
       --reject-trailing  also refuse bytes after the body (the crate leaves them unread;\n\
                          by default they are ignored, as the crate's users do)\n\
       --in-process       no worker process (an allocation failure ends the testee)\n"
}

fn main() {
    let mut o = Options {
        worker: false,
        in_process: false,
        reject_trailing: false,
    };
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--worker" => o.worker = true,
            "--in-process" => o.in_process = true,
            "--reject-trailing" => o.reject_trailing = true,
            "-h" | "--help" => {
                print!("{}", usage());
                return;
            }
            _ => {
                eprint!(
                    "kafka_protocol_testee: unexpected argument '{a}'\n{}",
                    usage()
                );
                std::process::exit(2);
            }
        }
    }
    if o.worker || o.in_process {
        let mb = std::env::var("KWIRE_TESTEE_HEAP_MB")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or(DEFAULT_HEAP_MB);
        guard::LIMIT.store(
            mb.saturating_mul(1 << 20),
            std::sync::atomic::Ordering::Relaxed,
        );
        let bt = std::env::var("KWIRE_TESTEE_BACKTRACE").map(|v| v != "0" && !v.is_empty());
        ALLOC_BACKTRACE.store(bt.unwrap_or(false), std::sync::atomic::Ordering::Relaxed);
        install_panic_hook();
    }
    let r = if o.worker { worker(&o) } else { supervisor(&o) };
    if let Err(e) = r {
        eprintln!("kafka_protocol_testee: {e}");
        std::process::exit(1);
    }
}

// ---- the supervisor: the testee protocol, one worker at a time

fn hello() -> Value {
    json!({"type": "hello", "protocol": 1, "name": NAME, "version": KAFKA_PROTOCOL_VERSION,
           "operations": ["roundtrip", "validate"]})
}

fn write_line(out: &mut impl Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")?;
    out.flush()
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Collects the worker's last stderr lines and its crash lines.
    stderr: Option<JoinHandle<(VecDeque<String>, Vec<String>)>>,
}

impl Worker {
    fn start(o: &Options) -> io::Result<Worker> {
        let mut cmd = Command::new(std::env::current_exe()?);
        cmd.arg("--worker");
        // The standard library's report of a failed allocation would add a backtrace.
        cmd.env("RUST_BACKTRACE", "0");
        if o.reject_trailing {
            cmd.arg("--reject-trailing");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let err = child.stderr.take().unwrap();
        // The worker's stderr goes on to ours; its last lines are kept for a crash report.
        let stderr = std::thread::spawn(move || {
            let mut tail = VecDeque::new();
            let mut crash = Vec::new();
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                eprintln!("{line}");
                if let Some(c) = line.strip_prefix(CRASH_MARK) {
                    crash.push(c.to_string());
                } else if line.starts_with("memory allocation of")
                    || line.contains("has overflowed its stack")
                {
                    crash.push(line.clone());
                }
                if tail.len() == 20 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
            (tail, crash)
        });
        Ok(Worker {
            child,
            stdin,
            stdout,
            stderr: Some(stderr),
        })
    }

    /// One request line in, one answer line out; Err when the worker died.
    fn ask(&mut self, line: &str) -> Result<String, ()> {
        if self.stdin.write_all(line.as_bytes()).is_err()
            || self.stdin.write_all(b"\n").is_err()
            || self.stdin.flush().is_err()
        {
            return Err(());
        }
        let mut answer = String::new();
        match self.stdout.read_line(&mut answer) {
            Ok(n) if n > 0 && answer.ends_with('\n') => Ok(answer),
            _ => Err(()),
        }
    }

    /// Why the worker ended: its exit status and the crash lines of its stderr.
    fn post_mortem(mut self) -> String {
        drop(self.stdin);
        let status = self.child.wait();
        let (tail, mut details) = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let mut why = match status {
            Ok(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (_, Some(6)) => "the worker aborted (SIGABRT)".to_string(),
                    (_, Some(9)) => "the worker was killed (SIGKILL)".to_string(),
                    (_, Some(11)) => "the worker crashed (SIGSEGV)".to_string(),
                    (_, Some(sig)) => format!("the worker died of signal {sig}"),
                    (Some(c), _) => format!("the worker exited with status {c}"),
                    _ => "the worker ended".to_string(),
                }
            }
            Err(e) => format!("the worker could not be waited for: {e}"),
        };
        if details.is_empty() {
            if let Some(l) = tail.back() {
                details.push(l.clone());
            }
        }
        if !details.is_empty() {
            why.push_str(": ");
            why.push_str(&details.join("; "));
        }
        why
    }
}

fn supervisor(o: &Options) -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut worker: Option<Worker> = None;
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let q: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("kafka_protocol_testee: not JSON ({e}): {line:.200}");
                continue;
            }
        };
        if q.get("type").and_then(Value::as_str) == Some("hello") {
            write_line(&mut out, &hello())?;
            continue;
        }
        let seq = q.get("seq").cloned().unwrap_or(Value::Null);
        if o.in_process {
            let mut a = answer(o, &q);
            a.insert("seq".into(), seq);
            write_line(&mut out, &Value::Object(a))?;
            continue;
        }
        if worker.is_none() {
            worker = Some(Worker::start(o)?);
        }
        match worker.as_mut().unwrap().ask(&line) {
            Ok(a) => {
                out.write_all(a.as_bytes())?;
                out.flush()?;
            }
            Err(()) => {
                let why = worker.take().unwrap().post_mortem();
                eprintln!(
                    "kafka_protocol_testee: seq {seq} {}: {why}; starting a new worker",
                    q.get("id").and_then(Value::as_str).unwrap_or("?")
                );
                write_line(
                    &mut out,
                    &json!({"seq": seq, "result": "crashed", "error": why}),
                )?;
            }
        }
    }
    if let Some(w) = worker {
        drop(w.stdin);
        let mut child = w.child;
        let _ = child.wait();
        if let Some(h) = w.stderr {
            let _ = h.join();
        }
    }
    Ok(())
}

// ---- the worker: the crate, one operation at a time

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(no message)".to_string()
        };
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let bt = std::backtrace::Backtrace::force_capture();
        let frames = crate_frames(&bt);
        let text = format!("panicked at {at}: {msg}, in {}", frames.join(" <- "));
        eprintln!("kafka_protocol_testee: {text}");
        if let Ok(mut p) = LAST_PANIC.lock() {
            *p = Some(text);
        }
    }));
}

fn worker(o: &Options) -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        let q: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => json!({"seq": null, "_error": e.to_string()}),
        };
        let mut a = answer(o, &q);
        a.insert("seq".into(), q.get("seq").cloned().unwrap_or(Value::Null));
        write_line(&mut out, &Value::Object(a))?;
    }
    Ok(())
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if s.len() & 1 == 1 {
        return None;
    }
    let d = |c: u8| (c as char).to_digit(16).map(|x| x as u8);
    s.as_bytes()
        .chunks(2)
        .map(|p| Some(d(p[0])? << 4 | d(p[1])?))
        .collect()
}

fn hex_encode(b: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(H[(x >> 4) as usize] as char);
        s.push(H[(x & 15) as usize] as char);
    }
    s
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// FORMAT.md's error kind for the crate's error texts (shown beside the verdict only).
fn kind_of(e: &DecodeError) -> Option<&'static str> {
    let t = match e {
        DecodeError::Frame(_) => return Some("invalid_frame_size"),
        DecodeError::Header(t) | DecodeError::Body(t) => t,
    };
    if t.contains("Unknown API key") {
        Some("unknown_api_key")
    } else if t.contains("specified version not supported") {
        Some("unsupported_version")
    } else if t.contains("Not enough bytes") {
        Some("truncated")
    } else if t.contains("length is negative (-1)") {
        Some("unexpected_null")
    } else if t.contains("length is negative") {
        Some("invalid_length")
    } else if t.contains("utf-8") || t.contains("utf8") {
        Some("invalid_utf8")
    } else {
        None
    }
}

fn panic_text() -> String {
    LAST_PANIC
        .lock()
        .ok()
        .and_then(|mut p| p.take())
        .unwrap_or_else(|| "panicked".to_string())
}

/// One operation on one vector; the answer without its seq.
fn answer(o: &Options, q: &Value) -> Map<String, Value> {
    let s = |k: &str| q.get(k).and_then(Value::as_str).unwrap_or("");
    let n = |k: &str| q.get(k).and_then(Value::as_i64);
    let id = s("id");
    let op = s("op");
    let dir = match s("direction") {
        "request" => Direction::Request,
        "response" => Direction::Response,
        d => {
            return obj(
                json!({"result": "unsupported", "reason": format!("unknown direction {d:?}")}),
            )
        }
    };
    if op != "roundtrip" && op != "validate" {
        return obj(json!({"result": "unsupported",
            "reason": format!("operation {op:?} not offered (the crate has no JSON mapping)")}));
    }
    let (Some(key), Some(version)) = (n("api_key"), n("version")) else {
        return obj(json!({"result": "unsupported", "reason": "no api_key or version"}));
    };
    let (key, version) = (key as i16, version as i16);
    if let Some(why) = adapter::unsupported(key, version, dir) {
        return obj(json!({"result": "unsupported", "reason": why}));
    }
    let api = adapter::api_key(key).unwrap();
    // The vector's header version against the crate's (its message type's HeaderVersion).
    let crate_hv = adapter::header_version(api, dir, version);
    if let Some(hv) = n("header_version") {
        if hv != crate_hv as i64 {
            eprintln!(
                "kafka_protocol_testee: {id}: header version disagreement: the vector says {hv}, \
                 kafka-protocol says {crate_hv} (the crate's is used)"
            );
        }
    }
    let Some(frame) = hex_decode(s("frame")) else {
        return obj(json!({"result": "rejected", "error": "testee: the frame is not hex"}));
    };
    let decoded = std::panic::catch_unwind(|| adapter::decode_frame(dir, api, version, &frame));
    let m = match decoded {
        Err(_) => {
            return obj(json!({"result": "crashed",
                "error": format!("kafka-protocol panicked while decoding: {}", panic_text())}))
        }
        Ok(Err(e)) => {
            let mut a = obj(json!({"result": "rejected", "error": e.to_string()}));
            if let Some(k) = kind_of(&e) {
                a.insert("kind".into(), k.into());
            }
            return a;
        }
        Ok(Ok(m)) => m,
    };
    if m.trailing > 0 {
        eprintln!(
            "kafka_protocol_testee: {id} {op}: the crate left {} byte(s) after the body unread{}",
            m.trailing,
            if o.reject_trailing {
                " (rejected: --reject-trailing)"
            } else {
                " (ignored, as the crate's users do)"
            }
        );
        if o.reject_trailing {
            return obj(
                json!({"result": "rejected", "kind": "trailing_bytes", "error": format!(
                "{} byte(s) after the body (the crate leaves them unread; refused by --reject-trailing)",
                m.trailing)}),
            );
        }
    }
    if op == "validate" {
        return obj(json!({"result": "ok"}));
    }
    let encoded = std::panic::catch_unwind(|| adapter::encode_frame(&m));
    match encoded {
        Err(_) => obj(json!({"result": "crashed",
            "error": format!("kafka-protocol panicked while encoding: {}", panic_text())})),
        Ok(Err(e)) => obj(json!({"result": "rejected",
            "error": format!("kafka-protocol cannot encode what it decoded: {e}")})),
        Ok(Ok(out)) => {
            if out != frame {
                let at = out
                    .iter()
                    .zip(&frame)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(frame.len()));
                eprintln!(
                    "kafka_protocol_testee: {id} roundtrip: re-encoded {} bytes for {}, first difference at byte {at}",
                    out.len(),
                    frame.len()
                );
            }
            obj(json!({"result": "ok", "frame": hex_encode(&out)}))
        }
    }
}
