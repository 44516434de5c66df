#!/usr/bin/python3
"""Same-run ratios of kwire against the reference implementations (issue 7 targets).

Reads one Google Benchmark JSON file (wire_benchmark --benchmark_out=..., ideally with
--benchmark_repetitions=N --benchmark_enable_random_interleaving=true) and prints, per hot
path, ns per item, bytes/s and the ratios against protobuf, the naive loop and memcpy,
computed from the medians of the repetitions, plus each issue-7 target as met / not met.

    bench/ratios.py out.json              # text table
    bench/ratios.py --markdown out.json   # the bench/README.md table

A ratio is reference time / kwire time: above 1 means kwire is faster.
Standard library only.
"""

import argparse
import json
import statistics
import sys


def load_medians(path):
    """Name -> (median CPU time in ns per iteration, items/s, bytes/s).

    CPU time, not wall time: the benchmarks are single-threaded, and on a shared,
    oversubscribed machine wall time mostly measures how long the process waited for a
    core. items/s and bytes/s are Google Benchmark's, also from CPU time."""
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        runs.setdefault(b["run_name"], []).append(
            (b["cpu_time"] * scale, b.get("items_per_second"), b.get("bytes_per_second")))
    out = {}
    for name, rs in runs.items():
        t = statistics.median(r[0] for r in rs)
        items = statistics.median(r[1] for r in rs) if rs[0][1] else None
        byts = statistics.median(r[2] for r in rs) if rs[0][2] else None
        out[name] = (t, items, byts)
    return data.get("context", {}), out


def ns_per_item(m):
    return 1e9 / m[1] if m and m[1] else None


# (row label, kwire benchmark, case) rows of the table; references are derived by name.
VARINT_ROWS = [
    (op, case)
    for op in ("DecodeUvarint", "DecodeVarint", "DecodeVarlong", "EncodeUvarint", "EncodeVarlong")
    for case in ("1byte", "2byte", "kafka", "mix1to5", "random64")
    if not (case == "random64" and not op.endswith("Varlong"))
]
STRING_ROWS = [(op, case) for op in ("DecodeCompactString", "EncodeCompactString")
               for case in ("0", "8", "64", "1024", "mix0to64")]

# Issue 7 targets: (description, kwire name, reference name, minimum ratio ref/kwire).
TARGETS = [
    ("uvarint decode kafka >= 1.4x pb ReadVarint32", "BM_DecodeUvarint/kafka",
     "BM_RefPbCoded_DecodeUvarint/kafka", 1.4),
    ("uvarint decode kafka >= 1.25x naive loop", "BM_DecodeUvarint/kafka",
     "BM_RefNaive_DecodeUvarint/kafka", 1.25),
    ("uvarint decode kafka >= 0.9x pb unchecked", "BM_DecodeUvarint/kafka",
     "BM_RefPbUnchecked_DecodeUvarint/kafka", 0.9),
    ("uvarint decode mix1to5 >= 2x pb ReadVarint32", "BM_DecodeUvarint/mix1to5",
     "BM_RefPbCoded_DecodeUvarint/mix1to5", 2.0),
    ("varlong decode kafka >= 1.3x pb ReadVarint64", "BM_DecodeVarlong/kafka",
     "BM_RefPbCoded_DecodeVarlong/kafka", 1.3),
    ("varlong decode random64 >= 3x pb ReadVarint64", "BM_DecodeVarlong/random64",
     "BM_RefPbCoded_DecodeVarlong/random64", 3.0),
    ("uvarint encode kafka >= 0.85x pb WriteVarint32ToArray", "BM_EncodeUvarint/kafka",
     "BM_RefPbCoded_EncodeUvarint/kafka", 0.85),
    ("varlong encode kafka >= 0.85x pb WriteVarint64ToArray", "BM_EncodeVarlong/kafka",
     "BM_RefPbCoded_EncodeVarlong/kafka", 0.85),
    ("uvarint encode mix1to5 >= 1.5x pb", "BM_EncodeUvarint/mix1to5",
     "BM_RefPbCoded_EncodeUvarint/mix1to5", 1.5),
    ("varlong encode mix1to5 >= 1.5x pb", "BM_EncodeVarlong/mix1to5",
     "BM_RefPbCoded_EncodeVarlong/mix1to5", 1.5),
    ("varlong encode random64 >= 1.5x pb", "BM_EncodeVarlong/random64",
     "BM_RefPbCoded_EncodeVarlong/random64", 1.5),
    ("compact string decode (1-byte prefix) >= 1.2x pb zero-copy", "BM_DecodeCompactString/8",
     "BM_RefPbCoded_DecodeCompactString/8", 1.2),
    ("compact string decode (2-byte prefix) >= 1.5x pb zero-copy",
     "BM_DecodeCompactString/1024", "BM_RefPbCoded_DecodeCompactString/1024", 1.5),
    ("compact string decode >= 4x a copying decode (mix0to64)",
     "BM_DecodeCompactString/mix0to64", "BM_RefCopy_DecodeCompactString/mix0to64", 4.0),
    ("compact string encode len 8 >= 1.5x pb Write*ToArray", "BM_EncodeCompactString/8",
     "BM_RefPbCoded_EncodeCompactString/8", 1.5),
    ("compact string encode mix0to64 >= 1.5x pb Write*ToArray",
     "BM_EncodeCompactString/mix0to64", "BM_RefPbCoded_EncodeCompactString/mix0to64", 1.5),
]


def ratio(med, kw, ref):
    if kw not in med or ref not in med:
        return None
    return med[ref][0] / med[kw][0]


def fmt(x, spec):
    return format(x, spec) if x is not None else "-"


def gbps(m):
    return m[2] / 1e9 if m and m[2] else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    ctx, med = load_medians(args.json)

    rows = []
    for op, case in VARINT_ROWS + STRING_ROWS:
        kw = f"BM_{op}/{case}"
        if kw not in med:
            continue
        m = med[kw]
        pb = f"BM_RefPbCoded_{op}/{case}"
        un = f"BM_RefPbUnchecked_{op}/{case}"
        nv = f"BM_RefNaive_{op}/{case}"
        mc = f"BM_RefMemcpy_{op.replace('Encode', 'Decode')}/{case}"
        rows.append((f"{op}/{case}", fmt(ns_per_item(m), ".2f"), fmt(gbps(m), ".2f"),
                     fmt(ratio(med, kw, pb), ".2f"), fmt(ratio(med, kw, un), ".2f"),
                     fmt(ratio(med, kw, nv), ".2f"), fmt(ratio(med, kw, mc), ".3f")))
    head = ("path/case", "ns/item", "GB/s", "x pb", "x pb-unchecked", "x naive", "x memcpy")

    targets = []
    for desc, kw, ref, want in TARGETS:
        r = ratio(med, kw, ref)
        verdict = "-" if r is None else ("met" if r >= want else "NOT met")
        targets.append((desc, fmt(r, ".2f"), verdict))

    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
        print()
        print("| target | ratio | |")
        print("|---|---|---|")
        for t in targets:
            print("| " + " | ".join(t) + " |")
    else:
        print(f"{ctx.get('host_name', '?')}, {ctx.get('num_cpus', '?')} CPUs, "
              f"{ctx.get('mhz_per_cpu', '?')} MHz, load {ctx.get('load_avg', '?')}")
        w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
        for r in [head] + rows:
            print("  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i])
                            for i, c in enumerate(r)))
        print()
        for t in targets:
            print(f"{t[2]:8} {t[1]:>6}  {t[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
