#!/usr/bin/env python3
"""codec/defs from Apache Kafka's release jars: the one documented step.

Usage::

    python3 tools/kafka_defs.py [--check] [--out codec/defs] [--jars-only]

Reads the pinned releases of ``tools/kafka-releases.txt``, finds each
``org.apache.kafka:kafka-clients`` jar (the local Maven repository
``~/.m2/repository`` first, then ``$KWIRE_KAFKA_JAR_CACHE`` or
``~/.cache/kwire/kafka-clients``, else downloaded from Maven Central into that
cache), checks its SHA-256 against the pin, reads the message definitions the
jar carries (``common/message/*.json``, in memory) and writes codec/defs with
``kafka_import.build_releases``: facts only, no Kafka file, comment or "about"
text.

``--check`` writes nothing and exits 1 if codec/defs differ from what the
pinned jars give (CI runs it).  ``--jars-only`` only fetches and verifies.
Environment: ``KWIRE_MAVEN_CENTRAL`` (default https://repo.maven.apache.org/maven2).
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kafka_import  # noqa: E402

ROOT = os.path.dirname(HERE)
PINS = os.path.join(HERE, "kafka-releases.txt")
CENTRAL = os.environ.get("KWIRE_MAVEN_CENTRAL", "https://repo.maven.apache.org/maven2")

#: Data messages of the jars that kwire does not import, and why. Kafka 4.4 moved the
#: record-format schemas into kafka-clients' common/message; kwire's records layer
#: (codec/records) reads and writes them itself, with its own names.
SKIP = {
    "AbortedTxn": "the transaction index's on-disk entry, not on the wire",
    "ControlRecordTypeSchema": "a control record's key; codec/records/record_batch.h "
                               "(ControlRecord) reads it",
    "EndTxnMarker": "a control record's value; codec/records/record_batch.h (EndTxnMarker) "
                    "reads and writes it",
}


def read_pins(path: str = PINS) -> List[Tuple[str, str, str]]:
    """``[(release, kafka-clients version, sha256)]`` newest first."""
    pins = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3 or len(parts[2]) != 64 or \
                    any(c not in "0123456789abcdefABCDEF" for c in parts[2]):
                raise SystemExit("%s:%d: expected 'release version sha256'" % (path, n))
            rel, ver = parts[0], parts[1]
            key = _release_key(rel)
            if key is None or not ver.startswith(rel + "."):
                raise SystemExit("%s:%d: release %r must be MAJOR.MINOR and version %r one "
                                 "of its patches" % (path, n, rel, ver))
            if pins and key >= _release_key(pins[-1][0]):
                raise SystemExit("%s:%d: release %s after %s: one line per release, newest "
                                 "first" % (path, n, rel, pins[-1][0]))
            pins.append((rel, ver, parts[2].lower()))
    if not pins:
        raise SystemExit("%s: no releases" % path)
    return pins


def _release_key(rel: str):
    """(major, minor) of "4.4", or None."""
    parts = rel.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_dir() -> str:
    return os.environ.get("KWIRE_KAFKA_JAR_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "kwire", "kafka-clients")


def jar(version: str, sha256: str, log=print, download: bool = True) -> str:
    """The verified path of kafka-clients-<version>.jar (downloaded if needed;
    with ``download`` False, "" when no verified copy is here)."""
    name = "kafka-clients-%s.jar" % version
    m2 = os.path.join(os.path.expanduser("~"), ".m2", "repository", "org", "apache",
                      "kafka", "kafka-clients", version, name)
    cached = os.path.join(cache_dir(), name)
    for p in (m2, cached):
        if os.path.isfile(p):
            if _sha256(p) == sha256:
                return p
            log("kafka_defs: %s does not have the pinned sha256; not used" % p)
    if not download:
        return ""
    url = "%s/org/apache/kafka/kafka-clients/%s/%s" % (CENTRAL, version, name)
    log("kafka_defs: downloading %s" % url)
    os.makedirs(cache_dir(), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir(), suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=120) as r:
            shutil.copyfileobj(r, out)
        got = _sha256(tmp)
        if got != sha256:
            raise SystemExit("kafka_defs: %s: sha256 %s, pinned %s" % (url, got, sha256))
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep the cache to one user
        os.replace(tmp, cached)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return cached


def local_jars() -> List[Tuple[str, str, str]]:
    """``[(release, version, path)]`` of every pinned jar, or [] when one is
    not on this machine yet (tests skip then; ``--jars-only`` fetches them)."""
    out = []
    for rel, ver, sha in read_pins():
        path = jar(ver, sha, download=False)
        if not path:
            return []
        out.append((rel, ver, path))
    return out


def without_jars(test) -> None:
    """For a unittest case that needs the pinned jars and finds them missing: a
    failure when KWIRE_REQUIRE_KAFKA_JARS is set (CI), else a skip."""
    why = "kafka-clients jars of tools/kafka-releases.txt not here"
    if os.environ.get("KWIRE_REQUIRE_KAFKA_JARS"):
        test.fail(why + " (KWIRE_REQUIRE_KAFKA_JARS is set)")
    test.skipTest(why + " (python3 tools/kafka_defs.py --jars-only fetches them)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "codec", "defs"))
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if any file would change")
    ap.add_argument("--jars-only", action="store_true", help="only fetch and verify")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    a = ap.parse_args(argv)
    log = (lambda *_: None) if a.quiet else print
    pins = read_pins()
    jars = [(rel, ver, jar(ver, sha, log)) for rel, ver, sha in pins]
    if a.jars_only:
        for rel, ver, path in jars:
            print("%s %s %s" % (rel, ver, path))
        return 0
    upstream = "org.apache.kafka:kafka-clients %s; older versions from %s (tools/kafka-releases.txt)" % (
        pins[0][1], ", ".join(v for _, v, _ in pins[1:]) if len(pins) > 1 else "-")
    try:
        sets = [(rel, kafka_import.load_schema_jar(path)) for rel, _, path in jars]
        msgs = kafka_import.build_releases(sets, upstream, log, SKIP)
    except kafka_import.ImportError_ as e:
        print("kafka_defs: error: %s" % e, file=sys.stderr)
        return 2
    changed = kafka_import.sync(a.out, kafka_import.render(msgs), a.check)
    if a.check:
        if changed:
            print("kafka_defs: %d file(s) in %s differ from the pinned releases "
                  "(python3 tools/kafka_defs.py):" % (len(changed), a.out))
            for c in changed:
                print("  " + c)
            return 1
        print("kafka_defs: %s is what kafka-clients %s gives (%d files)"
              % (a.out, ", ".join(v for _, v, _ in pins), len(msgs)))
        return 0
    print("kafka_defs: wrote %d file(s) to %s (%d changed)" % (len(msgs), a.out, len(changed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
