#!/usr/bin/env python3
"""Apache Kafka against `kwire --quirks java`, vector by vector (issue 30, item 4).

Usage (from the project root)::

    python3 conformance/testees/apache-kafka/compare.py [--kwire PATH] [--vectors DIR]
        [--json REPORT] [--list N]

Starts two testees of the testee protocol (conformance/README.md): this directory's
run.sh (Kafka's own classes, kafka-clients 4.4.0 with 3.9.2 for the versions 4.x
removed) and ``kwire testee --quirks java`` (every Java leniency on): for requests with
records validated, as a broker reads them (a Produce partition it refuses is "refused",
with the error code: this testee's Broker.java runs the broker's checks), for responses
with ``--records opaque`` (records left as bytes, as Java's parser leaves them). Sends
both the ``decode`` operation of every vector of every set, and compares: the verdict
(ok / refused / rejected, and for refused the parts and their error codes; a vector one
side does not support is counted apart) and, when both read the frame, the header and
the body in kwire's JSON mapping. Prints the counts, the differences grouped by kind (the vector's
set and mutation, what differs), and a few vector ids of each; exit status 0 when both
agree on every vector both support (with ``--expected FILE``: when exactly the vectors
listed there disagree), 1 otherwise, 2 on a usage or start-up error.
``--json`` writes every vector's two answers. Python 3 standard library only.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


class Testee:
    """One testee process: a request line in, an answer line out."""

    def __init__(self, name, argv):
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        hello = self.ask({"type": "hello", "protocol": 1})
        self.version = "%s %s" % (hello.get("name", "?"), hello.get("version", "?"))

    def ask(self, q):
        self.p.stdin.write(json.dumps(q, separators=(",", ":")) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("%s ended (exit %s)" % (self.name, self.p.poll()))
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def vectors(directory):
    for fn in sorted(os.listdir(directory)):
        if fn.endswith(".jsonl"):
            with open(os.path.join(directory, fn), encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        yield json.loads(line)


def kind_of(v):
    """The vector's kind for grouping: its set, and its mutation for negatives."""
    parts = v["id"].split("/")
    return v["set"] + ("/" + parts[4] if v["set"] in ("negative", "records", "kip511")
                       and len(parts) > 4 else "")


def verdict(a):
    r = a.get("result")
    return "ok" if r == "ok" else "rejected" if r == "rejected" else r


def refusals(a):
    """The refused parts of an answer and their error codes."""
    return [(r.get("part"), r.get("error_code")) for r in a.get("refusals") or []]


def first_difference(x, y, path=""):
    """The JSON path of the first difference between x and y."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                return "%s.%s (%s)" % (path, k, "only Kafka" if k in x else "only kwire")
            d = first_difference(x[k], y[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            return "%s (%d vs %d elements)" % (path, len(x), len(y))
        for i, (a, b) in enumerate(zip(x, y)):
            d = first_difference(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if x == y else "%s (%s vs %s)" % (path, json.dumps(x)[:40], json.dumps(y)[:40])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kwire", default=os.path.join(ROOT, "build", "test", "tools", "kwire", "kwire"))
    ap.add_argument("--vectors", default=os.path.join(ROOT, "conformance", "vectors"))
    ap.add_argument("--json", help="write every vector's two answers here")
    ap.add_argument("--list", type=int, default=3, help="vector ids shown per kind (3)")
    ap.add_argument("--expected", help="the vectors known to disagree, one id a line with "
                    "'# reason' after it (compare_expected.txt): exit 0 when exactly these do")
    a = ap.parse_args(argv)
    if not os.access(a.kwire, os.X_OK):
        print("compare: no kwire at %s (build it, or --kwire)" % a.kwire, file=sys.stderr)
        return 2
    try:
        subprocess.run([os.path.join(HERE, "run.sh"), "--build-only"], check=True,
                       stdout=subprocess.DEVNULL)
        kafka = Testee("Apache Kafka", [os.path.join(HERE, "run.sh")])
        kwire = Testee("kwire --quirks java",
                       [a.kwire, "testee", "--quirks", "java"])
        kwire_opaque = Testee("kwire --quirks java --records opaque",
                              [a.kwire, "testee", "--quirks", "java", "--records", "opaque"])
    except (OSError, subprocess.CalledProcessError, RuntimeError) as e:
        print("compare: cannot start the testees: %s" % e, file=sys.stderr)
        return 2
    counts = collections.Counter()
    groups = collections.defaultdict(list)  # (kind, what) -> ids
    report = []
    seq = 0
    for v in vectors(a.vectors):
        seq += 1
        q = {"type": "request", "seq": seq, "op": "decode", "api_key": v["api_key"], "version": v["version"],
             "direction": v["direction"], "frame": v["frame"], "id": v["id"]}
        ka = kafka.ask(q)
        wa = (kwire if v["direction"] == "request" else kwire_opaque).ask(q)
        kv, wv = verdict(ka), verdict(wa)
        if "unsupported" in (kv, wv):
            what = "unsupported by " + ("both" if kv == wv else
                                        "Kafka" if kv == "unsupported" else "kwire")
            counts[what] += 1
            continue
        if kv != wv:
            what = "different verdict: Kafka %s, kwire %s" % (kv, wv)
        elif kv == "rejected":
            what = "same verdict, both reject"
        elif kv == "refused" and refusals(ka) != refusals(wa):
            what = "different verdict: both refuse, other parts or codes"
        elif (ka.get("header"), ka.get("body")) == (wa.get("header"), wa.get("body")):
            what = "same verdict, both read (ok or refused alike), same header and body"
        else:
            d = first_difference({"header": ka.get("header"), "body": ka.get("body")},
                                 {"header": wa.get("header"), "body": wa.get("body")})
            what = "same verdict, both read, different value"
            groups[(kind_of(v), "value: " + (d or "?").split(" (")[0].split("[")[0])].append(v["id"])
        counts[what] += 1
        if what.startswith("different verdict"):
            groups[(kind_of(v), what + ": " + (ka.get("error") or wa.get("error") or "")[:90])].append(v["id"])
        report.append({"id": v["id"], "kafka": ka, "kwire": wa, "what": what})
    kafka.close()
    kwire.close()
    kwire_opaque.close()
    print("compare: %s against %s, %d vectors of %s" % (kafka.version, kwire.version, seq, a.vectors))
    print()
    print("| | vectors |")
    print("| --- | ---: |")
    for what, n in sorted(counts.items()):
        print("| %s | %d |" % (what, n))
    if groups:
        print()
        print("| vectors | kind | what differs | e.g. |")
        print("| ---: | --- | --- | --- |")
        for (kind, what), ids in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("| %d | %s | %s | %s |" % (len(ids), kind, what.replace("|", "\\|"),
                                             ", ".join("`%s`" % i for i in ids[:a.list])))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    disagree = sum(n for w, n in counts.items()
                   if w.startswith("different") or w.endswith("different value"))
    print()
    print("compare: %d of %d vectors both support disagree" % (
        disagree, sum(n for w, n in counts.items() if not w.startswith("unsupported"))))
    if a.expected is None:
        return 1 if disagree else 0
    with open(a.expected, encoding="utf-8") as fh:
        listed = {line.split()[0] for line in fh if line.strip() and not line.startswith("#")}
    found = {r["id"] for r in report
             if r["what"].startswith("different") or r["what"].endswith("different value")}
    for i in sorted(found - listed):
        print("compare: %s disagrees and is not in %s" % (i, a.expected))
    for i in sorted(listed - found):
        print("compare: %s is listed in %s but agrees now" % (i, a.expected))
    ok = found == listed
    print("compare: %s" % ("the disagreements are exactly the %d listed" % len(listed) if ok
                           else "the disagreements are not the listed ones"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
