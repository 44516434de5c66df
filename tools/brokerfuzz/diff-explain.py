#!/usr/bin/env python3
"""Checks the reasons of the short differential run's broad expected classes.

kwire diff's signature of a verdict difference names kwire strict's reading of the frame,
not where `kwire testee --quirks java` and Apache Kafka's testee part, so two lines of
tools/brokerfuzz/diff-expected.txt match by verdicts alone. This script reads the run's
findings.jsonl (each finding with every testee's answer) and checks that each finding of
those verdicts is what the line says:

  M1  --quirks java and Kafka both read the frame, with other values: every difference is
      a member kwire shows and Java's answer lacks, holding its default value (a known
      tagged field present with its default: Java's objects cannot tell it from absent).
  J1  --quirks java rejects, Kafka reads: kwire's error is a tagged-field count of 2^31 or
      more ("tagged field count N" with N >= 2^31), which Java's int loop skips.
  J4  --quirks java rejects a Produce frame Kafka refuses in part: its error is a decoder
      limit (a records count above RecordsOptions::max_records, or the allocation budget).
  W1  (--op roundtrip runs, e.g. kwire strict, Apache Kafka and another implementation)
      kwire strict reads the frame, Kafka's roundtrip is rejected: Kafka read it but its
      RawTaggedFieldWriter refuses to write an unknown tag of 2^31 - 1 or more back
      (conformance/testees/apache-kafka/FAILURES.md, N5); or Kafka's read fails on a tag
      known at another version of the message, which kwire reads as an unknown tag (K1).
  C   a crash of another implementation's testee that its FAILURES.md explains: kafka-python
      C1 (IndexError past the end of the buffer; OverflowError when an over-long varint, L5,
      gives a length no index holds) and K2 (AssertionError of a tagged struct's tags), kafka-protocol (Rust) C1 (an allocation refused by the worker's heap cap: an
      array count taken for a capacity) and its panic on a request message shorter than 4
      bytes (decode_request_header_from_buffer, "Panics"). Any other crash, death, hang or memory fault of
      them is unexplained.

Usage: diff-explain.py FINDINGS.jsonl...   Exit 0 when every such finding is explained, 1
with the ones that are not (their ids, signatures and what differs), 2 on a usage error.
"""
import json
import re
import sys

JAVA, KAFKA, STRICT = "kwire[java]", "apache-kafka", "kwire"
# Java's RawTaggedFieldWriter on an unknown tag it read as a negative int or as
# Integer.MAX_VALUE (FAILURES.md N5).
RAW_TAG_WRITER = re.compile(r"^re-encoding what Kafka read failed: java\.lang\.RuntimeException: "
                            r"(Invalid raw tag field list: tag -\d+ comes after tag -?\d+|"
                            r"Attempted to use tag 2147483647 as an undefined tag)")


# Crashes of other implementations' testees their FAILURES.md explains: label -> [(class, regex)].
KNOWN_CRASHES = {
    "kafka-python": [("kafka-python C1", re.compile(r"IndexError: index out of bounds")),
                     ("kafka-python K2", re.compile(r"^AssertionError")),
                     # L5's varints of any length give a length no index can hold (seed 33024)
                     ("kafka-python C1/L5", re.compile(r"OverflowError: Python int too large to convert to C ssize_t|"
                                                       r"IndexError: cannot fit 'int' into an index-sized integer"))],
    "kafka-protocol_(Rust)": [("kafka-protocol C1", re.compile(r"asked for \d+ bytes at once")),
                              ("kafka-protocol panic", re.compile(
                                  r"range end out of bounds: .* in peek_bytes .*<- decode_request_header_from_buffer"))],
}


def fault_of(finding):
    """(label, verdict) when the finding's signature is one testee's fault, else None."""
    parts = finding.get("signature", "").split(" | ")
    if len(parts) == 3 and parts[1].count("=") == 1:
        label, verdict = parts[1].split("=")
        return label, verdict
    return None


# Fields of the M1 tagged structs whose schema default is -1 (Kafka's definitions:
# FetchResponse DivergingEpoch and SnapshotId, Epoch and EndOffset; CurrentLeader of the
# Fetch and Produce responses, LeaderId and LeaderEpoch).
MINUS_ONE_DEFAULT = {"Epoch", "EndOffset", "LeaderId", "LeaderEpoch"}


def is_default(v, name=None):
    """A value as FORMAT.md writes a default: 0, false, "", empty array, null, a zero uuid,
    an int64 "0", -1 for the fields of MINUS_ONE_DEFAULT, or an object all of whose
    members are defaults."""
    if name in MINUS_ONE_DEFAULT and v in (-1, "-1"):
        return True
    if v in (0, False, "", None, "0", []):
        return True
    if isinstance(v, str) and re.fullmatch(r"0{32}", v):
        return True
    if isinstance(v, dict):
        return all(is_default(x, k) for k, x in v.items() if k != "_unknownTaggedFields")
    return False


def differences(a, b, path=""):
    """(kind, path, value) for each place the JSON values a (kwire) and b (Java) differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k, v in a.items():
            out += [("only kwire", f"{path}.{k}", v)] if k not in b else differences(v, b[k], f"{path}.{k}")
        out += [("only java", f"{path}.{k}", v) for k, v in b.items() if k not in a]
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [("length", path, (len(a), len(b)))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b or str(a) == str(b) else [("value", path, (a, b))]


def explain(finding):
    """None when the finding is not one this script judges, else (ok, why)."""
    answers = finding.get("answers", {})
    fault = fault_of(finding)
    if fault and fault[0] in KNOWN_CRASHES:
        label, verdict = fault
        text = answers.get(label, {}).get("error", "") + " " + answers.get(label, {}).get("detail", "")
        for cls, rx in KNOWN_CRASHES[label]:
            if verdict == "crashed" and rx.search(text):
                return True, cls
        return False, f"{label} {verdict}: {text[:200]}"
    java, kafka = answers.get(JAVA, {}), answers.get(KAFKA, {})
    jr, kr = java.get("result"), kafka.get("result")
    strict = answers.get(STRICT, {})
    if JAVA not in answers and kafka.get("op") == "roundtrip" and kr == "rejected" and \
            strict.get("result") in ("ok", "refused"):
        # The message itself names the tag: negative (read from 2^31 or more) or 2^31 - 1.
        if RAW_TAG_WRITER.match(kafka.get("error", "")):
            return True, "W1"
        if re.match(r"^java\.lang\.RuntimeException: Tag \d+ is not valid for version \d+", kafka.get("error", "")):
            return True, "K1"
        return False, "Kafka's roundtrip rejects what kwire strict reads: " + kafka.get("error", "")[:200]
    if jr == "rejected" and kr == "refused" and finding.get("api_key") == 0:
        if re.search(r"records count \d+ (above|needs)|allocation_budget|count_too_large",
                     java.get("error", "") + " " + java.get("kind", "")):
            return True, "J4"
        return False, "--quirks java rejects a Produce frame Kafka refuses in part: " + java.get("error", "")[:200]
    if jr == "refused" and kr == "ok" and finding.get("api_key") == 0:
        kinds = {r.get("kind") for r in java.get("refusals", [])}
        if kinds == {"records_not_allowed"}:
            # Was J5 (zstd in Produce v0-v2, Apache Kafka N6): --quirks java reads it now
            # (kQuirkOldProduceCodecUnchecked), so no such refusal is expected at any version.
            return False, "--quirks java refuses a Produce partition Kafka reads (records_not_allowed)"
        return None
    if jr == "rejected" and kr == "ok":
        m = re.search(r"tagged field count (\d+)", java.get("error", ""))
        if m and int(m.group(1)) >= 2**31:
            return True, "J1"
        return False, "--quirks java rejects what Kafka reads: " + java.get("error", "")[:200]
    if jr == "ok" and kr == "ok":
        diffs = differences(java.get("body"), kafka.get("body"), "body")
        diffs += differences(java.get("header"), kafka.get("header"), "header")
        if not diffs:
            return None
        bad = [d for d in diffs if not (d[0] == "only kwire" and is_default(d[2]))]
        if not bad:
            return True, "M1"
        return False, "values differ: " + "; ".join(f"{k} {p} {json.dumps(v)[:80]}" for k, p, v in bad[:3])
    return None


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 else 2
    unexplained, counts = [], {}
    for path in argv[1:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                finding = json.loads(line)
                verdict = explain(finding)
                if verdict is None:
                    continue
                ok, why = verdict
                if ok:
                    counts[why] = counts.get(why, 0) + 1
                else:
                    unexplained.append((finding.get("id"), finding.get("signature"), why))
    print("diff-explain: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) +
          f"; {len(unexplained)} unexplained")
    for fid, sig, why in unexplained:
        print(f"  {fid}  {sig}\n      {why}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
