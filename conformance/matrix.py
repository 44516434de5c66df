#!/usr/bin/env python3
"""The conformance matrix (issue 17): runs every testee of conformance/testees/ (and kwire's
own) through `kwire conformance --testee` and writes the table of passed / failed /
unsupported vectors per category into conformance/README.md, between the markers
<!-- matrix:begin --> and <!-- matrix:end -->.

Usage: conformance/matrix.py [--kwire PATH] [--only NAME,...] [--write] [--json FILE]

  --kwire PATH  the kwire binary (default: build/test/tools/kwire/kwire)
  --only LIST   run only these testees (names as in the table's first column ids:
                kwire, kwire-java, apache-kafka, apache-kafka-3.9, kafka-python,
                kafka-python-latest, sarama, sarama-latest, franz-go,
                rust-kafka-protocol, platformatic-kafka, kafkajs)
  --write       replace the table in conformance/README.md (else print it)
  --json FILE   also write every run's totals as JSON

A testee whose library is not installed is reported as skipped (with the install hint)
and leaves its row out; --write then refuses, so the README's table always covers every
testee. "failed" counts every failing vector, expected or not: each is explained in the
testee's FAILURES.md. Exit status: 0, or 1 when a run is not clean (an unexpected failure
or pass, a testee fault), 2 on usage errors.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "conformance", "vectors")
TESTEES = os.path.join(ROOT, "conformance", "testees")
README = os.path.join(ROOT, "conformance", "README.md")
CATEGORIES = ["minimal", "rich", "negative", "records", "kip511", "java", "live"]


def have(cmd):
    return shutil.which(cmd) is not None


def python_has_kafka():
    r = subprocess.run([sys.executable, os.path.join(TESTEES, "kafka-python", "testee.py"),
                        "--kafka-version"], capture_output=True, text=True)
    return r.returncode == 0


def testees(kwire):
    """(id, label, command, expected failures, check, install hint, options)."""
    js = lambda d: os.path.isdir(os.path.join(TESTEES, d, "node_modules")) and have("node")
    return [
        ("kwire", "kwire (strict)", f"{kwire} testee", None, lambda: True, "", []),
        ("kwire-java", "kwire `--quirks java`", f"{kwire} testee --quirks java", None,
         lambda: True, "", ["--lenient"]),
        ("apache-kafka", "Apache Kafka 4.4.0 (Java, kafka-clients)", f"{TESTEES}/apache-kafka/run.sh",
         f"{TESTEES}/apache-kafka/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/apache-kafka/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "apt-get install openjdk-17-jdk-headless maven", []),
        # The 3.9 line alone (no second JVM): what a 3.9 client or broker reads.
        ("apache-kafka-3.9", "Apache Kafka 3.9.2 alone (Java, kafka-clients)",
         f"env KWIRE_TESTEE_KAFKA=3.9.2 KWIRE_TESTEE_KAFKA_FALLBACK=none {TESTEES}/apache-kafka/run.sh",
         f"{TESTEES}/apache-kafka/expected_failures-3.9.txt",
         lambda: subprocess.run([f"{TESTEES}/apache-kafka/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "apt-get install openjdk-17-jdk-headless maven", []),
        ("kafka-python", "kafka-python 2.0.2",
         f"python3 {TESTEES}/kafka-python/testee.py",
         f"{TESTEES}/kafka-python/expected_failures.txt", python_has_kafka,
         "apt-get install python3-kafka", []),
        ("sarama", "sarama 1.22.1 (Go)", f"{TESTEES}/sarama/run.sh",
         f"{TESTEES}/sarama/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/sarama/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "tools/install-deps.sh --peers", []),
        ("kafka-python-latest", "kafka-python 3.0.12 (newest, PyPI)",
         f"{TESTEES}/kafka-python-latest/run.sh",
         f"{TESTEES}/kafka-python-latest/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/kafka-python-latest/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "apt-get install python3-venv; PyPI on the first run", []),
        ("sarama-latest", "sarama 1.61.1 (newest, Go, IBM/sarama)",
         f"{TESTEES}/sarama-latest/run.sh",
         f"{TESTEES}/sarama-latest/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/sarama-latest/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "Go >= 1.21 and the Go module proxy on the first build", []),
        ("franz-go", "franz-go kmsg 1.15.1 (Go)", f"{TESTEES}/franz-go/run.sh",
         f"{TESTEES}/franz-go/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/franz-go/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "Go >= 1.26 (or >= 1.21 with the Go module proxy)", []),
        ("rust-kafka-protocol", "kafka-protocol 0.18.0 (Rust crate)",
         f"{TESTEES}/rust-kafka-protocol/run.sh",
         f"{TESTEES}/rust-kafka-protocol/expected_failures.txt",
         lambda: subprocess.run([f"{TESTEES}/rust-kafka-protocol/run.sh", "--build-only"],
                                capture_output=True).returncode == 0,
         "rustup (Rust >= 1.89); crates.io on the first build", []),
        ("platformatic-kafka", "@platformatic/kafka 2.12.1 (JS)",
         f"node {TESTEES}/platformatic-kafka/testee.mjs",
         f"{TESTEES}/platformatic-kafka/expected_failures.txt", lambda: js("platformatic-kafka"),
         "(cd conformance/testees/platformatic-kafka && npm ci)", []),
        ("kafkajs", "kafkajs 2.2.4 (JS)", f"node {TESTEES}/kafkajs/testee.js",
         f"{TESTEES}/kafkajs/expected_failures.txt", lambda: js("kafkajs"),
         "(cd conformance/testees/kafkajs && npm ci)", []),
    ]


def run(kwire, command, expected, options):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        args = [kwire, "conformance", VECTORS, "--testee", command, "--json", out] + options
        if expected:
            args += ["--expected-failures", expected]
        r = subprocess.run(args, capture_output=True, text=True)
        if not os.path.exists(out):
            raise RuntimeError(f"no report from {' '.join(args)}:\n{r.stdout}{r.stderr}")
        with open(out) as f:
            return json.load(f), r.returncode


def cell(c):
    if not c or c["vectors"] == 0:
        return "–"
    failed = c["failed"] + c["expected_failures"] + c["unexpected_passes"] + c["not_run"]
    return f"{c['passed']} / {failed} / {c['unsupported']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kwire", default=os.path.join(ROOT, "build", "test", "tools", "kwire", "kwire"))
    ap.add_argument("--only", default="")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    if not os.access(a.kwire, os.X_OK):
        ap.error(f"no kwire binary at {a.kwire} (build it: cmake --workflow --preset test)")
    only = set(filter(None, a.only.split(",")))
    rows, totals, skipped, clean = [], {}, [], True
    for tid, label, command, expected, check, hint, options in testees(a.kwire):
        if only and tid not in only:
            continue
        if not check():
            skipped.append(f"{tid}: not installed ({hint})")
            print(f"matrix: {tid}: skipped, not installed ({hint})", file=sys.stderr)
            continue
        print(f"matrix: {tid}: running", file=sys.stderr)
        report, rc = run(a.kwire, command, expected, options)
        lenient = None
        if not options:  # also the negative vectors without the lenient ones
            lenient, _ = run(a.kwire, command, expected, ["--lenient", "--category", "negative"])
        clean &= rc == 0
        cats = report["categories"]
        ops = ", ".join(report["testee"]["operations"])
        notes = "" if rc == 0 else " **(run not clean)**"
        row = [label + notes, ops] + [cell(cats.get(c)) for c in CATEGORIES[:2]]
        # A testee run with --lenient only (Java's rules) has no non-lenient negative figure.
        row.append("(`--lenient` only)" if options else cell(cats.get("negative")))
        row.append(cell(lenient["categories"].get("negative")) if lenient else cell(cats.get("negative")))
        row.append(cell(cats.get("records")))
        row.append(cell(cats.get("kip511")))
        row.append(cell(cats.get("java")))
        row.append(cell(cats.get("live")))
        # The FAILURES.md beside the expected-failures list.
        failures = (f"[FAILURES.md]({os.path.relpath(os.path.dirname(expected), os.path.dirname(TESTEES))}"
                    "/FAILURES.md)" if expected else "none")
        row.append(failures)
        rows.append(row)
        totals[tid] = {"report": report["categories"], "lenient": lenient and lenient["categories"],
                       "exit": rc}
    header = ["implementation", "operations", "minimal", "rich", "negative",
              "negative `--lenient`", "records", "kip511", "java", "live", "failures explained"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    table = "\n".join(lines) + "\n"
    print(table)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(totals, f, indent=1)
    if a.write:
        if skipped or only:
            print("matrix: --write needs every testee (skipped: " + "; ".join(skipped or ["--only"]) + ")",
                  file=sys.stderr)
            return 2
        with open(README) as f:
            text = f.read()
        new, n = re.subn(r"(<!-- matrix:begin -->\n).*?(<!-- matrix:end -->)",
                         lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
        if n != 1:
            print("matrix: conformance/README.md has no <!-- matrix:begin/end --> markers", file=sys.stderr)
            return 2
        with open(README, "w") as f:
            f.write(new)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
