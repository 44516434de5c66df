#!/usr/bin/python3
"""Same-run ratios of kwire against the reference implementations (issue 7 targets).

Reads one Google Benchmark JSON file (wire_benchmark --benchmark_out=..., ideally with
--benchmark_repetitions=N --benchmark_enable_random_interleaving=true) and prints, per hot
path, ns per item, bytes/s and the ratios against protobuf, the naive loop and memcpy,
computed from the medians of the repetitions. With --targets FILE it also prints each
target of FILE as met / NOT met; without it, ratios only, no verdicts.

    bench/ratios.py out.json                                  # text table
    bench/ratios.py --targets bench/targets.json out.json     # + issue 7's targets
    bench/ratios.py --markdown --targets bench/targets.json out.json   # bench/README.md

Targets file: JSON {"targets": [{"description", "kwire", "reference", "min_ratio"}]}
(bench/targets.json holds issue 7's; copy and edit it), or text lines
`kwire_benchmark reference_benchmark min_ratio [description]`.

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

def usage_exit(msg):
    print(msg, file=sys.stderr)
    sys.exit(2)


def load_targets(path):
    """[(description, kwire benchmark, reference benchmark, minimum ratio)] from a JSON
    file {"targets": [{"description", "kwire", "reference", "min_ratio"}, ...]} or a
    text file of lines `kwire_benchmark reference_benchmark min_ratio [description]`
    (# starts a comment)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        usage_exit(f"ratios.py: cannot read targets file: {e}")
    out = []
    if path.endswith(".json"):
        try:
            data = json.loads(text)
            for t in data["targets"]:
                out.append((t.get("description") or f"{t['kwire']} vs {t['reference']}",
                            t["kwire"], t["reference"], float(t["min_ratio"])))
        except (ValueError, KeyError, TypeError) as e:
            usage_exit(f"ratios.py: {path}: not a targets file ({e!r}); expected "
                       '{"targets": [{"description", "kwire", "reference", "min_ratio"}]}')
        return out
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 3)
        try:
            kw, ref, want = parts[0], parts[1], float(parts[2])
        except (IndexError, ValueError):
            usage_exit(f"ratios.py: {path}:{n}: expected "
                       "`kwire_benchmark reference_benchmark min_ratio [description]`")
        out.append((parts[3] if len(parts) > 3 else f"{kw} >= {want}x {ref}", kw, ref, want))
    return out


def ratio(med, kw, ref):
    if kw not in med or ref not in med:
        return None
    return med[ref][0] / med[kw][0]


def fmt(x, spec):
    return format(x, spec) if x is not None else "-"


def gbps(m):
    return m[2] / 1e9 if m and m[2] else None


def main():
    ap = argparse.ArgumentParser(prog="bench/ratios.py", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="Google Benchmark JSON (--benchmark_out) of wire_benchmark")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables")
    ap.add_argument("--targets", metavar="FILE",
                    help="targets to judge (e.g. bench/targets.json); default: none, no verdicts")
    args = ap.parse_args()
    targets_spec = load_targets(args.targets) if args.targets else []
    try:
        ctx, med = load_medians(args.json)
    except (OSError, ValueError, KeyError) as e:
        print(f"ratios.py: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    if not med:
        print(f"ratios.py: no benchmark runs in {args.json}", file=sys.stderr)
        return 2

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
    for desc, kw, ref, want in targets_spec:
        r = ratio(med, kw, ref)
        verdict = "-" if r is None else ("met" if r >= want else "NOT met")
        targets.append((desc, fmt(r, ".2f"), verdict))

    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
        if targets:
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
        print("(ratio = reference time / kwire time: > 1 means kwire is faster)")
        if targets:
            print()
            print(f"targets from {args.targets}:")
            for t in targets:
                print(f"{t[2]:8} {t[1]:>6}  {t[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
