#!/usr/bin/env python3
"""Independent reference encoder for kwire's conformance vectors.

This tool is the oracle: it shares no code with the C++ codec (codec/) nor
with the project's importer/generator (tools/kafka_import.py, tools/kdef.py).
It reads an Apache Kafka message-definition directory directly (the JSON
files with `//` comments) and encodes the *documented minimal frame* of every
API key x every valid version x {request, response}.  The rule is written
out in conformance/README.md; in short:

  * numeric fields 0, bool false, uuid all-zero, strings and bytes empty,
    never null (a nullable struct is present: int8 1, then the struct);
  * every array carries exactly one minimal element;
  * a records field holds one empty 61-byte RecordBatch v2;
  * tagged fields are left at their default, so every tagged-field section
    is the uvarint count 0;
  * frame = int32 size + request/response header + body.

The Encoder writes any message value given in the JSON mapping of
conformance/FORMAT.md; the minimal frames are the encoding of one particular
value (minimal_value).  The same file holds a reference Decoder (strict, or
with Java's leniencies; the strict one validates records fields under each
field's policy, RecordsChecker), the seeded generator of rich instances, the
mutations of negative vectors, and the records set (record batches with every
codec, written without compressors, and their mutations); all of them are
written both as the text files and as JSON Lines (*.jsonl) from one in-memory
list (build_vectors).

Python 3 standard library only.  Usage:

  python3 tools/conformance_ref.py             # write conformance/vectors from
                                           # the releases pinned in
                                           # tools/kafka-releases.txt
  python3 tools/conformance_ref.py --check     # exit 1 if committed files differ
  python3 tools/conformance_ref.py --explain 41 3 request
  (--schemas <dir> [--removed-from <old dir>]: Kafka JSON directories instead)
                                           # print the encoded tree of one frame
"""

import argparse
import difflib
import hashlib
import json
import os
import random
import re
import struct
import sys
import zlib

# ---------------------------------------------------------------------------
# CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, table driven.

_CRC32C_POLY = 0x82F63B78


def _make_crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _CRC32C_POLY if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C_TABLE = _make_crc32c_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _CRC32C_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# ---------------------------------------------------------------------------
# The empty RecordBatch v2 (61 bytes).

EMPTY_BATCH_CRC = 0x595FB7DD
EMPTY_BATCH_SIZE = 61


def empty_record_batch():
    """One RecordBatch v2 with zero records; every numeric field 0."""
    after_crc = (
        struct.pack(">h", 0)      # attributes
        + struct.pack(">i", 0)    # lastOffsetDelta
        + struct.pack(">q", 0)    # baseTimestamp
        + struct.pack(">q", 0)    # maxTimestamp
        + struct.pack(">q", 0)    # producerId
        + struct.pack(">h", 0)    # producerEpoch
        + struct.pack(">i", 0)    # baseSequence
        + struct.pack(">i", 0)    # records count
    )
    crc = crc32c(after_crc)
    # batchLength counts the bytes after the batchLength field itself.
    batch_length = 4 + 1 + 4 + len(after_crc)
    batch = (
        struct.pack(">q", 0)              # baseOffset
        + struct.pack(">i", batch_length)  # batchLength
        + struct.pack(">i", 0)            # partitionLeaderEpoch
        + struct.pack(">b", 2)            # magic
        + struct.pack(">I", crc)          # crc
        + after_crc
    )
    assert batch_length == 49, batch_length
    assert len(batch) == EMPTY_BATCH_SIZE, len(batch)
    assert crc == EMPTY_BATCH_CRC, hex(crc)
    return bytes(batch)


# ---------------------------------------------------------------------------
# Reading the definition files.

class SchemaError(Exception):
    pass


def strip_comments(text):
    """Remove `//` line comments, leaving `//` inside JSON strings intact."""
    out = []
    i = 0
    n = len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
            continue
        if c == '"':
            in_string = True
            out.append(c)
            i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


class Versions:
    """A version range: "N+", "N-M", "N" or "none"."""

    def __init__(self, spec):
        self.spec = spec
        spec = spec.strip()
        if spec == "none":
            self.lo, self.hi = 1, 0  # empty
        elif spec.endswith("+"):
            self.lo, self.hi = int(spec[:-1]), None
        elif "-" in spec:
            a, b = spec.split("-", 1)
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(spec)

    def __contains__(self, v):
        return v >= self.lo and (self.hi is None or v <= self.hi)

    def listed(self):
        if self.hi is None:
            raise SchemaError("open range %r cannot be listed" % self.spec)
        return list(range(self.lo, self.hi + 1))


NO_VERSIONS = Versions("none")

FIXED_SIZES = {
    "bool": 1, "int8": 1, "int16": 2, "uint16": 2, "int32": 4,
    "uint32": 4, "int64": 8, "float64": 8, "uuid": 16,
}
LENGTH_TYPES = ("string", "bytes", "records")


def is_primitive(t):
    return t in FIXED_SIZES or t in LENGTH_TYPES


def load_json(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        return json.loads(strip_comments(text))
    except ValueError as exc:
        raise SchemaError("%s: %s" % (path, exc))


class MessageDef:
    def __init__(self, path, doc):
        self.path = path
        self.name = doc["name"]
        self.kind = doc["type"]  # request | response | header
        self.api_key = doc.get("apiKey")
        self.valid = Versions(doc["validVersions"])
        self.flexible = Versions(doc.get("flexibleVersions", "none"))
        self.unstable = bool(doc.get("latestVersionUnstable", False))
        self.fields = doc.get("fields", [])
        # Named struct types visible in this file: commonStructs, plus every
        # struct declared inline by a field (which later fields may reuse by
        # name without repeating "fields").
        self.structs = {}
        for s in doc.get("commonStructs", []):
            self.structs[s["name"]] = s["fields"]
        self._collect_inline(self.fields)

    def _collect_inline(self, fields):
        for f in fields:
            if "fields" in f:
                t = f["type"]
                name = t[2:] if t.startswith("[]") else t
                self.structs.setdefault(name, f["fields"])
                self._collect_inline(f["fields"])

    @property
    def api_name(self):
        for suffix in ("Request", "Response"):
            if self.name.endswith(suffix):
                return self.name[: -len(suffix)]
        return self.name

    def struct_fields(self, field, type_name):
        if "fields" in field:
            return field["fields"]
        if type_name in self.structs:
            return self.structs[type_name]
        raise SchemaError("%s: unknown struct type %r (field %s)"
                          % (self.path, type_name, field.get("name")))


def jar_docs(path):
    """[(name, parsed JSON)] of a kafka-clients jar's common/message/*.json
    (read in memory)."""
    import zipfile
    out = []
    with zipfile.ZipFile(path) as z:
        for n in sorted(z.namelist()):
            if not (n.startswith("common/message/") and n.endswith(".json")):
                continue
            where = "%s!%s" % (os.path.basename(path), n)
            text = z.read(n).decode("utf-8")
            try:
                # raw_decode: Jackson reads the first value and ignores text
                # after it (Kafka 2.8.2's DescribeProducersRequest.json).
                doc, _ = json.JSONDecoder().raw_decode(strip_comments(text).strip())
            except ValueError as exc:
                raise SchemaError("%s: %s" % (where, exc))
            out.append((where, doc))
    return out


def release_sets(download=True):
    """[SchemaSet] of the releases pinned in tools/kafka-releases.txt, newest
    first (jars fetched and verified by tools/kafka_defs.py; without
    `download`, [] unless all are on this machine)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kafka_defs  # the jar fetcher only; the definitions are read here
    out = []
    for rel, ver, sha in kafka_defs.read_pins():
        path = kafka_defs.jar(ver, sha, lambda *_: None, download)
        if not path:
            return []
        out.append(SchemaSet(None, jar_docs(path),
                             "org.apache.kafka:kafka-clients %s" % ver))
    return out


class SchemaSet:
    def __init__(self, directory, docs=None, label=None):
        """The definitions of `directory` (*.json), or of `docs` ([(name,
        parsed JSON)], e.g. jar_docs) labelled `label`.  Tombstones (an API
        removed with validVersions "none") are left out."""
        self.directory = directory
        self.messages = {}  # (api_key, "request"|"response") -> MessageDef
        self.headers = {}   # "RequestHeader"/"ResponseHeader" -> MessageDef
        if docs is None:
            docs = [(os.path.join(directory, fn), load_json(os.path.join(directory, fn)))
                    for fn in sorted(os.listdir(directory)) if fn.endswith(".json")]
        for path, doc in docs:
            if doc.get("validVersions") == "none":
                continue
            kind = doc.get("type")
            if kind in ("request", "response"):
                m = MessageDef(path, doc)
                key = (m.api_key, kind)
                if key in self.messages:
                    raise SchemaError("duplicate %r in %s" % (key, path))
                self.messages[key] = m
            elif kind == "header":
                m = MessageDef(path, doc)
                self.headers[m.name] = m
        for h in ("RequestHeader", "ResponseHeader"):
            if h not in self.headers:
                raise SchemaError("%s: no %s.json" % (directory or label, h))
        self.label = label or (source_label(directory) if directory else None)

    def frames(self):
        """Yield (api_key, api_name, version, direction, MessageDef)."""
        out = []
        for (key, kind), m in self.messages.items():
            for v in m.valid.listed():
                out.append((key, m.api_name, v, kind, m))
        out.sort(key=lambda r: (r[0], r[2], r[3] != "request"))
        return out


def source_label(directory):
    """Describe the snapshot from a SOURCE.txt beside the files, if any."""
    path = os.path.join(directory, "SOURCE.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        text = " ".join(fh.read().split())
    m = re.search(r"trunk at commit ([0-9a-f]+), (\d{4}-\d{2}-\d{2})", text)
    if not m:
        return None
    return "apache/kafka trunk %s (commit %s)" % (m.group(2), m.group(1))


# ---------------------------------------------------------------------------
# Encoding.

def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Out:
    """Byte sink that can also record a tree of (offset, size, path, type,
    value, meta) nodes, for --explain, for cross-checking seeds.txt and for
    locating the fields that negative vectors mutate."""

    def __init__(self, trace=False):
        self.buf = bytearray()
        self.nodes = [] if trace else None
        self.stats = None

    def open(self, path, typ, value=None, meta=None):
        if self.nodes is None:
            return None
        node = [len(self.buf), None, path, typ, value, meta or {}]
        self.nodes.append(node)
        return node

    def close(self, node, value=None):
        if node is None:
            return
        node[1] = len(self.buf) - node[0]
        if value is not None:
            node[4] = value

    def leaf(self, path, typ, data, value, meta=None):
        node = self.open(path, typ, value, meta)
        self.buf += data
        self.close(node)

    def splice(self, other):
        """Append another Out's bytes and (shifted) nodes."""
        base = len(self.buf)
        self.buf += other.buf
        if self.nodes is not None and other.nodes is not None:
            for n in other.nodes:
                self.nodes.append([n[0] + base] + n[1:])


# ---------------------------------------------------------------------------
# The JSON mapping of values (conformance/FORMAT.md).

INT_RANGES = {
    "int8": (-2 ** 7, 2 ** 7 - 1), "int16": (-2 ** 15, 2 ** 15 - 1),
    "uint16": (0, 2 ** 16 - 1), "int32": (-2 ** 31, 2 ** 31 - 1),
    "uint32": (0, 2 ** 32 - 1), "int64": (-2 ** 63, 2 ** 63 - 1),
}
INT_FORMATS = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i",
               "uint32": ">I", "int64": ">q"}
QUIET_NAN = 0x7FF8000000000000


def float64_to_json(bits):
    """The JSON mapping of a float64 given as its 64-bit pattern."""
    if bits & 0x7FF0000000000000 == 0x7FF0000000000000:
        if bits & 0x000FFFFFFFFFFFFF == 0:
            return "-Infinity" if bits >> 63 else "Infinity"
        return "NaN" if bits == QUIET_NAN else "NaN:0x%016x" % bits
    return struct.unpack(">d", bits.to_bytes(8, "big"))[0]


def float64_bits(value):
    """The 64-bit pattern of a float64 given in the JSON mapping."""
    if isinstance(value, str):
        if value == "Infinity":
            return 0x7FF0000000000000
        if value == "-Infinity":
            return 0xFFF0000000000000
        if value == "NaN":
            return QUIET_NAN
        if value.startswith("NaN:0x") and len(value) == 22:
            bits = int(value[6:], 16)
            if isinstance(float64_to_json(bits), str) and \
                    float64_to_json(bits).startswith("NaN"):
                return bits
        raise SchemaError("bad float64 %r" % value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError("bad float64 %r" % (value,))
    return int.from_bytes(struct.pack(">d", float(value)), "big")


def canonical_json(value):
    """Compact, key-order-preserving JSON, ASCII only (other characters as
    \\u escapes, so no reader can split a line at U+2028 or U+0085); the
    form vectors are written in."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"),
                      allow_nan=False)


def is_tagged(f, version):
    return "taggedVersions" in f and version in Versions(f["taggedVersions"])


def field_tag(f):
    return int(f["tag"])


def minimal_primitive(t, batch):
    if t == "int64":
        return "0"
    if t in INT_RANGES:
        return 0
    return {"bool": False, "float64": 0.0, "uuid": "00" * 16, "string": "",
            "bytes": "", "records": batch.hex()}[t]


def minimal_value(msg, fields, version, batch):
    """The documented minimal instance (conformance/README.md) of a struct,
    in the JSON mapping: the value the minimal frames encode."""
    out = {}
    for f in fields:
        if version not in Versions(f["versions"]) or is_tagged(f, version):
            continue
        t = f["type"]
        if t.startswith("[]"):
            et = t[2:]
            if is_primitive(et):
                out[f["name"]] = [minimal_primitive(et, batch)]
            else:
                out[f["name"]] = [minimal_value(
                    msg, msg.struct_fields(f, et), version, batch)]
        elif is_primitive(t):
            out[f["name"]] = minimal_primitive(t, batch)
        else:
            out[f["name"]] = minimal_value(msg, msg.struct_fields(f, t),
                                           version, batch)
    return out


def request_header_version(api_key, version, flexible):
    if api_key == 7 and version == 0:
        return 0  # ControlledShutdown v0: api_key, api_version, corr id
    return 2 if flexible else 1


def response_header_version(api_key, version, flexible):
    if api_key == 18:
        return 0  # ApiVersions responses always use header v0
    return 1 if flexible else 0


def header_version(msg, version):
    flexible = version in msg.flexible
    if msg.kind == "request":
        return request_header_version(msg.api_key, version, flexible)
    return response_header_version(msg.api_key, version, flexible)


def minimal_header(schemas, msg, version):
    hv = header_version(msg, version)
    if msg.kind == "request":
        h = {"RequestApiKey": msg.api_key, "RequestApiVersion": version,
             "CorrelationId": 0}
        if hv >= 1:
            h["ClientId"] = ""
        return h
    return {"CorrelationId": 0}


class Encoder:
    """Encodes any message value given in the JSON mapping of FORMAT.md.
    The minimal frames are the encoding of minimal_value()."""

    def __init__(self, schemas, batch=None, stats=None):
        self.schemas = schemas
        self.batch = batch if batch is not None else empty_record_batch()
        self.stats = stats  # optional dict of observations

    def _note(self, what, detail):
        if self.stats is not None:
            self.stats.setdefault(what, set()).add(detail)

    # -- fields ----------------------------------------------------------

    def struct(self, out, msg, fields, version, flexible, path, label, value):
        if not isinstance(value, dict):
            raise SchemaError("%s: expected an object, got %r" % (path, value))
        start = len(out.buf)
        known = {}
        names = set()
        for f in fields:
            if version not in Versions(f["versions"]):
                continue
            name = f["name"]
            names.add(name)
            if is_tagged(f, version):
                known[field_tag(f)] = f
                if name not in value:
                    self._note("tagged field skipped",
                               "%s.%s" % (msg.name, name))
                continue
            if "tag" in f and "taggedVersions" not in f:
                raise SchemaError("%s: %s has a tag but no taggedVersions"
                                  % (msg.path, name))
            if name not in value:
                raise SchemaError("%s: missing field %s" % (path, name))
            self.field(out, msg, f, version, flexible, path, value[name])
        extra = set(value) - names - {"_unknownTaggedFields"}
        if extra:
            raise SchemaError("%s: unknown members %s at v%d"
                              % (path, sorted(extra), version))
        unknown = value.get("_unknownTaggedFields", [])
        if flexible:
            self.tags(out, msg, version, path, known, value, unknown)
        elif unknown:
            raise SchemaError("%s: tagged fields in a non-flexible version"
                              % path)
        if len(out.buf) == start and label is not None:
            self._note("zero-size struct",
                       "%s v%d %s" % (msg.name, version, label))

    def tags(self, out, msg, version, path, known, value, unknown):
        """KIP-482 tagged fields: uvarint count, then (uvarint tag, uvarint
        size, value) in ascending tag order, known and unknown merged."""
        entries = []
        for tag, f in known.items():
            if f["name"] in value:
                sub = Out(out.nodes is not None)
                self.field(sub, msg, f, version, True, path,
                           value[f["name"]])
                entries.append((tag, sub, f["name"]))
        for u in unknown:
            tag = u["tag"]
            if tag in known:
                raise SchemaError("%s: unknown tag %d is a known tag"
                                  % (path, tag))
            sub = Out(False)
            sub.buf += bytes.fromhex(u["data"])
            entries.append((tag, sub, None))
        entries.sort(key=lambda e: e[0])
        for a, b in zip(entries, entries[1:]):
            if a[0] == b[0]:
                raise SchemaError("%s: tag %d twice" % (path, a[0]))
        tpath = join(path, "tagged_fields")
        meta = {"tags": sorted(known), "known": known, "msg": msg,
                "version": version, "struct": path}
        if not entries:
            out.leaf(tpath, "uvarint", uvarint(0), "0", meta)
            return
        node = out.open(tpath, "tagged_fields", str(len(entries)), meta)
        out.leaf(join(tpath, "count"), "uvarint", uvarint(len(entries)),
                 str(len(entries)))
        for tag, sub, name in entries:
            out.buf += uvarint(tag) + uvarint(len(sub.buf))
            out.splice(sub)
        out.close(node)

    def field(self, out, msg, f, version, flexible, path, v):
        name = f["name"]
        fpath = join(path, name)
        t = f["type"]
        nullable = version in Versions(f.get("nullableVersions", "none"))
        # Field-level flexibleVersions (RequestHeader.ClientId: "none")
        # overrides compactness of strings and bytes.
        if "flexibleVersions" in f:
            compact = version in Versions(f["flexibleVersions"])
        else:
            compact = flexible
        meta = {"type": t, "nullable": nullable, "compact": compact,
                "flexible": flexible, "null": v is None, "field": f,
                "msg": msg, "version": version}
        if v is None and not nullable:
            raise SchemaError("%s: null in a non-nullable field" % fpath)
        if t.startswith("[]"):
            et = t[2:]
            node = out.open(fpath, t, None, meta)
            if v is None:
                out.leaf(join(fpath, "length"),
                         "uvarint" if flexible else "int32",
                         uvarint(0) if flexible else struct.pack(">i", -1),
                         "0" if flexible else "-1")
                out.close(node, "null")
                return
            if not isinstance(v, list):
                raise SchemaError("%s: expected an array" % fpath)
            n = len(v)
            out.leaf(join(fpath, "length"), "uvarint" if flexible else "int32",
                     uvarint(n + 1) if flexible else struct.pack(">i", n),
                     str(n + 1) if flexible else str(n))
            for i, e in enumerate(v):
                epath = "%s[%d]" % (fpath, i)
                if is_primitive(et):
                    self.primitive(out, msg, et, epath, compact, version,
                                   False, e)
                else:
                    enode = out.open(epath, et)
                    self.struct(out, msg, msg.struct_fields(f, et), version,
                                flexible, epath,
                                "%s[%d] (%s)" % (fpath, i, et), e)
                    out.close(enode)
            out.close(node, str(n))
        elif is_primitive(t):
            if t == "records":
                self._note("records field", "%s.%s" % (msg.name, name))
            self.primitive(out, msg, t, fpath, compact, version, nullable, v,
                           meta)
        else:
            node = out.open(fpath, t, None, meta)
            if nullable:
                self._note("nullable struct field",
                           "%s v%d %s (%s)" % (msg.name, version, fpath, t))
                if v is None:
                    out.leaf(join(fpath, "present"), "int8", b"\xff", "-1",
                             {"marker": True})
                    out.close(node, "null")
                    return
                out.leaf(join(fpath, "present"), "int8", b"\x01", "1",
                         {"marker": True})
            self.struct(out, msg, msg.struct_fields(f, t), version, flexible,
                        fpath, "%s (%s)" % (fpath, t), v)
            out.close(node)

    def primitive(self, out, msg, t, path, compact, version, nullable, v,
                  meta=None):
        if meta is None:
            meta = {"type": t, "nullable": nullable, "compact": compact,
                    "null": v is None, "element": True}
        if t in INT_RANGES:
            iv = int(v) if t == "int64" and isinstance(v, str) else v
            lo, hi = INT_RANGES[t]
            if isinstance(iv, bool) or not isinstance(iv, int) or \
                    not lo <= iv <= hi:
                raise SchemaError("%s: bad %s %r" % (path, t, v))
            out.leaf(path, t, struct.pack(INT_FORMATS[t], iv), str(iv), meta)
        elif t == "bool":
            if not isinstance(v, bool):
                raise SchemaError("%s: bad bool %r" % (path, v))
            out.leaf(path, t, b"\x01" if v else b"\x00",
                     "true" if v else "false", meta)
        elif t == "float64":
            bits = float64_bits(v)
            shown = "0.0" if bits == 0 else canonical_json(
                float64_to_json(bits))
            out.leaf(path, t, bits.to_bytes(8, "big"), shown, meta)
        elif t == "uuid":
            data = bytes.fromhex(v)
            if len(data) != 16 or data.hex() != v:
                raise SchemaError("%s: bad uuid %r" % (path, v))
            out.leaf(path, t, data, "0" if data == bytes(16) else v, meta)
        elif t == "string":
            if v is None:
                out.leaf(path, t, uvarint(0) if compact
                         else struct.pack(">h", -1), "null", meta)
                return
            data = v.encode("utf-8")  # raises on lone surrogates
            if len(data) > 0x7FFF:
                raise SchemaError("%s: string too long" % path)
            prefix = uvarint(len(data) + 1) if compact else \
                struct.pack(">h", len(data))
            out.leaf(path, t, prefix + data,
                     '""' if not data else canonical_json(v), meta)
        elif t in ("bytes", "records"):
            if v is None:
                out.leaf(path, t, uvarint(0) if compact
                         else struct.pack(">i", -1), "null", meta)
                return
            data = bytes.fromhex(v)
            if data.hex() != v:
                raise SchemaError("%s: bad hex %r" % (path, v))
            n = len(data)
            prefix = uvarint(n + 1) if compact else struct.pack(">i", n)
            if t == "bytes":
                out.leaf(path, t, prefix + data,
                         "empty" if not data else "%d bytes" % n, meta)
                return
            empty = data == self.batch
            node = out.open(path, t, "RecordBatch v2, 0 records" if empty
                            else "%d bytes" % n, meta)
            out.leaf(join(path, "length"), "uvarint" if compact else "int32",
                     prefix, str(n + 1) if compact else str(n))
            out.leaf(join(path, "batch"), "RecordBatch", data,
                     "crc 0x%08x" % EMPTY_BATCH_CRC if empty else "")
            out.close(node)
        else:
            raise SchemaError("%s: unknown type %r" % (msg.path, t))

    # -- headers and frames ---------------------------------------------

    request_header_version = staticmethod(request_header_version)
    response_header_version = staticmethod(response_header_version)

    def header(self, out, msg, version, value):
        kind, api_key = msg.kind, msg.api_key
        hname = "RequestHeader" if kind == "request" else "ResponseHeader"
        h = self.schemas.headers[hname]
        hv = header_version(msg, version)
        if hv not in h.valid:
            raise SchemaError("%s has no version %d" % (h.name, hv))
        start = len(out.buf)
        node = out.open(h.name, "v%d" % hv)
        self.struct(out, h, h.fields, hv, hv in h.flexible, h.name, None,
                    value)
        out.close(node)
        if value == minimal_header(self.schemas, msg, version):
            # Cross-check against the rule as written in conformance/README.md.
            got = bytes(out.buf[start:])
            corr = b"\x00\x00\x00\x00"
            if kind == "request":
                want = struct.pack(">hh", api_key, version) + corr
                if hv >= 1:
                    want += b"\x00\x00"  # client_id "" as int16 length 0
                if hv >= 2:
                    want += b"\x00"
            else:
                want = corr + (b"\x00" if hv >= 1 else b"")
            if got != want:
                raise SchemaError("%s v%d encodes as %s, expected %s"
                                  % (h.name, hv, got.hex(), want.hex()))
        return hv

    def frame(self, msg, version, trace=False, header=None, body=None):
        """Encode one frame; header/body in the JSON mapping (default: the
        documented minimal instance).  Returns (bytes, nodes)."""
        if version not in msg.valid:
            raise SchemaError("%s has no version %d" % (msg.name, version))
        if header is None:
            header = minimal_header(self.schemas, msg, version)
        if body is None:
            body = minimal_value(msg, msg.fields, version, self.batch)
        out = Out(trace)
        root = out.open(msg.name, "message", "v%d" % version)
        flexible = version in msg.flexible
        fnode = out.open("Frame", "frame")
        out.leaf("Frame.size", "int32", b"\x00\x00\x00\x00", None)
        out.close(fnode)
        self.header(out, msg, version, header)
        bnode = out.open("Body", "struct")
        self.struct(out, msg, msg.fields, version, flexible, "Body", "Body",
                    body)
        out.close(bnode)
        size = len(out.buf) - 4
        out.buf[0:4] = struct.pack(">i", size)
        if out.nodes is not None:
            out.nodes[2][4] = str(size)  # Frame.size
        out.close(root)
        return bytes(out.buf), out.nodes

# ---------------------------------------------------------------------------
# The reference decoder: a frame back to the JSON mapping.  Strict by
# default (the rules of conformance/FORMAT.md); with java=True it follows
# Apache Kafka's Java decoder instead, which is how negative vectors get
# their `lenient` flag (accept/reject only; the values are not used).

class DecodeError(Exception):
    def __init__(self, kind, offset, path, detail=""):
        Exception.__init__(self, "%s at byte %d in %s%s" % (
            kind, offset, path or "<frame>",
            " (%s)" % detail if detail else ""))
        self.kind, self.offset, self.path, self.detail = \
            kind, offset, path, detail

    def as_json(self):
        return {"kind": self.kind, "offset": self.offset, "path": self.path}


def _signed32(n):
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


# What Apache Kafka 4.4's broker answers a Produce partition whose records
# are faulty (the frame itself reads: Java keeps records as bytes; FORMAT.md,
# "Refused, not unreadable").  The broker's sequence, over the field's bytes
# (file:line in the 4.4.0 jars and a real broker's answers:
# conformance/testees/apache-kafka/FAILURES.md, "Refusals"):
#  1. every partition's first batch header is probed first
#     (RequestUtils.hasTransactionalRecords via
#     ByteBufferLogInputStream.nextBatchSize): batchLength below 14 or a magic
#     outside 0-2 is CORRUPT_MESSAGE for the whole request;
#  2. ProduceRequest.validateRecords (v3+): no complete batch, magic 0/1, two
#     batches: INVALID_RECORD; zstd below v7: UNSUPPORTED_COMPRESSION_TYPE;
#     codec id 5-7 below v7: UNKNOWN_SERVER_ERROR for the whole request;
#  3. the append: a v2 batch under 51 bytes, UNKNOWN_SERVER_ERROR for the
#     whole request (producerId() at byte 43); under 61 bytes or a CRC
#     mismatch, CORRUPT_MESSAGE; codec id 5-7, UNKNOWN_SERVER_ERROR; a corrupt
#     compressed stream, UNKNOWN_SERVER_ERROR (KafkaException); records that
#     do not read, INVALID_RECORD.
# A batch cut short after complete ones is dropped and the rest appended
# (UnifiedLog.trimInvalidBytes), Kafka's record reader takes an over-long
# varint and a key or value length below -1 (as null), and it never checks
# a record's length in a compressed batch (read in place): there the
# broker appends ("kafka_appends"), the strict decoder refuses.  The same
# rule as kwire's (codec/protocol/refusal.cc).
ERROR_NAMES = {-1: "UNKNOWN_SERVER_ERROR", 2: "CORRUPT_MESSAGE",
               76: "UNSUPPORTED_COMPRESSION_TYPE", 87: "INVALID_RECORD"}


def _java_walk(data):
    """ByteBufferLogInputStream.nextBatch over `data`: ([(start, end, magic,
    codec)], offset where nextBatchSize throws or None)."""
    complete, pos = [], 0
    while len(data) - pos >= LOG_OVERHEAD:
        rem = len(data) - pos
        length = struct.unpack_from(">i", data, pos + 8)[0]
        if length < 14:
            return complete, pos
        if rem < 17:
            break
        magic = struct.unpack_from(">b", data, pos + 16)[0]
        if magic not in (0, 1, 2):
            return complete, pos
        if length > rem - LOG_OVERHEAD:
            break
        end = pos + LOG_OVERHEAD + length
        at = pos + (22 if magic == 2 else 17)
        complete.append((pos, end, magic, data[at] & 7 if at < end else 0))
        pos = end
    return complete, None


def broker_answer(err, field_path, data, policy, version):
    """(code, whole_request, kafka_appends) for the fault `err` (a
    DecodeError of RecordsChecker) in the Produce field `field_path` holding
    `data`."""
    _, one_v2_from, zstd_from = policy
    complete, corrupt = _java_walk(data)
    # The batch the fault is in: kwire's and Java's walks agree on complete
    # batches, so its index in the path is its index here.
    m = re.match(r"\.Batch\[(\d+)\]", err.path[len(field_path):])
    index = int(m.group(1)) if m else len(complete)
    if corrupt == 0:
        return 2, True, False
    if one_v2_from is not None and version >= one_v2_from:
        if not complete or complete[0][2] != 2:
            return 87, False, False
        codec = complete[0][3]
        if zstd_from is not None and version < zstd_from and codec == 4:
            return 76, False, False
        if zstd_from is not None and version < zstd_from and codec >= 5:
            return -1, True, False
        if len(complete) >= 2:
            return 87, False, False
        if corrupt is not None:
            return 2, False, False
    elif err.kind == "records_not_allowed":
        # Below v3 the only rule is the codec's (zstd from v7, KIP-110), which
        # Java's validateRecords does not check there: Kafka appends it.
        return 76, False, True
    if index < len(complete):
        start, end, magic, codec = complete[index]
        if magic == 2 and end - start < 51:
            return -1, True, False
        if err.kind == "crc_mismatch" or (magic == 2 and end - start < 61):
            return 2, False, False
        if codec >= 5:
            return -1, False, False
        if err.kind == "compression_error":
            return -1, False, False
        # Kafka's record reader takes an over-long varint, a key or value
        # length below -1 (as null) and a header key's ill-formed UTF-8.
        takes = err.kind in ("varint_non_canonical", "invalid_utf8") or (
            err.kind == "invalid_length" and ".Headers" not in err.path
            and err.path.endswith((".Key", ".Value")))
        # A compressed batch is read in place (skipKeyValueIterator,
        # DefaultRecord.readPartiallyFrom): a record's length is never
        # compared with its fields (a records count above the records
        # present still fails: premature EOF).
        in_place = magic == 2 and codec != 0 and \
            err.kind == "corrupt_records" and \
            err.path.rsplit(".", 1)[-1].startswith("Record[") and \
            "records count" not in err.detail
        return 87, False, takes or in_place
    if corrupt is not None:
        return 2, False, False
    return 2, False, True


class Decoder:
    def __init__(self, schemas, java=False, broker=False):
        """java: Java's leniencies (records unparsed).  broker: strict, but a
        fault in a records field a broker reads past (layout "whole":
        Produce) is appended to self.refusals instead of raised."""
        self.schemas = schemas
        self.java = java
        self.broker = broker
        self.refusals = []
        self.kafka_appends = []
        self._min = {}

    # -- primitives -------------------------------------------------------

    def need(self, n, start, path, what):
        if n > self.end - self.pos:
            raise DecodeError("truncated", start, path, "%s: need %d, have %d"
                              % (what, n, self.end - self.pos))

    def fixed(self, fmt, n, path):
        start = self.pos
        self.need(n, start, path, fmt)
        v = struct.unpack_from(fmt, self.data, start)[0]
        self.pos += n
        return v

    def uvarint(self, path):
        """An unsigned varint of at most 5 bytes (32 bits)."""
        start = self.pos
        v = 0
        for i in range(5):
            if self.pos >= self.end:
                raise DecodeError("truncated", start, path, "uvarint")
            b = self.data[self.pos]
            self.pos += 1
            v |= (b & 0x7F) << (7 * i)
            if b & 0x80:
                continue
            if i == 4 and b > 0x0F:
                if not self.java:
                    raise DecodeError("varint_overflow", start, path,
                                      "byte 5 is 0x%02x" % b)
                v &= 0xFFFFFFFF
            if i > 0 and b == 0 and not self.java:
                raise DecodeError("varint_non_canonical", start, path,
                                  "%d bytes end in a zero group" % (i + 1))
            return v
        raise DecodeError("varint_too_long", start, path,
                          "continues past 5 bytes")

    def length(self, compact, classic_fmt, path):
        """A length or count: compact uvarint n+1 (0 = null) or a signed
        int16/int32.  Returns (n, start) with n = -1 for null, as Java
        computes it (a compact uvarint is a signed 32-bit int there)."""
        start = self.pos
        if compact:
            u = self.uvarint(path)
            n = _signed32(u) - 1 if self.java else u - 1
        else:
            n = self.fixed(classic_fmt, struct.calcsize(classic_fmt), path)
        return n, start

    def null_or_bad(self, n, start, nullable, path, what):
        """n < 0: None for a null the field allows, else an error."""
        if n < -1 and not self.java:
            raise DecodeError("invalid_length", start, path,
                              "%s length %d" % (what, n))
        if not nullable:
            raise DecodeError("unexpected_null", start, path,
                              "null %s in a non-nullable field" % what)
        return None

    def sized(self, compact, classic_fmt, limit, nullable, path, what):
        """The bytes of a length-prefixed value, or None for null."""
        n, start = self.length(compact, classic_fmt, path)
        if n < 0:
            return self.null_or_bad(n, start, nullable, path, what)
        if n > limit:
            raise DecodeError("invalid_length", start, path,
                              "%s length %d exceeds %d" % (what, n, limit))
        if n > self.end - self.pos:
            raise DecodeError("truncated", start, path, "%s of %d bytes, "
                              "have %d" % (what, n, self.end - self.pos))
        self.pos += n
        return bytes(self.data[self.pos - n:self.pos])

    def string(self, compact, nullable, path):
        raw = self.sized(compact, ">h", 0x7FFF, nullable, path, "string")
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not self.java:
                raise DecodeError("invalid_utf8",
                                  self.pos - len(raw) + exc.start, path,
                                  exc.reason)
            return raw.decode("utf-8", "replace")

    def bytes_(self, compact, nullable, path):
        raw = self.sized(compact, ">i", 0x7FFFFFFF, nullable, path, "bytes")
        return None if raw is None else raw.hex()

    def primitive(self, t, compact, nullable, path):
        if t in INT_FORMATS:
            v = self.fixed(INT_FORMATS[t], struct.calcsize(INT_FORMATS[t]),
                           path)
            return str(v) if t == "int64" else v
        if t == "bool":
            start = self.pos
            b = self.fixed(">B", 1, path)
            if b > 1 and not self.java:
                raise DecodeError("invalid_bool", start, path, "byte 0x%02x"
                                  % b)
            return b != 0
        if t == "float64":
            return float64_to_json(self.fixed(">Q", 8, path))
        if t == "uuid":
            self.need(16, self.pos, path, "uuid")
            self.pos += 16
            return bytes(self.data[self.pos - 16:self.pos]).hex()
        if t == "string":
            return self.string(compact, nullable, path)
        if t in ("bytes", "records"):
            return self.bytes_(compact, nullable, path)
        raise SchemaError("%s: unknown type %r" % (path, t))

    # -- minimum encoded sizes (for the array count check) -----------------

    def min_size(self, msg, f, t, version, flexible, compact):
        if t.startswith("[]"):
            return 1 if flexible else 4
        if t in FIXED_SIZES:
            return FIXED_SIZES[t]
        if t == "string":
            return 1 if compact else 2
        if t in ("bytes", "records"):
            return 1 if compact else 4
        if f is not None and version in Versions(
                f.get("nullableVersions", "none")):
            return 1
        return self.struct_min(msg, msg.struct_fields(f, t), version,
                               flexible)

    def struct_min(self, msg, fields, version, flexible):
        key = (id(fields), version, flexible)
        if key not in self._min:
            n = 1 if flexible else 0
            for f in fields:
                if version not in Versions(f["versions"]) or \
                        is_tagged(f, version):
                    continue
                compact = version in Versions(f["flexibleVersions"]) \
                    if "flexibleVersions" in f else flexible
                n += self.min_size(msg, f, f["type"], version, flexible,
                                   compact)
            self._min[key] = n
        return self._min[key]

    # -- structs and fields ----------------------------------------------

    def field(self, msg, f, version, flexible, path):
        fpath = join(path, f["name"])
        t = f["type"]
        nullable = version in Versions(f.get("nullableVersions", "none"))
        compact = version in Versions(f["flexibleVersions"]) \
            if "flexibleVersions" in f else flexible
        if t.startswith("[]"):
            et = t[2:]
            n, start = self.length(flexible, ">i", fpath)
            if n < 0:
                return self.null_or_bad(n, start, nullable, fpath, "array")
            if n > 0x7FFFFFFF:
                raise DecodeError("invalid_length", start, fpath,
                                  "array count %d" % n)
            left = self.end - self.pos
            if self.java:
                if n > left:
                    raise DecodeError("count_too_large", start, fpath)
            else:
                m = self.min_size(msg, f, et, version, flexible, compact) \
                    if is_primitive(et) else \
                    self.struct_min(msg, msg.struct_fields(f, et), version,
                                    flexible)
                if n * m > left or (m == 0 and n > left):
                    # (elements that can be empty: Java's count > bytes left)
                    raise DecodeError("count_too_large", start, fpath,
                                      "count %d, %d bytes left, elements of "
                                      ">= %d bytes" % (n, left, m))
            out = []
            for i in range(n):
                epath = "%s[%d]" % (fpath, i)
                if is_primitive(et):
                    out.append(self.primitive(et, compact, False, epath))
                else:
                    out.append(self.struct(msg, msg.struct_fields(f, et),
                                           version, flexible, epath))
            return out
        if is_primitive(t):
            v = self.primitive(t, compact, nullable, fpath)
            if t == "records" and v is not None and not self.java:
                # Java reads records lazily (MemoryRecords): only the strict
                # decoder checks them, under the field's policy.
                # (a field without a policy, only in the tests' own
                # definitions, is left unchecked; a test asserts that every
                # records field of both Kafka sets has one)
                policy = RECORDS_POLICY.get((msg.name, f["name"]))
                if policy is not None:
                    try:
                        RecordsChecker(policy, version).check(
                            bytes.fromhex(v), self.pos - len(v) // 2, fpath)
                    except DecodeError as exc:
                        if not (self.broker and policy[0] == "whole"):
                            raise
                        code, whole, appends = broker_answer(
                            exc, fpath, bytes.fromhex(v), policy, version)
                        refusal = {
                            "part": fpath, "error_code": code,
                            "error": ERROR_NAMES[code], "kind": exc.kind,
                            "offset": exc.offset, "path": exc.path}
                        if whole:
                            refusal["whole_request"] = True
                        self.refusals.append(refusal)
                        self.kafka_appends.append(appends)
            return v
        if nullable:
            start = self.pos
            marker = self.fixed(">b", 1, fpath)
            if self.java:
                if marker < 0:
                    return None
            elif marker == -1:
                return None
            elif marker != 1:
                raise DecodeError("invalid_value", start, fpath,
                                  "struct marker %d" % marker)
        return self.struct(msg, msg.struct_fields(f, t), version, flexible,
                           fpath)

    def struct(self, msg, fields, version, flexible, path):
        vals = {}
        known = {}
        for f in fields:
            if version not in Versions(f["versions"]):
                continue
            if is_tagged(f, version):
                known[field_tag(f)] = f
                continue
            vals[f["name"]] = self.field(msg, f, version, flexible, path)
        unknown = []
        if flexible:
            tpath = join(path, "tagged_fields")
            start = self.pos
            count = self.uvarint(tpath)
            if not self.java and count * 2 > self.end - self.pos:
                raise DecodeError("count_too_large", start, tpath,
                                  "%d tags, %d bytes left"
                                  % (count, self.end - self.pos))
            prev = None
            for _ in range(count):
                tstart = self.pos
                tag = self.uvarint(tpath)
                if prev is not None and not self.java:
                    if tag == prev:
                        raise DecodeError("tag_duplicate", tstart, tpath,
                                          "tag %d twice" % tag)
                    if tag < prev:
                        raise DecodeError("tag_out_of_order", tstart, tpath,
                                          "tag %d after %d" % (tag, prev))
                prev = tag
                if self.java and tag not in known and any(
                        "tag" in f and field_tag(f) == tag for f in fields):
                    # Java's generated read(): `case N:` throws "Tag N is not
                    # valid for version V" when the field is not tagged at V.
                    raise DecodeError("invalid_value", tstart, tpath,
                                      "tag %d is not valid for version %d"
                                      % (tag, version))
                size = self.uvarint(tpath)
                if size > self.end - self.pos and \
                        not (self.java and tag in known):
                    raise DecodeError("truncated", tstart, tpath,
                                      "tag %d of %d bytes" % (tag, size))
                if tag in known:
                    f = known[tag]
                    vals[f["name"]] = self.tagged_value(
                        msg, f, version, path, tstart, size)
                else:
                    unknown.append({"tag": tag, "data": bytes(
                        self.data[self.pos:self.pos + size]).hex()})
                    self.pos += size
        out = {}
        for f in fields:
            if f["name"] in vals and version in Versions(f["versions"]):
                out[f["name"]] = vals[f["name"]]
        if unknown:
            out["_unknownTaggedFields"] = unknown
        return out

    def tagged_value(self, msg, f, version, path, tstart, size):
        if self.java:  # Java reads the value by its type, ignoring size
            return self.field(msg, f, version, True, path)
        fpath = join(path, f["name"])
        outer_end, self.end = self.end, self.pos + size
        try:
            v = self.field(msg, f, version, True, path)
        except DecodeError as exc:
            if exc.kind != "truncated" or self.end >= outer_end:
                raise
            # named by what was being read when the declared size ran out
            raise DecodeError("tag_size_mismatch", tstart, exc.path,
                              "value runs past its declared %d bytes" % size)
        finally:
            used_end, self.end = self.end, outer_end
        if self.pos != used_end:
            raise DecodeError("tag_size_mismatch", tstart, fpath,
                              "declared %d bytes, used %d"
                              % (size, size - (used_end - self.pos)))
        return v

    # -- frames -------------------------------------------------------------

    def frame(self, data, direction, api_key=None, version=None):
        """Decode a whole frame.  A request names its API; a response needs
        api_key and version.  Returns a dict with msg, version,
        header_version, header and body; raises DecodeError."""
        self.refusals = []
        self.kafka_appends = []
        self.data = bytes(data)
        self.pos, self.end = 0, len(self.data)
        if len(self.data) < 4:
            raise DecodeError("truncated", 0, "Frame.size", "frame of %d "
                              "bytes" % len(self.data))
        size = struct.unpack_from(">i", self.data, 0)[0]
        if size != len(self.data) - 4:
            raise DecodeError("invalid_frame_size", 0, "Frame.size",
                              "size %d, %d bytes follow"
                              % (size, len(self.data) - 4))
        self.pos = 4
        if direction == "request":
            hpath = "RequestHeader.RequestApiKey"
            key = self.fixed(">h", 2, hpath)
            msg = self.schemas.messages.get((key, "request"))
            if msg is None:
                raise DecodeError("unknown_api_key", 4, hpath,
                                  "api key %d" % key)
            vpath = "RequestHeader.RequestApiVersion"
            version = self.fixed(">h", 2, vpath)
            if version not in msg.valid:
                raise DecodeError("unsupported_version", 6, vpath,
                                  "%s v%d" % (msg.api_name, version))
            self.pos = 4
            h = self.schemas.headers["RequestHeader"]
        else:
            msg = self.schemas.messages[(api_key, "response")]
            if version not in msg.valid:
                raise SchemaError("%s has no version %d" % (msg.name, version))
            h = self.schemas.headers["ResponseHeader"]
        hv = header_version(msg, version)
        header = self.struct(h, h.fields, hv, hv in h.flexible, h.name)
        body_at = self.pos
        try:
            body = self.body(msg, version)
            body_version = version
        except DecodeError as err:
            # KIP-511: a broker answers an ApiVersions request of a version it
            # does not know with a v0 body (error 35 UNSUPPORTED_VERSION) under
            # response header v0.  Strict takes it with error 35 only; the
            # Java rules with any error code (ApiVersionsResponse.parse).
            if direction != "response" or msg.api_key != 18 or version == 0:
                raise
            self.pos = body_at
            try:
                body = self.body(msg, 0)
            except DecodeError:
                raise err
            if body["ErrorCode"] != 35 and not self.java:
                raise err
            body_version = 0
        return {"msg": msg, "version": body_version, "header_version": hv,
                "header": header, "body": body}

    def body(self, msg, version):
        """The body at `version`, to the frame's end (trailing bytes fail)."""
        body = self.struct(msg, msg.fields, version, version in msg.flexible,
                           msg.name)
        if self.pos != self.end:
            raise DecodeError("trailing_bytes", self.pos, "",
                              "%d bytes after the body"
                              % (self.end - self.pos))
        return body


# ---------------------------------------------------------------------------
# Record batches with records (RecordBatch v2, uncompressed).

def zigzag_varint(n):
    """A signed varint/varlong (zigzag, then base-128)."""
    return uvarint(((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)


def record_batch(records, base_offset=0, base_timestamp=0, producer_id=0,
                 producer_epoch=0, base_sequence=0, leader_epoch=0):
    """One uncompressed RecordBatch v2.  records: (timestamp_delta, key,
    value, [(header_key, header_value)]) with bytes or None.  Record i has
    offsetDelta i; the CRC-32C covers attributes to the end."""
    def blob(b):
        return zigzag_varint(-1) if b is None else \
            zigzag_varint(len(b)) + b
    body = b""
    max_delta = 0
    for i, (ts_delta, key, value, headers) in enumerate(records):
        rec = (struct.pack(">b", 0) + zigzag_varint(ts_delta)
               + zigzag_varint(i) + blob(key) + blob(value)
               + zigzag_varint(len(headers)))
        for hk, hv in headers:
            rec += zigzag_varint(len(hk)) + hk + blob(hv)
        body += zigzag_varint(len(rec)) + rec
        max_delta = max(max_delta, ts_delta)
    n = len(records)
    after_crc = (
        struct.pack(">h", 0)                          # attributes
        + struct.pack(">i", n - 1 if n else 0)        # lastOffsetDelta
        + struct.pack(">q", base_timestamp)
        + struct.pack(">q", base_timestamp + max_delta if n else
                      base_timestamp)                 # maxTimestamp
        + struct.pack(">q", producer_id)
        + struct.pack(">h", producer_epoch)
        + struct.pack(">i", base_sequence)
        + struct.pack(">i", n)
        + body)
    return (struct.pack(">q", base_offset)
            + struct.pack(">i", 4 + 1 + 4 + len(after_crc))
            + struct.pack(">i", leader_epoch) + struct.pack(">b", 2)
            + struct.pack(">I", crc32c(after_crc)) + after_crc)


# ---------------------------------------------------------------------------
# Rich instances: seeded random values over the full range of every type.

RICH_STRINGS = [
    "", "a", "topic-1", "__consumer_offsets", "caf\u00e9", "\u00fcn\u00efc\u00f6d\u00e9",
    "\u65e5\u672c\u8a9e", "emoji-\U0001f600", "quote\"back\\slash",
    "line\nbreak\ttab", "nul\u0000inside", "\u2028\u2029", "\u007f\u0080",
    "\U0010ffff", "</script>", "x" * 40,
]


class RichGen:
    """Random values in the JSON mapping for one API x version x direction.
    Deterministic: the generator is seeded with the vector's id."""

    def __init__(self, seed, msg):
        self.rng = random.Random(seed)
        self.msg = msg

    def chance(self, p):
        return self.rng.random() < p

    def int_value(self, t):
        lo, hi = INT_RANGES[t]
        r = self.rng.randrange(10)
        if r < 5:
            pool = [lo, lo + 1, -1, 0, 1, 2, hi - 1, hi]
            if t == "int64":
                pool += [2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 32]
            v = self.rng.choice([p for p in pool if lo <= p <= hi])
        else:
            v = lo + self.rng.getrandbits((hi - lo).bit_length()) % (hi - lo + 1)
        return str(v) if t == "int64" else v

    def float_value(self):
        pool = [0, 1 << 63, 0x3FF0000000000000, 0xBFF8000000000000,
                0x3FB999999999999A, 0x0000000000000001, 0x000FFFFFFFFFFFFF,
                0x8000000000000001, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
                0x7FF0000000000000, 0xFFF0000000000000, QUIET_NAN,
                0x7FF0000000000001, 0xFFF8000000000000, 0x7FFFFFFFFFFFFFFF,
                0x4340000000000001]
        if self.chance(0.7):
            return float64_to_json(self.rng.choice(pool))
        return float64_to_json(self.rng.getrandbits(64))

    def string_value(self):
        if self.chance(0.6):
            return self.rng.choice(RICH_STRINGS)
        n = self.rng.randrange(1, 13)
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-._ \u00e9\u4e2d\U0001f680"
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def bytes_value(self):
        return bytes(self.rng.getrandbits(8)
                     for _ in range(self.rng.randrange(9))).hex()

    def batch(self):
        recs = []
        for _ in range(self.rng.randrange(4)):
            key = None if self.chance(0.3) else \
                self.rng.choice(RICH_STRINGS).encode("utf-8")
            value = None if self.chance(0.2) else bytes.fromhex(
                self.bytes_value())
            headers = []
            for _ in range(self.rng.randrange(3)):
                headers.append((self.rng.choice(RICH_STRINGS[1:8])
                                .encode("utf-8"),
                                None if self.chance(0.3) else
                                bytes.fromhex(self.bytes_value())))
            recs.append((self.rng.randrange(0, 100000), key, value, headers))
        return record_batch(
            recs, base_offset=self.rng.randrange(2 ** 40),
            base_timestamp=1700000000000 + self.rng.randrange(10 ** 9),
            producer_id=self.rng.choice([-1, self.rng.randrange(2 ** 40)]),
            producer_epoch=self.rng.choice([-1, 0, 5]),
            base_sequence=self.rng.choice([-1, 0, 100]),
            leader_epoch=self.rng.choice([-1, 0, 7]))

    def records_value(self, field_name, nullable):
        if nullable and self.msg.api_key != 0 and self.chance(0.2):
            return None
        if field_name == "UnalignedRecords":  # a raw byte range
            return self.bytes_value()
        n = 1
        if self.msg.api_key != 0:  # Produce: exactly one batch a partition
            n = self.rng.randrange(3)
        return b"".join(self.batch() for _ in range(n)).hex()

    def primitive(self, t, nullable, name=""):
        if t in INT_RANGES:
            return self.int_value(t)
        if t == "bool":
            return self.chance(0.5)
        if t == "float64":
            return self.float_value()
        if t == "uuid":
            return self.rng.choice(["00" * 16, "ff" * 16, "%032x" % (
                self.rng.getrandbits(128))])
        if t == "records":
            return self.records_value(name, nullable)
        if nullable and self.chance(0.2):
            return None
        if t == "string":
            return self.string_value()
        return self.bytes_value()

    def field(self, f, version, depth):
        t = f["type"]
        nullable = version in Versions(f.get("nullableVersions", "none"))
        if t.startswith("[]"):
            if nullable and self.chance(0.15):
                return None
            et = t[2:]
            n = self.rng.randrange([4, 3, 2, 2][min(depth, 3)])
            if is_primitive(et):
                return [self.primitive(et, False) for _ in range(n)]
            return [self.struct(self.msg.struct_fields(f, et), version,
                                depth + 1) for _ in range(n)]
        if is_primitive(t):
            return self.primitive(t, nullable, f["name"])
        if nullable and self.chance(0.3):
            return None
        return self.struct(self.msg.struct_fields(f, t), version, depth + 1)

    def struct(self, fields, version, depth=0, flexible=None):
        if flexible is None:
            flexible = version in self.msg.flexible
        out = {}
        known = set()
        for f in fields:
            if version not in Versions(f["versions"]):
                continue
            if is_tagged(f, version):
                known.add(field_tag(f))
                if not self.chance(0.5):
                    continue
            out[f["name"]] = self.field(f, version, depth)
        if flexible and self.chance(0.25):
            top = max(known) if known else 0
            free = [t for t in range(top + 12) if t not in known]
            tags = sorted(self.rng.sample(free, self.rng.choice([1, 1, 2])))
            out["_unknownTaggedFields"] = [
                {"tag": t, "data": self.bytes_value()} for t in tags]
        return out


def rich_instance(schemas, msg, version, seed):
    """(header, body) of the rich vector `seed` (its id)."""
    gen = RichGen(seed, msg)
    body = gen.struct(msg.fields, version)
    hname = "RequestHeader" if msg.kind == "request" else "ResponseHeader"
    h = schemas.headers[hname]
    hv = header_version(msg, version)
    hgen = RichGen(seed + "/header", h)
    header = hgen.struct(h.fields, hv, flexible=hv in h.flexible)
    if msg.kind == "request":
        header["RequestApiKey"] = msg.api_key
        header["RequestApiVersion"] = version
    return header, body


# ---------------------------------------------------------------------------
# Negative vectors: mutations of a valid frame that a strict decoder must
# reject.  The expected error is what the strict reference decoder reports;
# `lenient` is whether the Java-rules decoder accepts the frame.

BAD_UTF8 = [b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\xc0\x80", b"ok\xf4\x90\x80\x80",
            b"\x80x", b"\xe6\x97"]


def _count(n, noun):
    """"1 byte", "2 bytes", "0 bytes": `n` and `noun`, plural unless n is 1."""
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _splice(data, start, end, repl):
    b = bytearray(data[:start]) + bytearray(repl) + bytearray(data[end:])
    b[0:4] = struct.pack(">i", len(b) - 4)
    return bytes(b)


def _read_uvarint(data, pos):
    v, shift, start = 0, 0, pos
    while True:
        b = data[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos - start


def _groups(v, n):
    """v as n base-128 groups, every one but the last with 0x80."""
    out = []
    for i in range(n):
        out.append((v >> (7 * i)) & 0x7F | (0x80 if i < n - 1 else 0))
    return bytes(out)


def _body_path(path, msg):
    if path == "Body" or path.startswith("Body.") or path.startswith("Body["):
        return msg.name + path[4:]
    return path


class NegativeGen:
    def __init__(self, schemas, enc, msg, version, current=True):
        self.schemas, self.enc, self.msg, self.version = \
            schemas, enc, msg, version
        self.current = current
        self.strict = Decoder(schemas)
        self.java = Decoder(schemas, java=True)
        self.rng = random.Random("negative/%s/v%d/%s"
                                 % (msg.api_name, version, msg.kind))

    def judge(self, frame, want):
        """(error, lenient) when the strict decoder rejects `frame` with
        kind `want`, else None."""
        m = self.msg
        try:
            self.strict.frame(frame, m.kind, m.api_key, self.version)
            return None
        except DecodeError as exc:
            if exc.kind != want:
                return None
            err = exc
        try:
            self.java.frame(frame, m.kind, m.api_key, self.version)
            lenient = True
        except DecodeError:
            lenient = False
        return err.as_json(), lenient

    def shuffled(self, items):
        items = list(items)
        self.rng.shuffle(items)
        return items

    def generate(self, base_id, data, nodes, rich_id, rich_data, rich_nodes):
        """[(name, frame, error, lenient, mutation)]"""
        out = []
        m = self.msg
        fields = [n for n in nodes if n[5].get("type") and n[1]]
        seen = set()

        def emit(name, want, cands):
            for frame, what, src in cands:
                got = self.judge(frame, want)
                if got is not None and name not in seen:
                    seen.add(name)
                    out.append((name, frame, got[0], got[1],
                                "%s: %s" % (src, what)))
                    return

        def P(n):
            return _body_path(n[2], m)

        def cut():
            # Inside the data of a string, bytes or records value of D data
            # bytes followed by T < D bytes: the cut keeps T of its data
            # bytes and drops the last D bytes of the frame.  Exactly the
            # value's slack goes, so a decoder that checks array counts
            # against the minimum size of what remains (as kwire does) still
            # meets the cut first at this value.  Body values first, the last
            # one that qualifies.
            for n in sorted(rich_nodes, key=lambda n: (
                    n[2].startswith("Body"), n[0]), reverse=True):
                t = n[5].get("type")
                if t not in LENGTH_TYPES or n[5].get("null"):
                    continue
                if n[5]["compact"]:
                    k = _read_uvarint(rich_data, n[0])[1]
                else:
                    k = 2 if t == "string" else 4
                d = n[1] - k
                tail = len(rich_data) - (n[0] + n[1])
                if tail >= d:
                    continue
                at = n[0] + k + tail
                yield (_splice(rich_data[:at], at, at, b""),
                       "frame cut at byte %d, inside the %s of %s "
                       "(%s at byte %d), dropping the last %s; size "
                       "prefix fixed" % (at, _count(d, "data byte"), P(n), t,
                                         n[0], _count(d, "byte")), rich_id)
        emit("truncated-cut", "truncated", cut())

        def prefix_len(n):
            if n[5].get("compact") or (n[5].get("flexible") and
                                       n[5]["type"].startswith("[]")):
                return _read_uvarint(data, n[0])[1]
            return 2 if n[5]["type"] == "string" else 4

        def beyond():
            for n in self.shuffled(fields):
                t = n[5]["type"]
                if t not in LENGTH_TYPES or n[5]["null"]:
                    continue
                k = prefix_len(n)
                left = len(data) - (n[0] + k)
                ln = left + 1
                if n[5]["compact"]:
                    p = uvarint(ln + 1)
                elif t == "string":
                    if ln > 0x7FFF:
                        continue
                    p = struct.pack(">h", ln)
                else:
                    p = struct.pack(">i", ln)
                yield (_splice(data, n[0], n[0] + k, p),
                       "%s length set to %d (%s left after it)"
                       % (P(n), ln, _count(left, "byte")), base_id)
        emit("truncated-length", "truncated", beyond())

        arrays = [n for n in fields if n[5]["type"].startswith("[]")]

        def big_count():
            for n in self.shuffled(arrays):
                if n[5]["null"]:
                    continue
                k = prefix_len(n)
                p = uvarint(0x7FFFFFFF) if n[5]["flexible"] else \
                    struct.pack(">i", 0x7FFFFFFF)
                yield (_splice(data, n[0], n[0] + k, p),
                       "%s count set to %d" % (P(n), 0x7FFFFFFF - (
                           1 if n[5]["flexible"] else 0)), base_id)
        emit("count_too_large", "count_too_large", big_count())

        lengths = [n for n in fields
                   if n[5]["type"] in LENGTH_TYPES or
                   n[5]["type"].startswith("[]")]

        def minus2():
            for n in self.shuffled(lengths):
                t = n[5]["type"]
                if n[5]["compact"] or (t.startswith("[]") and
                                       n[5]["flexible"]):
                    p, how = bytes.fromhex("ffffffff0f"), \
                        "compact length uvarint 0xffffffff (-2 as Java's int)"
                else:
                    p = struct.pack(">h" if t == "string" else ">i", -2)
                    how = "length -2"
                yield (_splice(data, n[0], n[0] + n[1], p),
                       "%s (%s) replaced by %s"
                       % (P(n), "nullable" if n[5]["nullable"]
                          else "not nullable", how), base_id)
        emit("invalid_length", "invalid_length", minus2())

        def nulls():
            for n in self.shuffled(lengths):
                if n[5]["nullable"]:
                    continue
                t = n[5]["type"]
                if n[5]["compact"] or (t.startswith("[]") and
                                       n[5]["flexible"]):
                    p = b"\x00"
                else:
                    p = struct.pack(">h" if t == "string" else ">i", -1)
                yield (_splice(data, n[0], n[0] + n[1], p),
                       "%s (not nullable) replaced by null (%s)"
                       % (P(n), p.hex()), base_id)
        emit("unexpected_null", "unexpected_null", nulls())

        def bools():
            for n in self.shuffled(fields):
                if n[5]["type"] == "bool":
                    b = self.rng.choice([2, 0x80, 0xFF])
                    yield (_splice(data, n[0], n[0] + 1, bytes([b])),
                           "%s bool byte set to 0x%02x" % (P(n), b), base_id)
        emit("invalid_bool", "invalid_bool", bools())

        uvs = [n for n in nodes if n[5].get("tags") is not None]
        uvs += [n for n in fields if n[5]["compact"] and
                n[5]["type"] in LENGTH_TYPES]
        uvs += [n for n in arrays if n[5]["flexible"]]

        def varints(kind):
            for n in self.shuffled(uvs):
                v, k = _read_uvarint(data, n[0])
                what = "count" if n[5].get("tags") is not None else "length"
                if kind == "varint_non_canonical":
                    enc = _groups(v, k + 1)
                elif kind == "varint_too_long":
                    enc = _groups(v, 6)
                else:
                    if v >= 1 << 28:
                        continue
                    enc = _groups(v, 5)[:4] + bytes([0x10])
                yield (_splice(data, n[0], n[0] + k, enc),
                       "%s uvarint %s %d rewritten as %s"
                       % (P(n), what, v, enc.hex()), base_id)
        for kind in ("varint_non_canonical", "varint_too_long",
                     "varint_overflow"):
            emit(kind, kind, varints(kind))

        sections = [n for n in nodes if n[5].get("tags") is not None]

        def tag_order(dup):
            for n in self.shuffled(sections):
                known = n[5]["tags"]
                free = [t for t in range(len(known) + 2) if t not in known]
                a, b = free[0], free[1]
                first, second = (a, a) if dup else (b, a)
                rep = (uvarint(2) + uvarint(first) + b"\x01\x00"
                       + uvarint(second) + b"\x01\x00")
                yield (_splice(data, n[0], n[0] + n[1], rep),
                       "%s replaced by unknown tags %d then %d"
                       % (P(n), first, second), base_id)
        emit("tag_out_of_order", "tag_out_of_order", tag_order(False))
        emit("tag_duplicate", "tag_duplicate", tag_order(True))

        def size_mismatch(longer):
            for n in self.shuffled(sections):
                known = n[5]["known"]
                for tag in sorted(known):
                    f = known[tag]
                    sub = Out(False)
                    self.enc.field(sub, n[5]["msg"], f, n[5]["version"], True,
                                   "", self.small_value(n[5]["msg"], f,
                                                        n[5]["version"]))
                    val = bytes(sub.buf)
                    if longer:
                        size, tail = len(val) + 1, b"\x00"
                    elif val:
                        size, tail = len(val) - 1, b""
                    else:
                        continue
                    rep = (uvarint(1) + uvarint(tag) + uvarint(size) + val
                           + tail)
                    yield (_splice(data, n[0], n[0] + n[1], rep),
                           "%s replaced by known tag %d (%s, %s) "
                           "declaring %s%s"
                           % (P(n), tag, f["name"], _count(len(val), "value byte"),
                              _count(size, "byte"),
                              ", one extra byte after it" if tail else ""),
                           base_id)
        emit("tag_size_mismatch-long", "tag_size_mismatch",
             size_mismatch(True))
        emit("tag_size_mismatch-short", "tag_size_mismatch",
             size_mismatch(False))

        emit("trailing_bytes", "trailing_bytes",
             [(_splice(data, len(data), len(data), b"\x00"),
               "one byte 0x00 appended after the body", base_id)])

        if m.kind == "request":
            key = 1000 + m.api_key
            emit("unknown_api_key", "unknown_api_key",
                 [(_splice(data, 4, 6, struct.pack(">h", key)),
                   "RequestHeader.RequestApiKey set to %d" % key, base_id)])
            if self.current:
                bad = m.valid.hi + 1
                emit("unsupported_version", "unsupported_version",
                     [(_splice(data, 6, 8, struct.pack(">h", bad)),
                       "RequestHeader.RequestApiVersion set to %d" % bad,
                       base_id)])

        def utf8():
            for n in self.shuffled(fields):
                if n[5]["type"] != "string":
                    continue
                bad = self.rng.choice(BAD_UTF8)
                p = uvarint(len(bad) + 1) if n[5]["compact"] else \
                    struct.pack(">h", len(bad))
                yield (_splice(data, n[0], n[0] + n[1], p + bad),
                       "%s replaced by the bytes %s" % (P(n), bad.hex()),
                       base_id)
        emit("invalid_utf8", "invalid_utf8", utf8())

        def markers():
            for n in self.shuffled(nodes):
                if n[5].get("marker"):
                    b = self.rng.choice([0, 2, 0x7F])
                    yield (_splice(data, n[0], n[0] + 1, bytes([b])),
                           "%s nullable-struct marker set to %d"
                           % (P(n), b), base_id)
        emit("invalid_value", "invalid_value", markers())
        return out

    def small_value(self, msg, f, version):
        t = f["type"]
        if t.startswith("[]"):
            return []
        if is_primitive(t):
            return minimal_primitive(t, self.enc.batch)
        return minimal_value(msg, msg.struct_fields(f, t), version,
                             self.enc.batch)


# ---------------------------------------------------------------------------
# The records set: record batches inside Produce / Fetch / ShareFetch frames.
#
# Written from the Kafka protocol guide ("Record Batch", "Message Sets"),
# KIP-98 (RecordBatch v2, control records), KIP-82 (headers), KIP-110
# (zstd) and the compression formats' own specifications (RFC 1951/1952,
# the snappy format description and snappy-java's stream header, the LZ4
# frame format, RFC 8878 for zstd); it shares no code with codec/records.
# The compressors write only what needs no compressor: DEFLATE fixed-Huffman
# literals or stored blocks, snappy literal elements, LZ4 frames whose blocks
# carry the "uncompressed" flag, zstd Raw_Blocks; the decompressors read
# those and the real thing (DEFLATE via zlib, snappy copies, LZ4 sequences;
# zstd: Raw and RLE blocks only, see conformance/README.md).

ATTR_CODEC_MASK = 0x07
ATTR_LOG_APPEND_TIME = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
CODEC_NAMES = ("none", "gzip", "snappy", "lz4", "zstd")
V2_HEADER_SIZE = 61
LOG_OVERHEAD = 12            # baseOffset + batchLength
MIN_BATCH_LENGTH = (14, 22, 49)  # by magic: bytes after batchLength
MIN_RECORD_SIZE = 7          # length, attributes, tsDelta, offsetDelta,
#                              key, value, header count: 1 byte each

# A fault in a compressed stream, at byte `pos` of the stream: a header
# fault at the first byte of its frame (member), a block that does not
# decode at the block's first byte (snappy: the raw block; LZ4: its size
# word; zstd: its block header), a stream cut short at its end.

class CompressionFault(ValueError):
    def __init__(self, pos, what):
        ValueError.__init__(self, what)
        self.pos = pos


# -- DEFLATE / gzip (RFC 1951, RFC 1952) ------------------------------------


def deflate_literals(data, stored=False):
    """Raw DEFLATE of one final block: stored (BTYPE 00) or fixed Huffman
    (BTYPE 01) holding only literals and the end-of-block code."""
    if stored:
        assert len(data) < 65536
        return (b"\x01" + struct.pack("<HH", len(data),
                                      len(data) ^ 0xFFFF) + bytes(data))
    out = bytearray()
    acc = [0, 0]  # bit buffer, bits in it (LSB first, RFC 1951 3.1.1)

    def put(value, n):
        acc[0] |= value << acc[1]
        acc[1] += n
        while acc[1] >= 8:
            out.append(acc[0] & 0xFF)
            acc[0] >>= 8
            acc[1] -= 8

    def code(c, n):  # Huffman codes go most significant bit first
        put(int(format(c, "0%db" % n)[::-1], 2), n)

    put(1, 1)  # BFINAL
    put(1, 2)  # BTYPE 01, fixed Huffman
    for b in data:
        if b < 144:
            code(0x30 + b, 8)        # literals 0-143: 00110000..10111111
        else:
            code(0x190 + b - 144, 9)  # literals 144-255: 110010000..
    code(0, 7)                        # 256, end of block: 0000000
    if acc[1]:
        out.append(acc[0] & 0xFF)
    return bytes(out)


def gzip_compress(data, stored=False):
    """One gzip member with the header Java's GZIPOutputStream writes
    (no name, MTIME 0, XFL 0, OS 0)."""
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
            + deflate_literals(data, stored)
            + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF))


def gzip_decompress(data):
    """Concatenated gzip members, as GZIPInputStream reads them."""
    data = bytes(data)
    out, pos = b"", 0
    if not data:
        raise CompressionFault(0, "gzip: empty stream")
    while pos < len(data):
        if len(data) - pos < 10:
            raise CompressionFault(len(data), "gzip: truncated header")
        if data[pos:pos + 3] != b"\x1f\x8b\x08":
            raise CompressionFault(pos, "gzip: not a gzip member (magic "
                                   "1f 8b, method 8)")
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += d.decompress(data[pos:])
        except zlib.error as exc:
            raise CompressionFault(pos, "gzip: %s" % exc)
        if not d.eof:
            raise CompressionFault(len(data), "gzip: truncated stream")
        pos = len(data) - len(d.unused_data)
    return out


# -- snappy (format_description.txt; snappy-java's stream framing) ----------

XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_BLOCK = 32 * 1024  # snappy-java's default block size


def snappy_literals(data):
    """A raw snappy block of literal elements only: the first up to 16
    bytes with the length in the tag byte, the rest of each 32 KiB block
    as one literal with a 1- or 2-byte length after the tag."""
    out = bytearray(uvarint(len(data)))
    pieces = [data[:16], data[16:]] if len(data) > 16 else [data]
    for p in pieces:
        if not p:
            continue
        n = len(p) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + struct.pack("<H", n)
        out += p
    return bytes(out)


def snappy_xerial(data):
    """snappy-java's SnappyOutputStream as Kafka uses it: the magic
    82 'SNAPPY' 00, version 1 and compatible version 1 (int32 big-endian),
    then per 32 KiB of input an int32 big-endian length and a raw block."""
    out = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
    for i in range(0, len(data), XERIAL_BLOCK):
        block = snappy_literals(data[i:i + XERIAL_BLOCK])
        out += struct.pack(">i", len(block)) + block
    return out


def snappy_raw_decompress(block, at=0):
    n, pos = 0, 0
    for i in range(5):
        if pos >= len(block):
            raise CompressionFault(at, "snappy: truncated preamble")
        b = block[pos]
        pos += 1
        n |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            break
    else:
        raise CompressionFault(at, "snappy: preamble longer than 5 bytes")
    out = bytearray()
    while pos < len(block):
        tag = block[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                extra = ln - 59
                if pos + extra > len(block):
                    raise CompressionFault(
                        at, "snappy: truncated literal length")
                ln = int.from_bytes(block[pos:pos + extra], "little")
                pos += extra
            ln += 1
            if pos + ln > len(block):
                raise CompressionFault(
                    at, "snappy: literal runs past the block")
            out += block[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            if pos + 1 > len(block):
                raise CompressionFault(at, "snappy: truncated copy")
            ln = 4 + ((tag >> 2) & 7)
            off = ((tag >> 5) << 8) | block[pos]
            pos += 1
        else:
            w = 2 if kind == 2 else 4
            if pos + w > len(block):
                raise CompressionFault(at, "snappy: truncated copy")
            ln = 1 + (tag >> 2)
            off = int.from_bytes(block[pos:pos + w], "little")
            pos += w
        if off == 0 or off > len(out):
            raise CompressionFault(
                at, "snappy: copy offset %d with %d bytes out"
                             % (off, len(out)))
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise CompressionFault(at, "snappy: block says %d bytes, holds %d"
                         % (n, len(out)))
    return bytes(out)


def snappy_decompress(data):
    """xerial framing when the payload starts with its magic, else one raw
    block (as snappy-java's SnappyInputStream falls back to)."""
    data = bytes(data)
    if not data.startswith(XERIAL_MAGIC):
        return snappy_raw_decompress(data, 0)
    if len(data) < 16:
        raise CompressionFault(len(data), "snappy: truncated xerial header")
    pos, out = 16, b""
    while pos < len(data):
        if len(data) - pos < 4:
            raise CompressionFault(
                pos, "snappy: truncated xerial block length")
        n = struct.unpack_from(">i", data, pos)[0]
        if n < 0 or n > len(data) - pos - 4:
            raise CompressionFault(pos, "snappy: xerial block of %d bytes" % n)
        out += snappy_raw_decompress(data[pos + 4:pos + 4 + n], pos + 4)
        pos += 4 + n
    return out


# -- LZ4 frame (lz4_Frame_format.md) and xxHash32 -----------------------------

LZ4_MAGIC = 0x184D2204
_XXP1, _XXP2, _XXP3, _XXP4, _XXP5 = (2654435761, 2246822519, 3266489917,
                                     668265263, 374761393)


def xxh32(data, seed=0):
    m = 0xFFFFFFFF

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & m

    n, i = len(data), 0
    if n >= 16:
        v = [(seed + _XXP1 + _XXP2) & m, (seed + _XXP2) & m, seed & m,
             (seed - _XXP1) & m]
        while i + 16 <= n:
            for j in range(4):
                lane = struct.unpack_from("<I", data, i + 4 * j)[0]
                v[j] = (rotl((v[j] + lane * _XXP2) & m, 13) * _XXP1) & m
            i += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12)
             + rotl(v[3], 18)) & m
    else:
        h = (seed + _XXP5) & m
    h = (h + n) & m
    while i + 4 <= n:
        lane = struct.unpack_from("<I", data, i)[0]
        h = (rotl((h + lane * _XXP3) & m, 17) * _XXP4) & m
        i += 4
    while i < n:
        h = (rotl((h + data[i] * _XXP5) & m, 11) * _XXP1) & m
        i += 1
    h ^= h >> 15
    h = (h * _XXP2) & m
    h ^= h >> 13
    h = (h * _XXP3) & m
    h ^= h >> 16
    return h


def lz4_frame(data, block=65536):
    """An LZ4 frame as Kafka's KafkaLZ4BlockOutputStream writes it:
    FLG 0x60 (version 01, independent blocks, no block or content checksum,
    no content size), BD 0x40 (64 KiB blocks), HC the second byte of
    xxHash32(FLG BD), then every block with the high bit of its size set
    (stored uncompressed, which Kafka does whenever LZ4 does not shrink a
    block) and the end mark 0."""
    desc = bytes([0x60, 0x40])
    out = struct.pack("<I", LZ4_MAGIC) + desc + bytes(
        [(xxh32(desc) >> 8) & 0xFF])
    for i in range(0, len(data), block):
        chunk = data[i:i + block]
        out += struct.pack("<I", len(chunk) | 0x80000000) + chunk
    return out + struct.pack("<I", 0)


def lz4_block_decompress(src, at=0, history=b""):
    """One LZ4 block (sequences of literals and matches); `history` is
    what earlier blocks of a frame without block independence produced
    (matches may reach into it)."""
    out = bytearray(history)
    keep = len(history)
    pos = 0
    while True:
        if pos >= len(src):
            raise CompressionFault(at, "lz4: truncated sequence")
        token = src[pos]
        pos += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if pos >= len(src):
                    raise CompressionFault(at, "lz4: truncated literal length")
                lit += src[pos]
                pos += 1
                if src[pos - 1] != 255:
                    break
        if pos + lit > len(src):
            raise CompressionFault(at, "lz4: literals run past the block")
        out += src[pos:pos + lit]
        pos += lit
        if pos == len(src):
            return bytes(out[keep:])  # the last sequence has no match
        if pos + 2 > len(src):
            raise CompressionFault(at, "lz4: truncated match offset")
        off = src[pos] | src[pos + 1] << 8
        pos += 2
        ml = token & 15
        if ml == 15:
            while True:
                if pos >= len(src):
                    raise CompressionFault(at, "lz4: truncated match length")
                ml += src[pos]
                pos += 1
                if src[pos - 1] != 255:
                    break
        ml += 4
        if off == 0 or off > len(out):
            raise CompressionFault(at, "lz4: match offset %d with %d bytes out"
                             % (off, len(out)))
        for _ in range(ml):
            out.append(out[-off])


def lz4_decompress(data):
    data = bytes(data)
    pos, out = 0, b""
    if not data:
        raise CompressionFault(0, "lz4: empty input")
    while pos < len(data):
        start = pos
        if len(data) - pos < 7:
            raise CompressionFault(len(data), "lz4: truncated frame header")
        if struct.unpack_from("<I", data, pos)[0] != LZ4_MAGIC:
            raise CompressionFault(start, "lz4: bad frame magic")
        flg, bd = data[pos + 4], data[pos + 5]
        if flg >> 6 != 1 or flg & 0x02 or bd & 0x8F:
            raise CompressionFault(
                start, "lz4: bad FLG/BD 0x%02x 0x%02x" % (flg, bd))
        hlen = 2 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
        if pos + 4 + hlen + 1 > len(data):
            raise CompressionFault(len(data), "lz4: truncated frame header")
        desc = data[pos + 4:pos + 4 + hlen]
        if data[pos + 4 + hlen] != (xxh32(desc) >> 8) & 0xFF:
            raise CompressionFault(start, "lz4: header checksum")
        pos += 4 + hlen + 1
        frame = b""
        while True:
            if pos + 4 > len(data):
                raise CompressionFault(len(data), "lz4: truncated block size")
            bstart = pos
            size = struct.unpack_from("<I", data, pos)[0]
            pos += 4
            if size == 0:
                break
            n = size & 0x7FFFFFFF
            if pos + n > len(data):
                raise CompressionFault(
                    len(data), "lz4: block runs past the frame")
            blk = data[pos:pos + n]
            pos += n
            if flg & 0x10:
                if pos + 4 > len(data) or struct.unpack_from(
                        "<I", data, pos)[0] != xxh32(blk):
                    raise CompressionFault(bstart, "lz4: block checksum")
                pos += 4
            frame += blk if size & 0x80000000 else \
                lz4_block_decompress(blk, bstart,
                                     b"" if flg & 0x20 else frame[-65536:])
        if flg & 0x04:
            if pos + 4 > len(data) or struct.unpack_from(
                    "<I", data, pos)[0] != xxh32(frame):
                raise CompressionFault(pos, "lz4: content checksum")
            pos += 4
        out += frame
    return out


# -- zstd (RFC 8878) ---------------------------------------------------------

ZSTD_MAGIC = 0xFD2FB528


def zstd_frame(data, block=1 << 17):
    """A zstd frame as zstd's streaming compressor (zstd-jni's
    ZstdOutputStream in Kafka) writes it without a pledged size: frame
    header descriptor 0x00 (no content size, not single-segment, no
    checksum, no dictionary), window descriptor 0x58 (2^21 bytes, level 3's
    window), then Raw_Blocks of up to 128 KiB, the last one flagged."""
    out = struct.pack("<I", ZSTD_MAGIC) + b"\x00\x58"
    chunks = [data[i:i + block] for i in range(0, len(data), block)] or [b""]
    for i, c in enumerate(chunks):
        hdr = (len(c) << 3) | (0 << 1) | (1 if i == len(chunks) - 1 else 0)
        out += struct.pack("<I", hdr)[:3] + c
    return out


def zstd_decompress(data):
    """Frames of Raw and RLE blocks.  A Compressed_Block is refused: the
    reference has no entropy decoder (no vector holds one)."""
    data = bytes(data)
    pos, out = 0, b""
    if not data:
        raise CompressionFault(0, "zstd: empty input")
    while pos < len(data):
        start = pos
        if len(data) - pos < 5:
            raise CompressionFault(len(data), "zstd: truncated frame header")
        if struct.unpack_from("<I", data, pos)[0] != ZSTD_MAGIC:
            raise CompressionFault(start, "zstd: bad frame magic")
        fhd = data[pos + 4]
        pos += 5
        if fhd & 0x08:
            raise CompressionFault(start, "zstd: reserved bit set")
        single = fhd >> 5 & 1
        fcs_size = (1 if single else 0, 2, 4, 8)[fhd >> 6]
        hlen = (0 if single else 1) + (0, 1, 2, 4)[fhd & 3] + fcs_size
        if pos + hlen > len(data):
            raise CompressionFault(len(data), "zstd: truncated frame header")
        window = 0
        if not single:
            wd = data[pos]
            base = 1 << (10 + (wd >> 3))
            window = base + (base >> 3) * (wd & 7)
        fcs = None
        if fcs_size:
            raw = data[pos + hlen - fcs_size:pos + hlen]
            fcs = int.from_bytes(raw, "little") + (256 if fcs_size == 2
                                                   else 0)
        pos += hlen
        frame = b""
        while True:
            if pos + 3 > len(data):
                raise CompressionFault(
                    len(data), "zstd: truncated block header")
            bstart = pos
            bh = int.from_bytes(data[pos:pos + 3], "little")
            pos += 3
            last, btype, size = bh & 1, bh >> 1 & 3, bh >> 3
            limit = min(window, 1 << 17) if window else 1 << 17
            if btype == 0:
                if size > limit:
                    raise CompressionFault(bstart, "zstd: raw block of %d "
                                           "bytes" % size)
                if pos + size > len(data):
                    raise CompressionFault(len(data), "zstd: truncated block")
                frame += data[pos:pos + size]
                pos += size
            elif btype == 1:
                if size > limit:
                    raise CompressionFault(bstart, "zstd: RLE block of %d "
                                           "bytes" % size)
                if pos + 1 > len(data):
                    raise CompressionFault(len(data), "zstd: truncated block")
                frame += data[pos:pos + 1] * size
                pos += 1
            elif btype == 2:
                raise CompressionFault(
                    bstart, "zstd: compressed blocks are not "
                                 "implemented by the reference")
            else:
                raise CompressionFault(bstart, "zstd: reserved block type")
            if last:
                break
        if fhd & 0x04:  # content checksum: 4 bytes, not verified here
            if pos + 4 > len(data):
                raise CompressionFault(len(data), "zstd: truncated checksum")
            pos += 4
        if fcs is not None and fcs != len(frame):
            raise CompressionFault(start, "zstd: content size %d, %d decoded"
                             % (fcs, len(frame)))
        out += frame
    return out


def compress(codec, data):
    return [bytes, gzip_compress, snappy_xerial, lz4_frame,
            zstd_frame][codec](data)


def decompress(codec, data):
    return [bytes, gzip_decompress, snappy_decompress, lz4_decompress,
            zstd_decompress][codec](data)


# -- building batches -------------------------------------------------------

def varint_bytes(n):
    """Zigzag varint (int32 values) / varlong (int64)."""
    return zigzag_varint(n)


def encode_record(r, index):
    """One record of a v2 batch.  r: dict with ts (timestampDelta), od
    (offsetDelta, default the index), key, value (bytes or None), headers
    [(key bytes, value bytes or None)], attributes; faults for the reject
    vectors: `length` (the length varint's value instead of the fields'
    size), `tail` (bytes appended inside the record), `raw_key_len` (the
    key length varint's bytes), `raw_header_key_len` (the same for the
    first header's key), `header_count` (the count's value)."""
    def blob(b):
        return varint_bytes(-1) if b is None else varint_bytes(len(b)) + b
    key = r.get("key")
    if "raw_key_len" in r:
        kb = r["raw_key_len"] + (key or b"")
    else:
        kb = blob(key)
    body = (struct.pack(">b", r.get("attributes", 0))
            + varint_bytes(r.get("ts", 0))
            + varint_bytes(r.get("od", index)) + kb + blob(r.get("value"))
            + varint_bytes(r.get("header_count", len(r.get("headers", [])))))
    for k, (hk, hv) in enumerate(r.get("headers", [])):
        if k == 0 and "raw_header_key_len" in r:
            body += r["raw_header_key_len"] + hk + blob(hv)
        else:
            body += varint_bytes(len(hk)) + hk + blob(hv)
    body += r.get("tail", b"")
    n = r.get("length", len(body) + r.get("length_delta", 0))
    return varint_bytes(n) + body


def v2_batch(records, codec=0, attributes=0, base_offset=0,
             base_timestamp=0, max_timestamp=None, producer_id=-1,
             producer_epoch=-1, base_sequence=-1, leader_epoch=0,
             last_offset_delta=None, count=None, batch_length_delta=0,
             section_fn=None, crc_delta=0):
    """A RecordBatch v2 (protocol guide "Record Batch").  Defaults are a
    non-idempotent producer's: producerId/epoch/baseSequence -1.  The
    records section is compressed with `codec` (attributes bits 0-2).
    section_fn(plain records) gives the section instead (a stored gzip
    block, a broken stream).  Faults: count, batch_length_delta,
    crc_delta (added to the stored CRC)."""
    plain = b"".join(encode_record(r, i) for i, r in enumerate(records))
    if section_fn is not None:
        section = section_fn(plain)
    else:
        section = compress(codec, plain) if codec < 5 else plain
    if last_offset_delta is None:
        last_offset_delta = max([r.get("od", i) for i, r in
                                 enumerate(records)] or [0])
    if max_timestamp is None:
        max_timestamp = base_timestamp + max(
            [r.get("ts", 0) for r in records] or [0])
    after_crc = (
        struct.pack(">h", attributes | codec)
        + struct.pack(">i", last_offset_delta)
        + struct.pack(">q", base_timestamp)
        + struct.pack(">q", max_timestamp)
        + struct.pack(">q", producer_id)
        + struct.pack(">h", producer_epoch)
        + struct.pack(">i", base_sequence)
        + struct.pack(">i", len(records) if count is None else count)
        + section)
    crc = (crc32c(after_crc) + crc_delta) & 0xFFFFFFFF
    return (struct.pack(">q", base_offset)
            + struct.pack(">i", 4 + 1 + 4 + len(after_crc)
                          + batch_length_delta)
            + struct.pack(">i", leader_epoch) + struct.pack(">b", 2)
            + struct.pack(">I", crc) + after_crc)


def control_record(commit, coordinator_epoch=0):
    """The record of a control batch (KIP-98): key = version 0 (int16),
    type (int16: 0 abort, 1 commit); value = EndTxnMarker version 0
    (int16), coordinatorEpoch (int32)."""
    return {"key": struct.pack(">hh", 0, 1 if commit else 0),
            "value": struct.pack(">hi", 0, coordinator_epoch)}


def legacy_message(offset, magic, key, value, timestamp=0, attributes=0,
                   crc_delta=0, value_len_delta=0):
    """One message of a magic 0/1 message set (protocol guide "Message
    Sets"): offset, message size, CRC-32 (IEEE, of magic to the end),
    magic, attributes, [timestamp], key, value (int32 lengths).  Faults:
    crc_delta, value_len_delta (added to the value's length)."""
    def blob(b, delta=0):
        return struct.pack(">i", -1) if b is None else \
            struct.pack(">i", len(b) + delta) + b
    body = (struct.pack(">bb", magic, attributes)
            + (struct.pack(">q", timestamp) if magic == 1 else b"")
            + blob(key) + blob(value, value_len_delta))
    msg = struct.pack(">I", (zlib.crc32(body) + crc_delta)
                      & 0xFFFFFFFF) + body
    return struct.pack(">qi", offset, len(msg)) + msg


# -- the reference validator -------------------------------------------------

# Per records field: layout and the rules by version (codec/records/README.md
# states kwire's table; here the same facts from their sources).
#   whole:     whole batches only (Produce: a request carries what the
#              producer built, nothing cut);
#   partial:   complete batches, then possibly one cut short (Fetch,
#              ShareFetch: the broker stops at the partition's max bytes and
#              the consumer skips the partial tail);
#   unaligned: a raw byte range, never parsed (FetchSnapshot, KIP-630).
# one_v2_from: from this version exactly one batch, magic 2; zstd_from: the
# first version that may carry zstd (Java ProduceRequest.validateRecords,
# KIP-98, KIP-110).
RECORDS_POLICY = {
    ("ProduceRequest", "Records"): ("whole", 3, 7),
    ("FetchResponse", "Records"): ("partial", None, None),
    ("ShareFetchResponse", "Records"): ("partial", None, None),
    ("FetchSnapshotResponse", "UnalignedRecords"): ("unaligned", None, None),
}


class _RecordReader:
    """Reads inside one complete batch (or a decompressed payload): a read
    that runs past its record or batch is corrupt_records at the read's
    first byte; varints are strict (FORMAT.md)."""

    def __init__(self, data, base, path):
        self.data, self.base, self.path = data, base, path
        self.pos, self.end = 0, len(data)

    def at(self, pos=None):
        return self.base + (self.pos if pos is None else pos)

    def fail(self, kind, pos, path, detail):
        raise DecodeError(kind, self.at(pos), path, detail)

    def fixed(self, fmt, path):
        n = struct.calcsize(fmt)
        if n > self.end - self.pos:
            self.fail("corrupt_records", self.pos, path,
                      "%s runs past its record or batch" % fmt)
        v = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += n
        return v

    def varint(self, path, long=False):
        start, v = self.pos, 0
        limit, last_max = (10, 0x01) if long else (5, 0x0F)
        for i in range(limit):
            if self.pos >= self.end:
                self.fail("corrupt_records", start, path,
                          "varint runs past its record or batch")
            b = self.data[self.pos]
            self.pos += 1
            v |= (b & 0x7F) << (7 * i)
            if b & 0x80:
                continue
            if i == limit - 1 and b > last_max:
                self.fail("varint_overflow", start, path,
                          "byte %d is 0x%02x" % (limit, b))
            if i > 0 and b == 0:
                self.fail("varint_non_canonical", start, path,
                          "%d bytes end in a zero group" % (i + 1))
            return (v >> 1) ^ -(v & 1)
        self.fail("varint_too_long", start, path,
                  "continues past %d bytes" % limit)

    def raw(self, n, path):
        if n > self.end - self.pos:
            self.fail("corrupt_records", self.pos, path,
                      "%d bytes, %d left in the record or batch"
                      % (n, self.end - self.pos))
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def varbytes(self, path, what, nullable=True):
        start = self.pos
        n = self.varint(path)
        if n == -1 and nullable:
            return None
        if n < 0:
            self.fail("invalid_length", start, path, "%s length %d"
                      % (what, n))
        return self.raw(n, path)


class RecordsChecker:
    """Validates the bytes of one records field (length prefix excluded)
    starting at frame offset `offset`; raises DecodeError.  Paths continue
    the field's: `<field>.Batch[i]`, `.Batch[i].Record[j]`,
    `.Record[j].Length|Attributes|TimestampDelta|OffsetDelta|Key|Value|
    Headers`, `.Record[j].Headers[k].Key|Value`; a legacy message set's
    inner messages `.Batch[i].Message[j]`."""

    def __init__(self, policy, version):
        self.layout, self.one_v2_from, self.zstd_from = policy
        self.version = version

    def one_v2(self):
        return self.one_v2_from is not None and \
            self.version >= self.one_v2_from

    def check(self, data, offset, path):
        if self.layout == "unaligned":
            return
        pos, index = 0, 0
        partial = None
        while pos < len(data):
            at = offset + pos
            rem = len(data) - pos
            bpath = "%s.Batch[%d]" % (path, index)
            if rem < LOG_OVERHEAD:
                partial = at
                break
            batch_length = struct.unpack_from(">i", data, pos + 8)[0]
            if batch_length < MIN_BATCH_LENGTH[0]:
                raise DecodeError("corrupt_records", at + 8, bpath,
                                  "batchLength %d" % batch_length)
            total = LOG_OVERHEAD + batch_length
            if rem <= 16:
                partial = at
                break
            magic = struct.unpack_from(">b", data, pos + 16)[0]
            if magic not in (0, 1, 2):
                raise DecodeError("corrupt_records", at + 16, bpath,
                                  "magic %d" % magic)
            if batch_length < MIN_BATCH_LENGTH[magic]:
                raise DecodeError("corrupt_records", at + 8, bpath,
                                  "batchLength %d below %d for magic %d"
                                  % (batch_length, MIN_BATCH_LENGTH[magic],
                                     magic))
            if total > rem:
                partial = at
                break
            batch = bytes(data[pos:pos + total])
            if magic == 2:
                self.v2_header(batch, at, bpath)
            else:
                self.legacy_header(batch, at, bpath, magic)
            self.allowed(batch, at, bpath, index, magic)
            if magic == 2:
                self.v2_records(batch, at, bpath)
            else:
                self.legacy_records(batch, at, bpath, magic)
            pos += total
            index += 1
        if partial is not None and self.layout != "partial":
            raise DecodeError("corrupt_records", partial, "%s.Batch[%d]"
                              % (path, index), "a batch cut short")
        if index == 0 and self.one_v2():
            raise DecodeError("records_not_allowed", offset + len(data),
                              path, "no record batch; v%d needs exactly one"
                              % self.version)

    def v2_header(self, batch, at, bpath):
        stored = struct.unpack_from(">I", batch, 17)[0]
        if stored != crc32c(batch[21:]):
            raise DecodeError("crc_mismatch", at + 17, bpath,
                              "stored 0x%08x, computed 0x%08x"
                              % (stored, crc32c(batch[21:])))

    def legacy_header(self, batch, at, bpath, magic):
        r = _RecordReader(batch, at, bpath)
        r.pos = 17
        r.fixed(">b", bpath)                         # attributes
        if magic == 1:
            r.fixed(">q", bpath)                     # timestamp
        for name in ("Key", "Value"):
            # int32 lengths, as in frames: a fault at the length
            p = "%s.%s" % (bpath, name)
            n = r.fixed(">i", p)
            if n < -1:
                r.fail("invalid_length", r.pos - 4, p, "length %d" % n)
            if n > r.end - r.pos:
                r.fail("corrupt_records", r.pos - 4, p, "length %d, %d "
                       "bytes left in the message" % (n, r.end - r.pos))
            r.pos += max(n, 0)
        if r.pos != len(batch):
            r.fail("corrupt_records", r.pos, bpath,
                   "%d bytes after the value" % (len(batch) - r.pos))
        stored = struct.unpack_from(">I", batch, 12)[0]
        if stored != zlib.crc32(batch[16:]):
            raise DecodeError("crc_mismatch", at + 12, bpath,
                              "stored 0x%08x (CRC-32)" % stored)

    def allowed(self, batch, at, bpath, index, magic):
        """The field's rules (Java ProduceRequest.validateRecords)."""
        if self.one_v2():
            if index > 0:
                raise DecodeError("records_not_allowed", at, bpath,
                                  "a second batch")
            if magic != 2:
                raise DecodeError("records_not_allowed", at + 16, bpath,
                                  "magic %d" % magic)
        codec = batch[22 if magic == 2 else 17] & ATTR_CODEC_MASK
        if codec == 4 and self.zstd_from is not None and \
                self.version < self.zstd_from:
            raise DecodeError("records_not_allowed",
                              at + (21 if magic == 2 else 17), bpath,
                              "zstd before v%d" % self.zstd_from)

    def payload(self, codec, section, at, bpath):
        try:
            return decompress(codec, section)
        except CompressionFault as exc:
            raise DecodeError("compression_error", at + exc.pos, bpath,
                              str(exc))

    def v2_records(self, batch, at, bpath):
        attributes = struct.unpack_from(">h", batch, 21)[0]
        codec = attributes & ATTR_CODEC_MASK
        if codec > 4:
            raise DecodeError("corrupt_records", at + 21, bpath,
                              "compression codec %d" % codec)
        count = struct.unpack_from(">i", batch, 57)[0]
        if count < 0:
            raise DecodeError("corrupt_records", at + 57, bpath,
                              "records count %d" % count)
        section = batch[V2_HEADER_SIZE:]
        data, base = section, at + V2_HEADER_SIZE
        if codec:
            data = self.payload(codec, section, base, bpath)
        if count > len(data) // MIN_RECORD_SIZE:
            raise DecodeError("corrupt_records", at + 57, bpath,
                              "records count %d for %d bytes"
                              % (count, len(data)))
        r = _RecordReader(data, 0 if codec else base, bpath)
        try:
            for j in range(count):
                if r.pos == r.end:
                    r.fail("corrupt_records", r.pos, "%s.Record[%d]" % (bpath, j),
                           "records count %d but only %d records present"
                           % (count, j))
                self.record(r, "%s.Record[%d]" % (bpath, j),
                            attributes & ATTR_CONTROL)
            if r.pos != r.end:
                r.fail("corrupt_records", r.pos, bpath,
                       "records count %d but %d bytes follow"
                       % (count, r.end - r.pos))
        except DecodeError as exc:
            if not codec:
                raise
            # inside a decompressed payload: at the payload's first byte
            raise DecodeError(exc.kind, base, exc.path,
                              "at byte %d of the decompressed records: %s"
                              % (exc.offset, exc.detail))

    def record(self, r, rpath, control):
        if r.pos == r.end:
            r.fail("corrupt_records", r.pos, rpath, "fewer records than "
                   "the count")
        start = r.pos
        n = r.varint(rpath + ".Length")
        if n < 0:
            r.fail("invalid_length", start, rpath, "record length %d" % n)
        if n > r.end - r.pos:
            r.fail("corrupt_records", start, rpath, "record length %d, %d "
                   "bytes left in the batch" % (n, r.end - r.pos))
        outer, r.end = r.end, r.pos + n
        r.fixed(">b", rpath + ".Attributes")
        r.varint(rpath + ".TimestampDelta", long=True)
        r.varint(rpath + ".OffsetDelta")
        key = r.varbytes(rpath + ".Key", "key")
        value = r.varbytes(rpath + ".Value", "value")
        cstart = r.pos
        count = r.varint(rpath + ".Headers")
        if count < 0:
            r.fail("invalid_length", cstart, rpath + ".Headers",
                   "header count %d" % count)
        if count > (r.end - r.pos) // 2:
            r.fail("corrupt_records", cstart, rpath + ".Headers",
                   "header count %d, %d bytes left" % (count,
                                                       r.end - r.pos))
        for k in range(count):
            hpath = "%s.Headers[%d]" % (rpath, k)
            hk = r.varbytes(hpath + ".Key", "header key", nullable=False)
            try:
                hk.decode("utf-8")
            except UnicodeDecodeError as exc:
                r.fail("invalid_utf8", r.pos - len(hk) + exc.start,
                       hpath + ".Key", exc.reason)
            r.varbytes(hpath + ".Value", "header value")
        if r.pos != r.end:
            r.fail("corrupt_records", r.pos, rpath, "record length %d, "
                   "its fields use %d" % (n, r.pos - (r.end - n)))
        r.end = outer
        if control:
            self.control(key, value, r, start, rpath)

    def control(self, key, value, r, start, rpath):
        """A control record (KIP-98): key version >= 0, type; a commit or
        abort marker's value an EndTxnMarker of version >= 0."""
        bad = None
        if key is None or len(key) < 4:
            bad = "control record key of %s bytes" % (
                "null" if key is None else len(key))
        else:
            kv, typ = struct.unpack_from(">hh", key)
            if kv < 0 or (kv == 0 and len(key) != 4):
                bad = "control key version %d of %d bytes" % (kv, len(key))
            elif typ in (0, 1):
                if value is None or len(value) < 6:
                    bad = "transaction marker value too short"
                else:
                    mv = struct.unpack_from(">h", value)[0]
                    if mv < 0 or (mv == 0 and len(value) != 6):
                        bad = "marker version %d of %d bytes" % (
                            mv, len(value))
        if bad:
            r.fail("corrupt_records", start, rpath, bad)

    def legacy_records(self, batch, at, bpath, magic):
        codec = batch[17] & ATTR_CODEC_MASK
        if codec == 0:
            return
        if codec > 3:
            raise DecodeError("corrupt_records", at + 17, bpath,
                              "codec %d in a magic %d message"
                              % (codec, magic))
        r = _RecordReader(batch, at, bpath)
        r.pos = 18 + (8 if magic == 1 else 0)
        klen = r.fixed(">i", bpath)
        r.pos += max(klen, 0)
        vstart = r.pos
        vlen = r.fixed(">i", bpath)
        if vlen < 0:
            raise DecodeError("corrupt_records", at + vstart, bpath,
                              "compressed message with a null value")
        base = at + r.pos
        data = self.payload(codec, batch[r.pos:r.pos + vlen], base, bpath)
        inner = _RecordReader(data, 0, bpath)
        j = 0
        try:
            while inner.pos < inner.end:
                mpath = "%s.Message[%d]" % (bpath, j)
                inner.fixed(">q", mpath)
                spos = inner.pos
                size = inner.fixed(">i", mpath)
                if size < MIN_BATCH_LENGTH[0] or size > inner.end - inner.pos:
                    inner.fail("corrupt_records", spos, mpath,
                               "inner message size %d" % size)
                msg = data[inner.pos:inner.pos + size]
                if msg[4] != magic:
                    inner.fail("corrupt_records", inner.pos + 4, mpath,
                               "inner magic %d" % msg[4])
                if msg[5] & ATTR_CODEC_MASK:
                    inner.fail("corrupt_records", inner.pos + 5, mpath,
                               "nested compression")
                if struct.unpack_from(">I", msg)[0] != zlib.crc32(msg[4:]):
                    inner.fail("crc_mismatch", inner.pos, mpath, "CRC-32")
                inner.pos += size
                j += 1
            if j == 0:
                inner.fail("corrupt_records", 0, bpath, "no messages")
        except DecodeError as exc:
            raise DecodeError(exc.kind, base, exc.path,
                              "in the decompressed messages: " + exc.detail)


# -- the records vectors -----------------------------------------------------

RECORDS_TS = 1767225600000  # 2026-01-01T00:00:00Z: the batches' baseTimestamp


def sample_records(rng, n, headers=True, nulls=False, value_size=24):
    """n records for a batch: increasing timestamp deltas, keys and values
    of random bytes (some null when `nulls`), 0-2 headers each."""
    out = []
    ts = 0
    for i in range(n):
        ts += rng.randrange(0, 2000)
        key = None if nulls and rng.random() < 0.4 else \
            ("key-%d" % rng.randrange(1000)).encode()
        value = None if nulls and rng.random() < 0.3 else bytes(
            rng.getrandbits(8) for _ in range(rng.randrange(1, value_size)))
        hs = []
        for _ in range(rng.randrange(3) if headers else 0):
            hs.append((rng.choice([b"trace-id", b"content-type", b"",
                                   "caf\u00e9".encode()]),
                       None if rng.random() < 0.3 else
                       bytes(rng.getrandbits(8)
                             for _ in range(rng.randrange(9)))))
        out.append({"ts": ts, "key": key, "value": value, "headers": hs})
    return out


def boundary_records():
    """Records at the varint/varlong boundaries: key and value lengths whose
    zigzag form needs 1|2 and 2|3 bytes (63|64, 8191|8192), null key and
    value, timestampDelta at the int64 ends and at 2^31, 2^53, a header count
    of 64 (two-byte varint), an empty header key, null header values."""
    return [
        {"ts": 0, "key": None, "value": None, "headers": []},
        {"ts": -1, "key": b"k" * 63, "value": b"v" * 64, "headers": []},
        {"ts": 63, "key": b"", "value": b"", "headers": [(b"", None)]},
        {"ts": -64, "key": b"x" * 8191, "value": b"y" * 8192,
         "headers": []},
        {"ts": 2 ** 31 - 1, "key": None, "value": b"z",
         "headers": [(b"h%d" % i, None if i % 2 else b"") for i in
                     range(64)]},
        {"ts": -(2 ** 31), "key": b"a", "value": None, "headers": []},
        {"ts": 2 ** 53 + 1, "key": b"b", "value": b"", "headers": []},
        {"ts": 2 ** 63 - 1, "key": b"c", "value": b"d", "headers": []},
        {"ts": -(2 ** 63), "key": b"e", "value": b"f", "headers": []},
    ]


def build_field(spec):
    """The bytes of a records field from its spec: a list of batches, each
    {"v2": kwargs of v2_batch} or {"legacy": [kwargs of legacy_message]}
    or {"legacy_wrapper": ...} or {"raw": bytes}; a batch may say
    "cut": n (drop its last n bytes: a partial batch)."""
    out = b""
    for b in spec:
        if "v2" in b:
            data = v2_batch(**b["v2"])
        elif "legacy" in b:
            data = b"".join(legacy_message(**m) for m in b["legacy"])
        elif "wrapper" in b:
            w = b["wrapper"]
            inner = b"".join(legacy_message(**m) for m in w["messages"])
            data = legacy_message(w["offset"], w["magic"], None,
                                  compress(w["codec"], inner),
                                  timestamp=w.get("timestamp", 0),
                                  attributes=w["codec"])
        else:
            data = b["raw"]
        if b.get("fix") is not None:
            data = b["fix"](data)
        if b.get("cut"):
            data = data[:len(data) - b["cut"]]
        out += data
    return out


def _v2(records, **kw):
    kw.setdefault("base_timestamp", RECORDS_TS)
    return {"v2": dict(kw, records=records)}


def _producer(rng, transactional=False):
    """An idempotent (or transactional) producer's batch fields."""
    return {"producer_id": rng.randrange(1000, 2 ** 40),
            "producer_epoch": rng.randrange(0, 5),
            "base_sequence": rng.randrange(0, 1000),
            "attributes": ATTR_TRANSACTIONAL if transactional else 0}


def _legacy_set(rng, magic, n, base_offset=0):
    return {"legacy": [
        {"offset": base_offset + i, "magic": magic,
         "key": None if i % 2 else b"key-%d" % i,
         "value": bytes(rng.getrandbits(8)
                        for _ in range(rng.randrange(1, 20))),
         "timestamp": RECORDS_TS + i} for i in range(n)]}


def records_accept_specs():
    """(set, api_key, version, name, what, spec builder(rng)) of every
    accept vector of the records set; set is "current" or "removed"."""
    P, F, S = 0, 1, 78
    cases = []

    def add(which, key, version, name, what, fn):
        cases.append((which, key, version, name, what, fn))

    for v, codecs in ((3, (0, 1, 2, 3)), (7, (4,)), (9, (1, 2, 3, 4)),
                      (12, (0, 1, 2, 3, 4))):
        for c in codecs:
            add("current", P, v, CODEC_NAMES[c],
                "one %s batch of 3 records (idempotent producer)"
                % CODEC_NAMES[c],
                lambda rng, c=c: [_v2(sample_records(rng, 3), codec=c,
                                      **_producer(rng))])
    add("current", P, 9, "gzip-stored",
        "one gzip batch whose DEFLATE stream is a stored block",
        lambda rng: [_v2(sample_records(rng, 2), codec=1,
                         section_fn=lambda p: gzip_compress(p, True))])
    add("current", P, 12, "transactional",
        "a transactional batch (attributes bit 4) of 2 records",
        lambda rng: [_v2(sample_records(rng, 2), **_producer(rng, True))])
    add("current", P, 12, "varint-boundaries",
        "records at the varint/varlong boundaries (lengths 63/64, "
        "8191/8192, timestampDelta -2^63..2^63-1, 64 headers, nulls)",
        lambda rng: [_v2(boundary_records(), max_timestamp=2 ** 63 - 1,
                         base_timestamp=0)])
    add("current", P, 11, "zstd-varint-boundaries",
        "the same records in a zstd batch",
        lambda rng: [_v2(boundary_records(), codec=4,
                         max_timestamp=2 ** 63 - 1, base_timestamp=0)])
    add("current", P, 10, "empty-batch",
        "one batch with no records (the minimal frames' batch)",
        lambda rng: [_v2([], base_timestamp=0)])
    add("removed", P, 2, "magic1",
        "a message set of 3 magic-1 messages (Produce v0-2 take any magic)",
        lambda rng: [_legacy_set(rng, 1, 3)])
    add("removed", P, 0, "magic0",
        "a message set of 2 magic-0 messages",
        lambda rng: [_legacy_set(rng, 0, 2)])
    add("removed", P, 2, "two-batches",
        "two v2 batches (only v3+ require exactly one)",
        lambda rng: [_v2(sample_records(rng, 1)),
                     _v2(sample_records(rng, 2), codec=1, base_offset=1)])

    add("current", F, 4, "none-gzip",
        "two batches: uncompressed, then gzip",
        lambda rng: [_v2(sample_records(rng, 2), base_offset=100),
                     _v2(sample_records(rng, 3), codec=1, base_offset=102)])
    add("current", F, 4, "magic1-then-v2",
        "a log written before and after the upgrade: 2 magic-1 messages, "
        "then a v2 batch",
        lambda rng: [_legacy_set(rng, 1, 2, 50),
                     _v2(sample_records(rng, 2), base_offset=52)])
    add("current", F, 5, "magic1-gzip-wrapper",
        "a gzip-compressed magic-1 wrapper message holding 3 messages "
        "(relative inner offsets)",
        lambda rng: [{"wrapper": {
            "offset": 12, "magic": 1, "codec": 1, "timestamp": RECORDS_TS,
            "messages": [{"offset": i, "magic": 1, "key": None,
                          "value": b"inner-%d" % i,
                          "timestamp": RECORDS_TS + i} for i in range(3)]}}])
    add("current", F, 11, "snappy-lz4-zstd",
        "three batches: snappy, lz4, zstd (LogAppendTime)",
        lambda rng: [_v2(sample_records(rng, 2), codec=2, base_offset=0),
                     _v2(sample_records(rng, 2), codec=3, base_offset=2),
                     _v2(sample_records(rng, 2), codec=4, base_offset=4,
                         attributes=ATTR_LOG_APPEND_TIME,
                         max_timestamp=RECORDS_TS + 99999)])
    for v, commit in ((12, True), (15, False)):
        word = "commit" if commit else "abort"
        add("current", F, v, "transaction-" + word,
            "a transactional batch, then the control batch with its %s "
            "marker" % word,
            lambda rng, commit=commit: (lambda p: [
                _v2(sample_records(rng, 2), base_offset=10, **p),
                _v2([dict(control_record(commit, 3), ts=5)],
                    base_offset=12, producer_id=p["producer_id"],
                    producer_epoch=p["producer_epoch"], base_sequence=-1,
                    attributes=ATTR_TRANSACTIONAL | ATTR_CONTROL)])(
                _producer(rng, True)))
    add("current", F, 13, "compacted",
        "a compacted batch: offset gaps up to offsetDelta 2^31-1, "
        "tombstones (null values)",
        lambda rng: [_v2([dict(r, od=od) for r, od in zip(
            sample_records(rng, 4, nulls=True), (0, 7, 300, 2 ** 31 - 1))],
            base_offset=1000)])
    add("current", F, 16, "partial-tail",
        "a complete batch, then a batch cut short (the broker stopped at "
        "max bytes)",
        lambda rng: [_v2(sample_records(rng, 2), codec=3),
                     dict(_v2(sample_records(rng, 3), base_offset=2),
                          cut=20)])
    add("current", F, 17, "partial-tail-short",
        "a complete zstd batch, then 8 bytes of the next batch (less than "
        "its baseOffset and batchLength)",
        lambda rng: [_v2(sample_records(rng, 2), codec=4),
                     dict(_v2(sample_records(rng, 1), base_offset=2),
                          cut=V2_HEADER_SIZE)])
    add("current", F, 17, "varint-boundaries",
        "records at the varint/varlong boundaries in a snappy batch",
        lambda rng: [_v2(boundary_records(), codec=2, base_timestamp=0,
                         max_timestamp=2 ** 63 - 1)])
    add("removed", F, 0, "magic0",
        "a message set of 3 magic-0 messages",
        lambda rng: [_legacy_set(rng, 0, 3)])
    add("removed", F, 3, "magic1-partial",
        "2 magic-1 messages, then one cut short",
        lambda rng: [_legacy_set(rng, 1, 2),
                     dict(_legacy_set(rng, 1, 1, 2), cut=5)])
    add("removed", S, 0, "lz4-partial-tail",
        "an lz4 batch, then a batch cut short",
        lambda rng: [_v2(sample_records(rng, 3), codec=3),
                     dict(_v2(sample_records(rng, 2), base_offset=3),
                          cut=30)])
    add("removed", S, 0, "transaction-commit",
        "a transactional gzip batch, then the commit marker",
        lambda rng: (lambda p: [
            _v2(sample_records(rng, 2), codec=1, base_offset=0, **p),
            _v2([control_record(True, 1)], base_offset=2,
                producer_id=p["producer_id"],
                producer_epoch=p["producer_epoch"],
                attributes=ATTR_TRANSACTIONAL | ATTR_CONTROL)])(
            _producer(rng, True)))
    return cases


def _first_v2(spec):
    return next(b for b in spec if "v2" in b)["v2"]


def _recs(spec):
    return _first_v2(spec)["records"]


def _shorten(data):
    """batchLength one less, CRC recomputed over the shorter batch, and the
    last byte dropped."""
    data = bytearray(data[:-1])
    struct.pack_into(">i", data, 8, len(data) - 12)
    struct.pack_into(">I", data, 17, crc32c(bytes(data[21:])))
    return bytes(data)


def _patch(data, at, repl):
    return data[:at] + repl + data[at + len(repl):]


def _flip_value_byte(data):
    """The last byte of the batch (inside the last record) XOR 0x01, CRC
    left as it was."""
    return data[:-1] + bytes([data[-1] ^ 0x01])


# (source accept name, reject name, expected kind, what, mutate(spec) or an
# int: the same records in a frame of that version).
# The source is `records/<Api>/v<N>/<direction>/<name>` of the same case.
RECORDS_REJECTS = [
    ((0, 3, "none"), "crc_mismatch", "crc_mismatch",
     "the batch's last byte XOR 0x01, CRC unchanged",
     lambda s: s[0].update(fix=_flip_value_byte)),
    ((1, 4, "magic1-then-v2"), "crc_mismatch-legacy", "crc_mismatch",
     "message 1's CRC-32 + 1",
     lambda s: s[0]["legacy"][1].update(crc_delta=1)),
    ((0, 12, "none"), "batch_length-long", "corrupt_records",
     "batchLength + 1 (the batch runs past the field: a partial batch in "
     "a Produce request)",
     lambda s: _first_v2(s).update(batch_length_delta=1)),
    ((0, 9, "gzip"), "batch_length-short", "compression_error",
     "batchLength - 1 and the last byte dropped, CRC recomputed: the "
     "compressed stream ends one byte early",
     lambda s: s[0].update(fix=_shorten)),
    ((0, 3, "none"), "batch_length-short", "corrupt_records",
     "batchLength - 1 and the last byte dropped, CRC recomputed: the last "
     "record runs past the batch",
     lambda s: s[0].update(fix=_shorten)),
    ((1, 4, "magic1-then-v2"), "legacy-value-length", "corrupt_records",
     "message 0's value length + 100 (past the message; CRC-32 "
     "recomputed)",
     lambda s: s[0]["legacy"][0].update(value_len_delta=100)),
    ((1, 4, "none-gzip"), "batch_length-below-minimum", "corrupt_records",
     "batchLength 13 (below the 14 bytes of any message)",
     lambda s: s[0].update(fix=lambda d: d[:8] + struct.pack(">i", 13)
                           + d[12:])),
    ((0, 12, "none"), "magic-3", "corrupt_records",
     "magic 3", lambda s: s[0].update(fix=lambda d: d[:16] + b"\x03"
                                      + d[17:])),
    ((0, 12, "none"), "count-plus-one", "corrupt_records",
     "records count + 1 (CRC recomputed)",
     lambda s: _first_v2(s).update(count=len(_recs(s)) + 1)),
    ((0, 9, "zstd"), "count-minus-one", "corrupt_records",
     "records count - 1 in a zstd batch (CRC recomputed): bytes follow the "
     "last record of the decompressed payload",
     lambda s: _first_v2(s).update(count=len(_recs(s)) - 1)),
    ((1, 4, "none-gzip"), "count-minus-one", "corrupt_records",
     "the first batch's records count - 1 (CRC recomputed)",
     lambda s: _first_v2(s).update(count=len(_recs(s)) - 1)),
    ((0, 12, "transactional"), "count-beyond-bytes", "corrupt_records",
     "records count 1000 (more than the bytes can hold, 7 bytes a record)",
     lambda s: _first_v2(s).update(count=1000)),
    ((0, 12, "transactional"), "count-negative", "corrupt_records",
     "records count -1", lambda s: _first_v2(s).update(count=-1)),
    ((0, 3, "none"), "record-length-beyond-batch", "corrupt_records",
     "the last record's length + 3 (past the batch)",
     lambda s: _recs(s)[-1].update(length_delta=3)),
    ((0, 9, "lz4"), "record-length-beyond-batch", "corrupt_records",
     "the first record's length 1000 inside an lz4 payload",
     lambda s: _recs(s)[0].update(length=1000)),
    ((0, 12, "transactional"), "record-length-negative", "invalid_length",
     "the first record's length -2",
     lambda s: _recs(s)[0].update(length=-2)),
    ((0, 12, "transactional"), "record-length-long", "corrupt_records",
     "the first record's length + 1 with one byte more inside it: its "
     "fields end one byte before the record does",
     lambda s: _recs(s)[0].update(tail=b"\x00")),
    ((1, 13, "compacted"), "record-length-short", "corrupt_records",
     "the first record's length - 1: its header count lies outside it",
     lambda s: _recs(s)[0].update(headers=[], length_delta=-1)),
    ((0, 12, "varint-boundaries"), "key-length-beyond-record",
     "corrupt_records", "record 1's key length 63 -> 1000 (past the "
     "record)",
     lambda s: _recs(s)[1].update(raw_key_len=varint_bytes(1000))),
    ((0, 12, "varint-boundaries"), "key-length-negative", "invalid_length",
     "record 2's key length -2",
     lambda s: _recs(s)[2].update(raw_key_len=varint_bytes(-2))),
    ((0, 12, "varint-boundaries"), "header-key-null", "invalid_length",
     "record 2's header key length -1 (header keys are not nullable)",
     lambda s: _recs(s)[2].update(raw_header_key_len=varint_bytes(-1))),
    ((0, 12, "varint-boundaries"), "header-count-beyond-record",
     "corrupt_records", "record 2's header count 64 (1 header present)",
     lambda s: _recs(s)[2].update(header_count=64)),
    ((0, 12, "varint-boundaries"), "header-count-negative",
     "invalid_length", "record 0's header count -1",
     lambda s: _recs(s)[0].update(header_count=-1)),
    ((1, 17, "varint-boundaries"), "header-key-invalid-utf8",
     "invalid_utf8", "record 4's first header key 'h0' replaced by ff 30 "
     "(snappy payload)",
     lambda s: _recs(s)[4]["headers"].__setitem__(0, (b"\xff0", b""))),
    ((0, 12, "varint-boundaries"), "varint-non-canonical",
     "varint_non_canonical", "record 0's key length (-1) as ff 00... "
     "written 81 00 (zigzag 1 in two bytes)",
     lambda s: _recs(s)[0].update(raw_key_len=b"\x81\x00", key=None)),
    ((0, 12, "varint-boundaries"), "varint-too-long", "varint_too_long",
     "record 0's key length as 6 bytes ff ff ff ff ff 01",
     lambda s: _recs(s)[0].update(raw_key_len=b"\xff\xff\xff\xff\xff\x01",
                                  key=None)),
    ((1, 12, "transaction-commit"), "control-key-null", "corrupt_records",
     "the control record's key null",
     lambda s: s[1]["v2"]["records"][0].update(key=None)),
    ((1, 15, "transaction-abort"), "control-value-short", "corrupt_records",
     "the abort marker's value cut to 4 bytes",
     lambda s: s[1]["v2"]["records"][0].update(
         value=s[1]["v2"]["records"][0]["value"][:4])),
    ((0, 9, "gzip"), "gzip-corrupt", "compression_error",
     "the gzip stream's header magic 1f 8b changed to 1f 8c",
     lambda s: _first_v2(s).update(section_fn=lambda p: _patch(
         compress(1, p), 1, b"\x8c"))),
    ((0, 12, "snappy"), "snappy-corrupt", "compression_error",
     "the raw snappy block inside the xerial framing cut by its last byte "
     "(the block length adjusted): it holds fewer bytes than its preamble "
     "says",
     lambda s: _first_v2(s).update(section_fn=lambda p: (
         lambda x: x[:16] + struct.pack(">i", len(x) - 21) + x[20:-1])(
             compress(2, p)))),
    ((0, 12, "lz4"), "lz4-corrupt", "compression_error",
     "the LZ4 frame's header checksum byte + 1",
     lambda s: _first_v2(s).update(section_fn=lambda p: (
         lambda x: _patch(x, 6, bytes([(x[6] + 1) & 0xFF])))(
             compress(3, p)))),
    ((0, 12, "zstd"), "zstd-corrupt", "compression_error",
     "the zstd frame's magic number 28 b5 2f fd changed to 28 b5 2f fe",
     lambda s: _first_v2(s).update(section_fn=lambda p: _patch(
         compress(4, p), 3, b"\xfe"))),
    ((0, 12, "zstd"), "zstd-truncated", "compression_error",
     "the zstd frame without its last byte",
     lambda s: _first_v2(s).update(section_fn=lambda p: compress(4, p)[:-1])),
] + [
    ((0, 12, "none"), "codec-%d" % c, "corrupt_records",
     "attributes codec bits %d (no such codec; CRC recomputed)" % c,
     lambda s, c=c: _first_v2(s).update(codec=c))
    for c in (5, 6, 7)
] + [
    ((0, 3, "none"), "magic1", "records_not_allowed",
     "the batch replaced by 2 magic-1 messages (v3+ allow only magic 2)",
     lambda s: s.__setitem__(0, _legacy_set(random.Random(1), 1, 2))),
    ((0, 9, "gzip"), "two-batches", "records_not_allowed",
     "a second batch after the first (v3+ allow exactly one)",
     lambda s: s.append(_v2(sample_records(random.Random(2), 1),
                            base_offset=3))),
    ((0, 12, "none"), "no-batch", "records_not_allowed",
     "the records replaced by zero bytes (v3+ need one batch)",
     lambda s: s.__setitem__(0, {"raw": b""})),
    ((0, 7, "zstd"), "zstd-in-v6", "records_not_allowed",
     "the same zstd batch in a v6 request (zstd from v7, KIP-110)", 6),
    ((0, 7, "zstd"), "zstd-in-v2", "records_not_allowed",
     "the same zstd batch in a v2 request (zstd from v7, KIP-110; Java's "
     "ProduceRequest.validateRecords checks the codec only from v3)", 2),
    ((0, 12, "lz4"), "partial-batch", "corrupt_records",
     "the batch cut 10 bytes short (a Produce request carries whole "
     "batches)", lambda s: s[0].update(cut=10)),
    ((0, 9, "lz4"), "partial-after-batch", "corrupt_records",
     "a second batch cut 5 bytes short after the complete one (Java's "
     "broker trims such a tail, UnifiedLog.trimInvalidBytes; a strict "
     "decoder refuses it)",
     lambda s: s.append(dict(_v2(sample_records(random.Random(3), 1),
                                 base_offset=3), cut=5))),
    ((0, 2, "magic1"), "partial-batch", "corrupt_records",
     "the last message cut 3 bytes short",
     lambda s: s[0].update(cut=3)),
]


def _records_frame(schemas, key, version, data):
    kind = "request" if key == 0 else "response"
    m = schemas.messages[(key, kind)]
    header = minimal_header(schemas, m, version)
    body = minimal_value(m, m.fields, version, data)
    frame, _ = Encoder(schemas).frame(m, version, header=header, body=body)
    return m, header, body, frame


def old_set_with(old, key, kind, v):
    """The newest of the older releases `old` that has version `v`, or None."""
    for older in old or []:
        m = older.messages.get((key, kind))
        if m is not None and v in m.valid:
            return older
    return None


def records_vectors(current, old=None):
    """The records set: accept vectors (frames whose records fields hold
    the batches of records_accept_specs) and reject vectors (a mutation of
    one accept vector each, RECORDS_REJECTS).  Every spec is built from a
    generator seeded with its accept vector's id; a reject is checked to
    fail the strict reference decoder with its intended kind, and `lenient`
    is whether the Java-rules decoder (which leaves records unparsed, as
    Kafka's MemoryRecords is read lazily) accepts it."""
    out = []
    sources = {}
    for which, key, v, name, _what, fn in records_accept_specs():
        schemas = current if which == "current" else old_set_with(
            old, key, "request" if key == 0 else "response", v)
        if schemas is None:
            continue
        m, header, body, frame = _records_frame(
            schemas, key, v, build_field(fn(random.Random(
                vector_id("records", schemas.messages[(
                    key, "request" if key == 0 else "response")], v,
                    name)))))
        vid = vector_id("records", m, v, name)
        out.append(accept_record("records", vid, schemas, m, v, frame,
                                 header, body))
        sources[(key, v, name)] = (schemas, fn, vid)
    for (key, v, name), rname, kind, what, mutate in RECORDS_REJECTS:
        if (key, v, name) not in sources:
            if old is None:  # a source from the older set
                continue
            raise SchemaError("records reject %s: no accept vector %r"
                              % (rname, (key, v, name)))
        schemas, fn, src = sources[(key, v, name)]
        spec = fn(random.Random(src))
        tv = v
        if isinstance(mutate, int):  # the same records in an older version
            tv = mutate
            kind_name = "request" if key == 0 else "response"
            if tv not in schemas.messages[(key, kind_name)].valid:
                schemas = old_set_with(old, key, kind_name, tv)
                if schemas is None:
                    if old is None:  # a version of the older sets only
                        continue
                    raise SchemaError("records reject %s: no set has v%d"
                                      % (rname, tv))
        else:
            mutate(spec)
        m, _, _, frame = _records_frame(schemas, key, tv, build_field(spec))
        vid = vector_id("records", m, tv, rname)
        try:
            Decoder(schemas).frame(frame, m.kind, key, tv)
            raise SchemaError("%s: the strict decoder accepts it" % vid)
        except DecodeError as exc:
            err = exc
        if err.kind != kind:
            raise SchemaError("%s: %s, expected %s" % (vid, err, kind))
        rec = _record("records", vid, m, tv, frame, schemas.label)
        broker = Decoder(schemas, broker=True)
        try:
            got = broker.frame(frame, m.kind, key, tv)
        except DecodeError:
            got = None
        if got is not None:
            # The frame reads; a broker refuses the partition (FORMAT.md,
            # "refuse"): header and body as read, records kept as bytes.
            if not broker.refusals or broker.refusals[0]["kind"] != kind:
                raise SchemaError("%s: read as a broker, refusals %r"
                                  % (vid, broker.refusals))
            again, _ = Encoder(schemas).frame(m, tv, header=got["header"],
                                              body=got["body"])
            if again != frame:
                raise SchemaError("%s: encode(read(b)) != b" % vid)
            # lenient: Apache Kafka's broker appends every refused part all
            # the same (FORMAT.md, "lenient").
            rec.update({"expect": "refuse", "header": got["header"],
                        "body": got["body"], "refusals": broker.refusals,
                        "lenient": all(broker.kafka_appends),
                        "mutation": "%s: %s" % (src, what),
                        "source": schemas.label or "unknown snapshot"})
            out.append(rec)
            continue
        try:
            Decoder(schemas, java=True).frame(frame, m.kind, key, tv)
            lenient = True
        except DecodeError:
            lenient = False
        rec.update({"expect": "reject", "error": err.as_json(),
                    "lenient": lenient, "mutation": "%s: %s" % (src, what),
                    "source": schemas.label or "unknown snapshot"})
        out.append(rec)
    return out


# ---------------------------------------------------------------------------
# Vector sets: one in-memory list of cases, written as the text files and as
# JSON Lines (conformance/FORMAT.md "Vector records").

FORMAT_VERSION = 1
JSONL_SETS = ("minimal", "minimal-removed", "seeds", "rich", "negative",
              "records", "kip511")


def vector_id(set_name, msg, version, suffix=""):
    return "%s/%s/v%d/%s%s" % (set_name, msg.api_name, version, msg.kind,
                               "/" + suffix if suffix else "")


def _record(set_name, vid, msg, version, frame, source):
    return {"format": FORMAT_VERSION, "id": vid, "set": set_name,
            "api_key": msg.api_key, "api_name": msg.api_name,
            "version": version, "direction": msg.kind,
            "header_version": header_version(msg, version),
            "frame": frame.hex()}


def accept_record(set_name, vid, schemas, msg, version, frame, header, body):
    """An accept vector, self-checked: the strict reference decoder must
    give back exactly (header, body), and the encoder the same bytes."""
    got = Decoder(schemas).frame(frame, msg.kind, msg.api_key, version)
    if canonical_json(got["header"]) != canonical_json(header) or \
            canonical_json(got["body"]) != canonical_json(body):
        raise SchemaError("%s: decode(encode(v)) != v" % vid)
    again, _ = Encoder(schemas).frame(msg, version, header=header, body=body)
    if again != frame:
        raise SchemaError("%s: encode(decode(b)) != b" % vid)
    rec = _record(set_name, vid, msg, version, frame, schemas.label)
    rec.update({"expect": "accept", "header": header, "body": body,
                "source": schemas.label or "unknown snapshot"})
    return rec


def build_vectors(current, old=None, seeds=None, stats=None):
    """{set name: [record]} for every set; minimal and minimal-removed
    records also carry the frame lines of the text files (`_line`)."""
    sets = {name: [] for name in JSONL_SETS}
    cases = [(current, "minimal", key, api, v, kind, m)
             for key, api, v, kind, m in current.frames()]
    removed = {}
    for older in old or []:  # newest first: a version from the newest that has it
        for key, api, v, kind, m in older.frames():
            cur = current.messages.get((key, kind))
            if (cur is None or v not in cur.valid) and (key, v, kind) not in removed:
                removed[(key, v, kind)] = (older, "minimal-removed", key, api, v, kind, m)
    cases += [removed[k] for k in sorted(removed, key=lambda k: (k[0], k[1], k[2] != "request"))]
    for schemas, mset, key, api, v, kind, m in cases:
        enc = Encoder(schemas)
        mid = vector_id(mset, m, v)
        mdata, mnodes = Encoder(schemas, None, stats).frame(m, v, trace=True)
        rec = accept_record(mset, mid, schemas, m, v, mdata,
                            minimal_header(schemas, m, v),
                            minimal_value(m, m.fields, v, enc.batch))
        rec["_line"] = frame_line(key, api, v, kind, mdata)
        sets[mset].append(rec)
        rid = vector_id("rich", m, v)
        header, body = rich_instance(schemas, m, v, rid)
        rdata, rnodes = enc.frame(m, v, trace=True, header=header, body=body)
        sets["rich"].append(accept_record("rich", rid, schemas, m, v, rdata,
                                          header, body))
        gen = NegativeGen(schemas, enc, m, v, current=schemas is current)
        for name, frame, err, lenient, what in pick_negatives(
                gen.generate(mid, mdata, mnodes, rid, rdata, rnodes), mid):
            rec = _record("negative", vector_id("negative", m, v, name), m,
                          v, frame, schemas.label)
            rec.update({"expect": "reject", "error": err,
                        "lenient": lenient, "mutation": what,
                        "source": schemas.label or "unknown snapshot"})
            sets["negative"].append(rec)
    sets["records"] = records_vectors(current, old)
    sets["kip511"] = kip511_vectors(current)
    for s in seeds or []:
        m = current.messages[(s["api_key"], s["kind"])]
        frame = bytes.fromhex(s["hex"])
        got = Decoder(current).frame(frame, s["kind"], s["api_key"],
                                     s["version"])
        sets["seeds"].append(accept_record(
            "seeds", vector_id("seeds", m, s["version"]), current, m,
            s["version"], frame, got["header"], got["body"]))
    return sets


def kip511_vectors(schemas):
    """The kip511 set: ApiVersions responses that a broker answered at v0
    because it does not know the version of the request (KIP-511: error 35
    UNSUPPORTED_VERSION and the broker's ApiVersions range, under response
    header v0), for every request version above 0.  Accepted as v0 bodies
    ("body_version": 0).  A v0 body with error 0 (NONE) is not that fallback:
    strictly it is rejected at the version asked for; the Java rules take
    it (ApiVersionsResponse.parse retries at v0 on any parse failure), so
    it is lenient."""
    m = schemas.messages[(18, "response")]
    out = []
    header = {"CorrelationId": 123}
    enc = Encoder(schemas)

    def v0_frame(error, ranges):
        body = minimal_value(m, m.fields, 0, enc.batch)
        body["ErrorCode"] = error
        body["ApiKeys"] = [{"ApiKey": 18, "MinVersion": 0, "MaxVersion": hi}
                           for hi in ranges]
        frame, _ = enc.frame(m, 0, header=header, body=body)
        return frame, body

    for v in m.valid.listed():
        if v == 0:
            continue
        for name, error, ranges in (("fallback", 35, [v]),
                                    ("fallback-empty", 35, []),
                                    ("error-0", 0, [v])):
            frame, body = v0_frame(error, ranges)
            vid = vector_id("kip511", m, v, name)
            rec = _record("kip511", vid, m, v, frame, schemas.label)
            if error == 35:
                got = Decoder(schemas).frame(frame, "response", 18, v)
                if got["version"] != 0 or \
                        canonical_json(got["body"]) != canonical_json(body):
                    raise SchemaError("%s: not read as the v0 fallback" % vid)
                rec.update({"expect": "accept", "body_version": 0,
                            "header": header, "body": body})
            else:
                try:
                    Decoder(schemas).frame(frame, "response", 18, v)
                    raise SchemaError("%s: the strict decoder accepts it" % vid)
                except DecodeError as exc:
                    err = exc
                java = Decoder(schemas, java=True).frame(frame, "response", 18,
                                                         v)
                if java["version"] != 0:
                    raise SchemaError("%s: Java rules read it at v%d"
                                      % (vid, java["version"]))
                rec.update({"expect": "reject", "error": err.as_json(),
                            "lenient": True,
                            "mutation": "a v0 body with error code 0 (not 35 "
                                        "UNSUPPORTED_VERSION) answering an "
                                        "ApiVersions v%d request" % v})
            rec["source"] = schemas.label or "unknown snapshot"
            out.append(rec)
    return out


# Mutations that apply to few cases are always kept; the others are chosen in
# an order drawn from the case id (pick_negatives) up to NEGATIVES_PER_CASE.
RARE_NEGATIVES = ("invalid_bool", "invalid_value", "tag_size_mismatch-long",
                  "tag_size_mismatch-short", "unsupported_version")
NEGATIVE_ORDER = ("truncated-cut", "truncated-length", "count_too_large",
                  "invalid_length", "unexpected_null", "invalid_utf8",
                  "varint_non_canonical", "varint_too_long",
                  "varint_overflow", "tag_out_of_order", "tag_duplicate",
                  "trailing_bytes", "unknown_api_key")
NEGATIVES_PER_CASE = 5


def pick_negatives(candidates, case_id):
    """The negatives kept for one case: every rare kind it has, then the
    others in an order drawn from a hash of the case id and the kind name, so
    each case's choice depends on nothing else (adding an API version leaves
    the other cases' vectors as they were) and the kinds spread evenly."""
    by_name = {c[0]: c for c in candidates}
    keep = [n for n in RARE_NEGATIVES if n in by_name]
    rest = sorted((n for n in NEGATIVE_ORDER if n in by_name),
                  key=lambda n: hashlib.sha256(
                      ("%s %s" % (case_id, n)).encode()).digest())
    keep += rest[:max(0, NEGATIVES_PER_CASE - len(keep))]
    return [c for c in candidates if c[0] in keep]


def jsonl_text(records):
    return "".join(canonical_json({k: v for k, v in r.items()
                                   if not k.startswith("_")}) + "\n"
                   for r in records)


def join(path, name):
    return name if not path else path + "." + name


# ---------------------------------------------------------------------------
# Vector files.

REGEN = "python3 tools/conformance_ref.py (releases: tools/kafka-releases.txt)"


def frame_line(key, api_name, version, kind, data):
    return "%d %s %d %s %d %s" % (key, api_name, version, kind, len(data),
                                  data.hex())


def minimal_text(schemas, lines):
    label = schemas.label or "unknown snapshot"
    head = [
        "# kwire conformance vectors: the documented minimal frame of every",
        "# API key x valid version x request/response (see conformance/README.md).",
        "# Format: <api_key> <ApiName> <version> <request|response> <size> <hex>",
        "# size is the total byte count including the int32 size prefix.",
        "# Source: %s" % label,
        "# Regenerate: %s" % REGEN,
        "# Frames: %d" % len(lines),
    ]
    return "\n".join(head + lines) + "\n", len(lines)


def removed_text(current, old, lines):
    head = [
        "# kwire conformance vectors: documented minimal frames of the versions",
        "# that the older definition set has and the current one no longer has",
        "# (KIP-896 removals in Kafka 4.0, the share-group v0 of 4.1, the",
        "# ZooKeeper-only APIs), encoded from the older release that has them.",
        "# Format: <api_key> <ApiName> <version> <request|response> <size> <hex>",
        "# size is the total byte count including the int32 size prefix.",
        "# Source: the newest of %s that has the version" % (
            ", ".join(o.label or "unknown snapshot" for o in old)),
        "# Removed relative to: %s" % (current.label or "unknown snapshot"),
        "# Regenerate: %s" % REGEN,
        "# Frames: %d" % len(lines),
    ]
    return "\n".join(head + lines) + "\n", len(lines)


def parse_vector_lines(text):
    """Data lines of minimal*.txt as tuples; raises on a malformed line."""
    rows = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 6 or parts[3] not in ("request", "response"):
            raise ValueError("line %d malformed: %r" % (no, line))
        key, api, v, kind, size, hx = parts
        rows.append((int(key), api, int(v), kind, int(size), hx))
    return rows


# ---------------------------------------------------------------------------
# seeds.txt: hand-transcribed frames with their object trees.

def parse_seeds(text):
    seeds = []
    cur = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "vector":
            p = rest.split()
            cur = {"api_key": int(p[0]), "api": p[1], "version": int(p[2]),
                   "kind": p[3], "size": int(p[4]), "hex": "", "nodes": [],
                   "line": no}
        elif word == "hex":
            cur["hex"] += rest.replace(" ", "")
        elif word == "node":
            p = rest.split(None, 3)
            cur["nodes"].append((int(p[0], 16), int(p[1]), p[2],
                                 p[3] if len(p) > 3 else ""))
        elif word == "end":
            seeds.append(cur)
            cur = None
        else:
            raise ValueError("seeds.txt line %d: unknown %r" % (no, word))
    if cur is not None:
        raise ValueError("seeds.txt: vector at line %d has no end" % cur["line"])
    return seeds


def parent_path(path, paths):
    """The nearest enclosing path: a.b[0].c -> a.b[0] -> a.b -> a -> root."""
    p = path
    while True:
        if p.endswith("]"):
            p = p[: p.rindex("[")]
        elif "." in p:
            p = p[: p.rindex(".")]
        else:
            return None
        if p in paths:
            return p


def _leaf_value_ok(data, typ, value):
    """Does a leaf's bytes say what its transcribed value says?"""
    v = value.split()[0] if value else ""
    if typ in ("int8", "int16", "int32", "int64", "uint16"):
        want = {"int8": 1, "int16": 2, "uint16": 2, "int32": 4, "int64": 8}[typ]
        return len(data) == want and int.from_bytes(
            data, "big", signed=not typ.startswith("u")) == int(v)
    if typ == "uvarint":
        n, shift = 0, 0
        for i, b in enumerate(data):
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return i == len(data) - 1 and n == int(v)
        return False
    if typ in ("string", "nullable_string", "bytes"):
        if v not in ('""', "empty"):
            return False
        # empty: compact uvarint 1, else int16 0 (string) or int32 0 (bytes)
        wide = b"\x00" * (4 if typ == "bytes" else 2)
        return v == ("empty" if typ == "bytes" else '""') and \
            data in (b"\x01", wide)
    return True


def check_seed(seed):
    """Structural checks of one hand-transcribed seed; returns problems."""
    problems = []
    data = bytes.fromhex(seed["hex"])
    tag = "%s v%d %s" % (seed["api"], seed["version"], seed["kind"])
    if len(data) != seed["size"]:
        problems.append("%s: hex has %d bytes, vector says %d"
                        % (tag, len(data), seed["size"]))
    nodes = seed["nodes"]
    if not nodes:
        return problems + ["%s: no nodes" % tag]
    root = nodes[0]
    if root[0] != 0 or root[1] != len(data):
        problems.append("%s: root node is not [0, %d)" % (tag, len(data)))
    by_path = {}
    for n in nodes:
        if n[2] in by_path:
            problems.append("%s: duplicate node %s" % (tag, n[2]))
        by_path[n[2]] = n
    children = {}
    for n in nodes[1:]:
        par = parent_path(n[2], by_path) or root[2]
        children.setdefault(par, []).append(n)
        p = by_path[par]
        if not (p[0] <= n[0] and n[0] + n[1] <= p[0] + p[1]):
            problems.append("%s: %s [0x%04x,+%d] outside %s" %
                            (tag, n[2], n[0], n[1], par))
    for par, kids in children.items():
        p = by_path[par]
        pos = p[0]
        for k in kids:
            if k[0] != pos:
                problems.append("%s: %s starts at 0x%04x, expected 0x%04x"
                                % (tag, k[2], k[0], pos))
            pos = k[0] + k[1]
        if pos != p[0] + p[1]:
            problems.append("%s: children of %s end at 0x%04x, parent at "
                            "0x%04x" % (tag, par, pos, p[0] + p[1]))
    for n in nodes:
        if n[2] in children:
            continue
        parts = n[3].split(None, 1)
        typ = parts[0] if parts else ""
        val = parts[1] if len(parts) > 1 else ""
        if not _leaf_value_ok(data[n[0]:n[0] + n[1]], typ, val):
            problems.append("%s: leaf %s %r does not match bytes %s"
                            % (tag, n[2], n[3], data[n[0]:n[0] + n[1]].hex()))
    size = by_path.get("Frame.size")
    if size is None or int(size[3].split()[1]) != len(data) - 4:
        problems.append("%s: Frame.size is not total-4" % tag)
    return problems


def verify_seeds(schemas, seeds_path):
    """seeds.txt hex == encoder output, and its trees are consistent."""
    with open(seeds_path, encoding="utf-8") as fh:
        seeds = parse_seeds(fh.read())
    enc = Encoder(schemas, empty_record_batch())
    problems = []
    for s in seeds:
        problems += check_seed(s)
        m = schemas.messages.get((s["api_key"], s["kind"]))
        tag = "%s v%d %s" % (s["api"], s["version"], s["kind"])
        if m is None or s["version"] not in m.valid:
            problems.append("%s: not in the definition set" % tag)
            continue
        data, nodes = enc.frame(m, s["version"], trace=True)
        if data.hex() != s["hex"]:
            problems.append("%s: encoder gives %s, seeds.txt has %s"
                            % (tag, data.hex(), s["hex"]))
        # The encoder's own tree must place every transcribed node the same.
        enc_nodes = {n[2]: (n[0], n[1]) for n in nodes}
        enc_nodes[m.name] = enc_nodes.pop(m.name, (0, len(data)))
        for off, size, path, _ in s["nodes"][1:]:
            got = enc_nodes.get(_encoder_path(path))
            if got is None:
                problems.append("%s: node %s has no counterpart in the "
                                "encoder's tree" % (tag, path))
            elif got != (off, size):
                problems.append("%s: node %s at [0x%04x,+%d], encoder has "
                                "[0x%04x,+%d]" % (tag, path, off, size,
                                                  got[0], got[1]))
    return seeds, problems


_HEADER_NAMES = {
    "request_api_key": "RequestApiKey",
    "request_api_version": "RequestApiVersion",
    "correlation_id": "CorrelationId",
    "client_id": "ClientId",
}


def _encoder_path(path):
    head, _, rest = path.partition(".")
    if head in ("RequestHeader", "ResponseHeader") and rest:
        return head + "." + _HEADER_NAMES.get(rest, rest)
    return path


# ---------------------------------------------------------------------------
# Command line.

#: Frames (API key x version x direction) of Kafka 4.4.0's definitions.
EXPECTED_FRAMES = 618


def build_outputs(args, stats=None, out_dir=None):
    if args.schemas:
        current = SchemaSet(args.schemas)
        old = None
        if args.removed_from:
            old = [SchemaSet(args.removed_from)]
            if args.removed_source_label:
                old[0].label = args.removed_source_label
    else:
        releases = release_sets()
        current, old = releases[0], releases[1:]
    if args.source_label:
        current.label = args.source_label
    seeds = None
    seeds_path = os.path.join(out_dir, "seeds.txt") if out_dir else None
    if seeds_path and os.path.exists(seeds_path):
        with open(seeds_path, encoding="utf-8") as fh:
            seeds = parse_seeds(fh.read())
    sets = build_vectors(current, old, seeds, stats)
    outputs = {}
    lines = [r["_line"] for r in sets["minimal"]]
    text, n = minimal_text(current, lines)
    if n != EXPECTED_FRAMES and not args.allow_count:
        raise SchemaError("expected %d frames from %s, got %d (pass "
                          "--allow-count for another snapshot)"
                          % (EXPECTED_FRAMES, current.label, n))
    outputs["minimal.txt"] = text
    if old is not None:
        outputs["minimal-removed.txt"], _ = removed_text(
            current, old, [r["_line"] for r in sets["minimal-removed"]])
    for name in JSONL_SETS:
        if name == "minimal-removed" and old is None:
            continue
        if name == "seeds" and seeds is None:
            continue
        outputs[name + ".jsonl"] = jsonl_text(sets[name])
    return current, outputs


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Independent reference encoder and decoder for kwire "
                    "conformance vectors (minimal, rich, negative and "
                    "records frames, text and JSON Lines).")
    ap.add_argument("--schemas",
                    help="Kafka message-definition directory (current set); "
                         "default: the kafka-clients release jars pinned in "
                         "tools/kafka-releases.txt, the first current, the "
                         "others giving the versions it removed")
    ap.add_argument("--removed-from", metavar="OLD_DIR",
                    help="older definition set; its versions that the current "
                         "set lacks go to minimal-removed.txt")
    ap.add_argument("--out", default=None,
                    help="vector directory (default: conformance/vectors "
                         "under the project root)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate in memory; exit 1 if the files differ "
                         "or seeds.txt does not verify")
    ap.add_argument("--source-label",
                    help="snapshot named in the headers (default: read from "
                         "SOURCE.txt in the --schemas directory)")
    ap.add_argument("--removed-source-label",
                    help="same for the --removed-from directory")
    ap.add_argument("--allow-count", action="store_true",
                    help="accept a frame count other than EXPECTED_FRAMES")
    ap.add_argument("--stats", action="store_true",
                    help="print schema observations (zero-size structs, "
                         "nullable structs, records fields) to stderr")
    ap.add_argument("--explain", nargs=3,
                    metavar=("API_KEY", "VERSION", "DIRECTION"),
                    help="print the node tree of one frame and exit")
    args = ap.parse_args(argv)
    out_dir = args.out or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "conformance", "vectors")

    if args.explain:
        schemas = SchemaSet(args.schemas) if args.schemas else release_sets()[0]
        key, ver, kind = int(args.explain[0]), int(args.explain[1]), \
            args.explain[2]
        m = schemas.messages[(key, kind)]
        data, nodes = Encoder(schemas, empty_record_batch()).frame(
            m, ver, trace=True)
        print("vector %d %s %d %s %d" % (key, m.api_name, ver, kind,
                                         len(data)))
        print("hex " + data.hex())
        for off, size, path, typ, value, _ in nodes:
            print("node 0x%04x %d %s %s%s" % (
                off, size, path, typ, "" if value is None else " " + value))
        print("end")
        return 0

    stats = {} if args.stats else None
    current, outputs = build_outputs(args, stats, out_dir)

    if stats is not None:
        for what in sorted(stats):
            print("%s (%d):" % (what, len(stats[what])), file=sys.stderr)
            for d in sorted(stats[what]):
                print("  " + d, file=sys.stderr)

    if args.check:
        ok = True
        for name, text in outputs.items():
            path = os.path.join(out_dir, name)
            try:
                with open(path, encoding="utf-8") as fh:
                    have = fh.read()
            except OSError as exc:
                print("check: %s: %s" % (path, exc), file=sys.stderr)
                ok = False
                continue
            if name in ("rich.jsonl", "negative.jsonl",
                        "records.jsonl") and args.schemas and not args.removed_from:
                # Without the older set only the current set's lines can
                # be regenerated: compare those.
                kept = [l for l in have.splitlines(True)
                        if json.loads(l).get("source") == current.label]
                print("check: %s: %d lines of removed versions not checked "
                      "(no --removed-from)" % (name, len(
                          have.splitlines()) - len(kept)))
                have = "".join(kept)
            if have != text:
                ok = False
                print("check: %s differs from the regenerated text:" % path,
                      file=sys.stderr)
                diff = difflib.unified_diff(
                    have.splitlines(), text.splitlines(), "committed",
                    "regenerated", lineterm="", n=0)
                for i, line in enumerate(diff):
                    if i >= 40:
                        print("  ...", file=sys.stderr)
                        break
                    print("  " + line[:200], file=sys.stderr)
            else:
                print("check: %s OK" % path)
        if "minimal-removed.txt" not in outputs and args.schemas:
            print("check: minimal-removed.txt not checked (no --removed-from)")
        seeds_path = os.path.join(out_dir, "seeds.txt")
        if os.path.exists(seeds_path):
            seeds, problems = verify_seeds(current, seeds_path)
            for p in problems:
                print("check: seeds.txt: " + p, file=sys.stderr)
            if problems:
                ok = False
            else:
                print("check: %s OK (%d seeds)" % (seeds_path, len(seeds)))
        return 0 if ok else 1

    os.makedirs(out_dir, exist_ok=True)
    for name, text in outputs.items():
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        n = sum(1 for l in text.splitlines() if l and not l.startswith("#"))
        print("wrote %s (%d frames)" % (path, n))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SchemaError as exc:
        print("conformance_ref: %s" % exc, file=sys.stderr)
        sys.exit(2)
