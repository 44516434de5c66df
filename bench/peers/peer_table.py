#!/usr/bin/python3
"""The peer table of bench/peers/run.sh: kwire (frame_benchmark JSON, one file per
round: kwire-<round>.json) against sarama (sarama_peer JSON lines, one file per round
and GOMAXPROCS: sarama-p<1|2>-<round>.jsonl) on the frames of OUT/frames/frames.tsv.

Usage: bench/peers/peer_table.py OUT_DIR

Every figure is the median over the rounds of the time per operation: wall time
(kwire: Google Benchmark's real_time; sarama: testing.Benchmark's ns/op), then CPU time
(kwire: cpu_time, its one thread; sarama: getrusage of the whole process, garbage
collector included), which other processes on the cores disturb less. Ratio = sarama
time / kwire time: > 1 means kwire is faster. Spread = (max - min) / median over the
rounds. kwire's decode is timed twice: into a new message per frame (BM_DecodeFrame) and
into one message reused across frames (BM_DecodeFrameInto, "reused"). Last, the ratios of each side's fastest round (minimum over the rounds), which
other processes on a shared machine move least.
"""

import glob
import json
import os
import re
import statistics
import sys

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load_frames(out):
    frames = []
    with open(os.path.join(out, "frames", "frames.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            frames.append({"name": c[0], "api_key": int(c[1]), "bytes": int(c[4])})
    return frames


def load_kwire(out, field):
    """{benchmark name: [ns per round]} of `field` (real_time or cpu_time)"""
    times = {}
    for path in sorted(glob.glob(os.path.join(out, "kwire-*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                sys.exit("peer_table: %s: %s" % (b["name"], b.get("error_message")))
            if b.get("run_type", "iteration") != "iteration":
                continue
            ns = b[field] * UNIT_NS[b.get("time_unit", "ns")]
            times.setdefault(b["name"], []).append(ns)
    return times


def load_sarama(out, field):
    """{(frame, op, gomaxprocs): {"ns": [median per round], "allocs": n}} of `field`
    (ns: wall time, cpu_ns: CPU time)"""
    res = {}
    for path in sorted(glob.glob(os.path.join(out, "sarama-p*-*.jsonl"))):
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                e = res.setdefault((r["frame"], r["op"], r["gomaxprocs"]),
                                   {"ns": [], "allocs": r["allocs"],
                                    "alloc_bytes": r["alloc_bytes"]})
                if r.get(field):
                    e["ns"].append(statistics.median(r[field]))
    return res


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    return (max(xs) - min(xs)) / statistics.median(xs) if len(xs) > 1 else 0.0


def us(ns):
    return "–" if ns is None else ("%.1f" % (ns / 1e3) if ns >= 1e4 else "%.2f" % (ns / 1e3))


def ratio(a, b):
    return "–" if a is None or b is None else "%.2f" % (a / b)


def table(frames, kw, sa, what):
    """Prints one table and its notes; returns the spreads of its figures."""
    spreads = []

    def k(op, name):
        xs = kw.get("BM_%s/%s" % (op, name), [])
        if xs:
            spreads.append(spread(xs))
        return med(xs)

    def s(name, op, procs):
        e = sa.get((name, op, procs))
        if e is None or not e["ns"]:
            return None
        spreads.append(spread(e["ns"]))
        return med(e["ns"])

    rounds = max([len(v) for v in kw.values()] + [0])
    print("µs per frame (%s), medians of %d rounds; × = sarama time / kwire time "
          "(> 1: kwire faster); P = GOMAXPROCS\n" % (what, rounds))
    print("| frame | bytes | kwire decode | sarama decode P1 | P2 | × P1 | × P2 "
          "| kwire decode, reused | × P1 | × P2 "
          "| kwire encode | sarama encode P1 | P2 | × P1 | × P2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for f in frames:
        n = f["name"]
        kd, ke = k("DecodeFrame", n), k("EncodeFrame", n)
        ki = k("DecodeFrameInto", n)
        sd1, sd2 = s(n, "decode", 1), s(n, "decode", 2)
        se1, se2 = s(n, "encode", 1), s(n, "encode", 2)
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, format(f["bytes"], ","), us(kd), us(sd1), us(sd2), ratio(sd1, kd),
            ratio(sd2, kd), us(ki), ratio(sd1, ki), ratio(sd2, ki),
            us(ke), us(se1), us(se2), ratio(se1, ke), ratio(se2, ke)))
        ka, km = k("AppendFrame", n), k("RefMemcpy_DecodeFrame", n)
        line = "%s: kwire decode %s MB/s, into a reused message %s MB/s" % (
            n, "%.0f" % (f["bytes"] / kd * 1e3) if kd else "–",
            "%.0f" % (f["bytes"] / ki * 1e3) if ki else "–")
        if f["api_key"] in (0, 1):  # Produce, Fetch: records fields
            kb = k("DecodeFrameBorrowed", n)
            line += ", with records borrowed (views, not copies) %s µs (× %s P1, %s P2)" % (
                us(kb), ratio(sd1, kb), ratio(sd2, kb))
        line += "; encode appended to a reused Writer %s µs; memcpy %s µs" % (us(ka), us(km))
        if sd1 is not None:
            d = sa[(n, "decode", 1)]
            line += "; sarama: %s allocations (%s bytes) per decode, copy %s µs" % (
                format(d["allocs"], ","), format(d["alloc_bytes"], ","), us(s(n, "copy", 1)))
            c1, c2 = s(n, "encode_cached", 1), s(n, "encode_cached", 2)
            if c1 is not None:
                line += ", encode with its records' bytes cached (repeated encode of one " \
                        "object) %s / %s µs (× %s / %s)" % (us(c1), us(c2), ratio(c1, ke),
                                                         ratio(c2, ke))
        else:
            line += "; sarama: not compared (see the check above)"
        notes.append(line)
    print()
    for line in notes:
        print("- " + line)
    return spreads


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    frames = load_frames(out)
    fields = (("real_time", "ns", "wall time"), ("cpu_time", "cpu_ns", "CPU time"))
    for field_k, field_s, what in fields:
        spreads = table(frames, load_kwire(out, field_k), load_sarama(out, field_s), what)
        if spreads:
            print("\nspread over the rounds ((max - min) / median): median %.0f%%, max %.0f%%\n"
                  % (100 * statistics.median(spreads), 100 * max(spreads)))
    print("Ratios of the fastest round of each side (sarama minimum / kwire minimum), the "
          "reading least moved by other processes:\n")
    print("| frame | time | decode × P1 | decode × P2 | reused decode × P1 | reused decode × P2 "
          "| encode × P1 | encode × P2 |")
    print("|---|---|---|---|---|---|---|---|")
    for field_k, field_s, what in fields:
        kw, sa = load_kwire(out, field_k), load_sarama(out, field_s)
        for f in frames:
            n = f["name"]
            cells = []
            for op, kop in (("decode", "DecodeFrame"), ("decode", "DecodeFrameInto"),
                            ("encode", "EncodeFrame")):
                k = kw.get("BM_%s/%s" % (kop, n))
                for procs in (1, 2):
                    e = sa.get((n, op, procs))
                    cells.append(ratio(min(e["ns"]), min(k)) if k and e and e["ns"] else "–")
            print("| %s | %s | %s |" % (n, what.split()[0], " | ".join(cells)))

if __name__ == "__main__":
    main()
