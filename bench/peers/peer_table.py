#!/usr/bin/python3
"""The peer tables of bench/peers/run.sh: kwire (frame_benchmark JSON, one file per round:
kwire-<round>.json) against the peers on the frames of OUT/frames/frames.tsv, from the
files run.sh leaves in OUT:

  <peer>-p<GOMAXPROCS>-<round>.jsonl   Go peers (sarama, sarama-latest, franz-go): JSON lines
  rust-<round>.jsonl                   the Rust peer: JSON lines
  java-<round>.json                    JMH's JSON (the rounds Java ran in)
  check-<peer>.txt                     each peer's verdict per frame ("ok: ..." or
                                       "unsupported: why")
  meta.json                            the command, versions, load, time

Usage: bench/peers/peer_table.py OUT_DIR      (prints markdown; writes OUT_DIR/peers.json,
       and the tables as bar charts OUT_DIR/peers.svg and peers-cpu.svg: bench/charts.py)

Every figure is the median over the rounds of the time per operation: wall time (kwire:
Google Benchmark's real_time; Go: testing.Benchmark's ns/op; Rust: Instant; Java: JMH's
average time), then CPU time (kwire: cpu_time, its one thread; Go and Rust: the process's
CPU time over the timed loop, every thread, Go's garbage collector included; Java: none,
JMH measures wall time). Ratio × = peer time / kwire time: > 1 means kwire is faster.
Spread = (max - min) / median over the rounds.

Rows per frame: decode (a new message per frame), decode reused (into a message kept across
frames: kwire's DecodeFrameInto, franz-go's Default + ReadFrom; the other peers have none),
encode (into a new buffer), encode reused (into a buffer kept across frames). For frames
with records fields (Produce, Fetch) kwire's decode rows keep records unexamined and
borrowed (views into the frame), as franz-go, kafka-protocol and Kafka's Java classes do
(slices of the input, never checked); the rows "..., records validated" are kwire's default
(every batch's CRC-32C and records checked, records copied), the one sarama is compared on
(it parses every record).
"""

import glob
import json
import os
import re
import statistics
import sys

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# Peers in column order: (id, op prefix in the JSON, label).
PEER_LABELS = {
    "sarama": "sarama 1.22.1",
    "sarama-latest": "sarama (newest)",
    "franz-go": "franz-go",
    "franz-go-unsafe": "franz-go unsafe",
    "rust": "kafka-protocol",
    "java": "Kafka (Java)",
}


def load_frames(out):
    frames = []
    with open(os.path.join(out, "frames", "frames.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            frames.append({"name": c[0], "api_key": int(c[1]), "version": int(c[2]),
                           "direction": c[3], "bytes": int(c[4])})
    return frames


def load_kwire(out):
    """{benchmark: {"wall": [ns per round], "cpu": [...], "allocs": [...]}}"""
    res = {}
    for path in sorted(glob.glob(os.path.join(out, "kwire-*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                sys.exit("peer_table: %s: %s" % (b["name"], b.get("error_message")))
            if b.get("run_type", "iteration") != "iteration":
                continue
            u = UNIT_NS[b.get("time_unit", "ns")]
            e = res.setdefault(b["name"], {"wall": [], "cpu": [], "allocs": []})
            e["wall"].append(b["real_time"] * u)
            e["cpu"].append(b["cpu_time"] * u)
            if "allocs" in b:
                e["allocs"].append(b["allocs"])
    return res


def load_peers(out):
    """{(column, frame, op): {"wall": [...], "cpu": [...], "allocs", "alloc_bytes"}}; the
    columns: sarama[-latest][@P] (P: GOMAXPROCS when more than one ran), franz-go,
    franz-go-unsafe (its UnsafeReadFrom ops), rust, java."""
    res = {}
    procs = set()
    for path in glob.glob(os.path.join(out, "*-p*-*.jsonl")):
        m = re.match(r"(.*)-p(\d+)-\d+\.jsonl$", os.path.basename(path))
        if m:
            procs.add(int(m.group(2)))

    def add(col, frame, op, wall, cpu, allocs, alloc_bytes):
        e = res.setdefault((col, frame, op), {"wall": [], "cpu": [], "allocs": allocs,
                                              "alloc_bytes": alloc_bytes})
        if wall is not None:
            e["wall"].append(wall)
        if cpu is not None:
            e["cpu"].append(cpu)

    for path in sorted(glob.glob(os.path.join(out, "*-p*-*.jsonl")) +
                       glob.glob(os.path.join(out, "rust-*.jsonl"))):
        base = os.path.basename(path)
        m = re.match(r"(.*)-p(\d+)-\d+\.jsonl$", base)
        peer = m.group(1) if m else "rust"
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                col, op = peer, r["op"]
                if peer == "franz-go" and op.startswith("decode_unsafe"):
                    col, op = "franz-go-unsafe", op.replace("decode_unsafe", "decode")
                if m and len(procs) > 1:
                    col += "@P%d" % int(m.group(2))
                add(col, r["frame"], op,
                    statistics.median(r["ns"]) if r.get("ns") else None,
                    statistics.median(r["cpu_ns"]) if r.get("cpu_ns") else None,
                    r.get("allocs"), r.get("alloc_bytes"))
    for path in sorted(glob.glob(os.path.join(out, "java-*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data:
            op = b["benchmark"].rsplit(".", 1)[1]
            pm = b["primaryMetric"]
            if pm["scoreUnit"] != "ns/op":
                sys.exit("peer_table: %s: unit %s" % (path, pm["scoreUnit"]))
            norm = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
            add("java", b["params"]["frame"], op, pm["score"], None, None,
                round(norm) if norm is not None else None)
    return res


def load_checks(out):
    """{peer: {frame: verdict}}"""
    checks = {}
    for path in sorted(glob.glob(os.path.join(out, "check-*.txt"))):
        peer = os.path.basename(path)[len("check-"):-len(".txt")]
        with open(path) as f:
            for line in f:
                m = re.match(r"(.*) \(\d+ bytes\): (.*)$", line.rstrip("\n"))
                if m:
                    checks.setdefault(peer, {})[m.group(1)] = m.group(2)
    return checks


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    return (max(xs) - min(xs)) / statistics.median(xs) if len(xs) > 1 else None


def us(ns):
    if ns is None:
        return "–"
    if ns >= 1e4:
        return "%.1f" % (ns / 1e3)
    if ns >= 100:
        return "%.2f" % (ns / 1e3)
    return "%.3f" % (ns / 1e3)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(x):
    return "–" if x is None else ("%.2f" % x if x < 100 else "%.0f" % x)


def rows_of(frame):
    """(label, kwire benchmark, {peer column prefix: peer op}) per row of a frame."""
    records = frame["api_key"] in (0, 1)
    all_decoders = {"franz-go": "decode", "franz-go-unsafe": "decode", "rust": "decode",
                    "java": "decode"}
    encoders = {"sarama": "encode", "sarama-latest": "encode", "franz-go": "encode",
                "rust": "encode", "java": "encode"}
    reused_encoders = {"franz-go": "encode_reused", "rust": "encode_reused",
                       "java": "encode_reused"}
    reused_decoders = {"franz-go": "decode_reused", "franz-go-unsafe": "decode_reused"}
    sarama = {"sarama": "decode", "sarama-latest": "decode"}
    if records:
        return [
            ("decode", "DecodeFrameOpaqueBorrowed", all_decoders),
            ("decode, records validated", "DecodeFrame", sarama),
            ("decode reused", "DecodeFrameIntoOpaqueBorrowed", reused_decoders),
            ("decode reused, records validated", "DecodeFrameInto", {}),
            ("encode", "EncodeFrame", encoders),
            ("encode reused", "AppendFrame", reused_encoders),
        ]
    return [
        ("decode", "DecodeFrame", dict(all_decoders, **sarama)),
        ("decode reused", "DecodeFrameInto", reused_decoders),
        ("encode", "EncodeFrame", encoders),
        ("encode reused", "AppendFrame", reused_encoders),
    ]


def columns(peers):
    """Peer columns present in the results, in PEER_LABELS order (with @P suffixes)."""
    cols = sorted({k[0] for k in peers},
                  key=lambda c: (list(PEER_LABELS).index(c.split("@")[0]), c))
    return cols


def label(col):
    base, _, p = col.partition("@")
    return PEER_LABELS[base] + (" " + p if p else "")


def build(out):
    frames = load_frames(out)
    kw = load_kwire(out)
    peers = load_peers(out)
    cols = columns(peers)
    rows = []
    for f in frames:
        for lab, kb, ops in rows_of(f):
            k = kw.get("BM_%s/%s" % (kb, f["name"]))
            row = {"frame": f["name"], "bytes": f["bytes"], "op": lab,
                   "kwire_benchmark": "BM_%s/%s" % (kb, f["name"]),
                   "kwire": None, "peers": {}}
            if k:
                row["kwire"] = {"wall_ns": med(k["wall"]), "cpu_ns": med(k["cpu"]),
                                "allocs": med(k["allocs"]), "wall_rounds": k["wall"],
                                "cpu_rounds": k["cpu"], "wall_spread": spread(k["wall"]),
                                "cpu_spread": spread(k["cpu"])}
            for col in cols:
                op = ops.get(col.split("@")[0])
                e = peers.get((col, f["name"], op)) if op else None
                if not e or not e["wall"]:
                    continue
                w, c = med(e["wall"]), med(e["cpu"])
                row["peers"][col] = {
                    "op": op, "wall_ns": w, "cpu_ns": c, "allocs": e["allocs"],
                    "alloc_bytes": e["alloc_bytes"], "wall_rounds": e["wall"],
                    "cpu_rounds": e["cpu"], "wall_spread": spread(e["wall"]),
                    "cpu_spread": spread(e["cpu"]),
                    "ratio_wall": ratio(w, row["kwire"]["wall_ns"] if row["kwire"] else None),
                    "ratio_cpu": ratio(c, row["kwire"]["cpu_ns"] if row["kwire"] else None)}
            rows.append(row)
    return frames, cols, rows, peers


def print_table(cols, rows, field, what):
    print("µs per frame (%s), medians over the rounds; × = peer / kwire (> 1: kwire faster); "
          "fastest × = the fastest peer of the row / kwire\n" % what)
    head = "| frame | op | kwire |" + "".join(" %s | × |" % label(c) for c in cols) + \
        " fastest × |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        k = r["kwire"][field + "_ns"] if r["kwire"] else None
        cells = []
        best = None
        for c in cols:
            p = r["peers"].get(c)
            v = p[field + "_ns"] if p else None
            cells.append("%s | %s" % (us(v), fmt_ratio(ratio(v, k))))
            if v is not None and (best is None or v < best):
                best = v
        print("| %s | %s | %s | %s | %s |" % (r["frame"], r["op"], us(k), " | ".join(cells),
                                              fmt_ratio(ratio(best, k))))
    spreads = [x for r in rows for x in
               ([r["kwire"][field + "_spread"]] if r["kwire"] else []) +
               [p[field + "_spread"] for p in r["peers"].values()] if x is not None]
    if spreads:
        print("\nspread over the rounds ((max - min) / median): median %.0f%%, max %.0f%%\n"
              % (100 * statistics.median(spreads), 100 * max(spreads)))
    else:
        print()


def count(x):
    """An allocation count: whole numbers with separators, fractions with 2 digits."""
    if x is None:
        return "–"
    if abs(x - round(x)) < 0.01:
        return format(int(round(x)), ",")
    return "%.2g" % x


def print_allocs(cols, rows):
    print("Allocations per operation (kwire: calls of operator new, its `allocs` counter; Go: "
          "testing's allocs/op; Rust: a counting global allocator; Java: bytes allocated per "
          "operation, JMH's gc.alloc.rate.norm, in brackets — the JVM does not count "
          "objects)\n")
    head = "| frame | op | kwire |" + "".join(" %s |" % label(c) for c in cols)
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        if r["op"] not in ("decode", "decode, records validated", "decode reused", "encode",
                           "encode reused"):
            continue
        k = r["kwire"]["allocs"] if r["kwire"] else None
        cells = []
        for c in cols:
            p = r["peers"].get(c)
            if not p:
                cells.append("–")
            elif c.startswith("java"):
                cells.append("[%s B]" % format(p["alloc_bytes"], ",")
                             if p["alloc_bytes"] is not None else "–")
            else:
                cells.append(count(p["allocs"]))
        print("| %s | %s | %s | %s |" % (r["frame"], r["op"], count(k), " | ".join(cells)))
    print("\n(A fraction below 1 for a reused decode or encode is the first iteration's "
          "growth spread over the loop: 0 per frame once grown.)")
    print()


def targets(rows):
    """Issue 31's targets per frame, on wall time (every peer has it) and CPU time (all but
    Java). Returns a list of dicts and prints a table."""
    out = []
    by = {}
    for r in rows:
        by.setdefault(r["frame"], {})[r["op"]] = r

    def fastest(rs, field, exclude_java=False):
        best = None
        for r in rs:
            for c, p in r["peers"].items():
                v = p[field + "_ns"]
                if v is None or (exclude_java and c.startswith("java")):
                    continue
                if best is None or v < best[0]:
                    best = (v, c, p["op"])
        return best

    specs = [
        ("fresh decode ≥ 1.5× the fastest peer's fresh decode", "decode", ["decode"], 1.5),
        ("encode (new buffer) ≥ 1.5× the fastest peer's", "encode", ["encode"], 1.5),
        ("encode (reused buffer) ≥ 1.5× the fastest peer's", "encode reused",
         ["encode reused"], 1.5),
        ("reused decode ≥ 2× the fastest reused/unsafe decode (fresh where a peer has no "
         "reuse)", "decode reused", ["decode", "decode reused"], 2.0),
    ]
    for desc, kop, pops, goal in specs:
        for frame, ops in by.items():
            kr = ops.get(kop)
            if not kr or not kr["kwire"]:
                continue
            rec = {"target": desc, "frame": frame, "goal": goal}
            for field in ("wall", "cpu"):
                best = fastest([ops[o] for o in pops if o in ops], field,
                               exclude_java=(field == "cpu"))
                if best is None:
                    continue
                x = best[0] / kr["kwire"][field + "_ns"]
                rec[field] = {"ratio": x, "peer": best[1], "peer_op": best[2],
                              "met": x >= goal}
            if "wall" in rec:
                out.append(rec)
    print("Issue 31's targets, per frame: kwire against the fastest peer (wall time: every "
          "peer; CPU time: all but Java)\n")
    print("| target | frame | wall × | fastest peer (wall) | CPU × | fastest peer (CPU) | met |")
    print("|---|---|---|---|---|---|---|")
    for t in out:
        w, c = t.get("wall"), t.get("cpu")
        met = w["met"] and (c is None or c["met"])
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            t["target"], t["frame"], fmt_ratio(w["ratio"]), label(w["peer"]) + " " + w["peer_op"],
            fmt_ratio(c["ratio"]) if c else "–",
            (label(c["peer"]) + " " + c["peer_op"]) if c else "–",
            "yes" if met else ("no" if not (w["met"] or (c and c["met"])) else "wall or CPU only")))
    print()
    for desc, _, _, _ in specs:
        ts = [t for t in out if t["target"] == desc]
        held = [t for t in ts if t["wall"]["met"] and ("cpu" not in t or t["cpu"]["met"])]
        print("- %s: met on %d of %d frames (wall and CPU)" % (desc, len(held), len(ts)))
    print()
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    meta = {}
    if os.path.exists(os.path.join(out, "meta.json")):
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
    frames, cols, rows, _ = build(out)
    checks = load_checks(out)
    if meta:
        print("Command: `%s`; %s rounds (Java in %s), %s s per operation; load average before "
              "%s, after %s; %s s in all\n" % (meta.get("command"), meta.get("rounds"),
                                              meta.get("java_rounds"), meta.get("min_time_s"),
                                              meta.get("load_before"), meta.get("load_after"),
                                              meta.get("seconds")))
        for p, v in meta.get("peers", {}).items():
            print("- %s: %s" % (p, v))
        print()
    print("Frames a peer does not handle (not timed for it):\n")
    any_unsupported = False
    for p, vs in checks.items():
        for frame, v in vs.items():
            if not v.startswith("ok"):
                any_unsupported = True
                print("- %s, %s: %s" % (p, frame, v))
    if not any_unsupported:
        print("- none")
    print()
    print_table(cols, rows, "wall", "wall time")
    print_table(cols, rows, "cpu", "CPU time")
    print_allocs(cols, rows)
    tg = targets(rows)
    doc = {"meta": meta, "frames": frames, "checks": checks,
           "columns": {c: label(c) for c in cols}, "rows": rows, "targets": tg}
    with open(os.path.join(out, "peers.json"), "w") as f:
        json.dump(doc, f, indent=1)
    write_charts(doc, out)


def write_charts(doc, out):
    """The tables above as bars (bench/charts.py): OUT/peers.svg (wall time) and
    OUT/peers-cpu.svg (CPU time); a note instead when matplotlib is missing."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import charts  # noqa: E402  (bench/charts.py)
    for field, name in (("wall", "peers.svg"), ("cpu", "peers-cpu.svg")):
        path = os.path.join(out, name)
        try:
            charts.peer_chart(doc, path, field)
        except RuntimeError as e:
            print("(no charts: %s)" % e)
            return
        except ValueError as e:
            print("(no %s chart: %s)" % (field, e))
            continue
        print("Chart (%s time): %s" % ("wall" if field == "wall" else "CPU", path))


if __name__ == "__main__":
    main()
