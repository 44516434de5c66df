#!/usr/bin/env python3
"""Generates kwire's C++ message types from the definition files (codec/defs/*.kdef).

    python3 tools/generate.py --defs codec/defs --out <dir>

Writes into <dir>/codec/generated/:
  <snake_name>.h      one per message: plain structs (typed members with schema
                      defaults), a FieldSpec table and a VisitFields() that lists the
                      fields once; no wire logic (that lives in codec/schema/*.h);
  api_<key>.cc        one per API key: the MessageOps of its request and response
                      (where the shared visitors are instantiated);
  messages.h          includes every message header;
  registry_table.cc   the API table (api key -> name, ops, versions).
Files are only rewritten when their content changes (keeps incremental builds fast).

Python 3 standard library only. Generated code is thin by design: see
codec/schema/spec.h for the contract.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdef  # noqa: E402

MAX_VERSION = 32767

CPP_SCALARS = {
    "int8": ("int8_t", "kInt8"),
    "int16": ("int16_t", "kInt16"),
    "uint16": ("uint16_t", "kUint16"),
    "int32": ("int32_t", "kInt32"),
    "int64": ("int64_t", "kInt64"),
    "float64": ("double", "kFloat64"),
    "bool": ("bool", "kBool"),
    "uuid": ("Uuid", "kUuid"),
    "string": ("std::string", "kString"),
    "bytes": ("std::string", "kBytes"),
    "records": ("Records", "kRecords"),
}

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
    "class", "const", "constexpr", "continue", "default", "delete", "do", "double",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
    "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
    "not", "nullptr", "operator", "or", "private", "protected", "public", "register",
    "return", "short", "signed", "sizeof", "static", "struct", "switch", "template",
    "this", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
    "using", "virtual", "void", "volatile", "while", "xor",
}

# Fields whose values are secrets: printers redact them unless asked (kwire's own list,
# after Redpanda's sensitive_map). Keyed by (message name, field path).
SENSITIVE = {
    ("SaslAuthenticateRequest", "AuthBytes"),
    ("SaslAuthenticateResponse", "AuthBytes"),
    ("CreateDelegationTokenResponse", "Hmac"),
    ("DescribeDelegationTokenResponse", "Tokens.Hmac"),
    ("RenewDelegationTokenRequest", "Hmac"),
    ("ExpireDelegationTokenRequest", "Hmac"),
    ("AlterUserScramCredentialsRequest", "Upsertions.Salt"),
    ("AlterUserScramCredentialsRequest", "Upsertions.SaltedPassword"),
}

# The records policy of every `records` field (codec/schema/spec.h RecordsPolicy), keyed
# by (message name, field path): how the bytes are laid out and what they may hold, by
# version. Facts from Apache Kafka's Java code and KIPs (codec/records/README.md has the
# table): a records field missing here is a generator error, so a new one upstream gets
# a decision, not a default.
#   layout: whole (complete batches only), partial_tail (a batch cut short may end the
#     field), unaligned (a raw byte range, never parsed as batches).
#   one_v2_batch_from: from this version, exactly one batch and it is magic 2.
#   zstd_from: versions below it may not carry zstd batches.
RECORDS_POLICY = {
    # ProduceRequest.validateRecords (Java): v3+ "exactly one record batch per
    # partition", "only allowed to contain record batches with magic version 2", zstd
    # only from v7 (KIP-110, UNSUPPORTED_COMPRESSION_TYPE); a truncated batch is
    # corrupt (the broker's batch iterator finds no complete batch).
    ("ProduceRequest", "TopicData.PartitionData.Records"): dict(
        layout="kWholeBatches", one_v2_batch_from=3, zstd_from=7,
        source="ProduceRequest.validateRecords (Java), KIP-98, KIP-110"),
    # The broker reads a partition's log up to the fetch's max bytes, which may cut the
    # last batch; the consumer's batch iterator (ByteBufferLogInputStream) stops at a
    # partial batch. Old message formats (magic 0/1) may appear at any version.
    ("FetchResponse", "Responses.Partitions.Records"): dict(
        layout="kPartialTail",
        source="FetchResponse, ByteBufferLogInputStream (Java): partial last batch"),
    # KIP-932: share fetches read the log the same way as fetches.
    ("ShareFetchResponse", "Responses.Partitions.Records"): dict(
        layout="kPartialTail",
        source="KIP-932 (share fetch reads the log like fetch): partial last batch"),
    # KIP-630: a chunk of a snapshot file at Position, of at most the requested bytes;
    # it need not start or end at a batch boundary.
    ("FetchSnapshotResponse", "Topics.Partitions.UnalignedRecords"): dict(
        layout="kUnaligned", source="KIP-630 (FetchSnapshot): raw snapshot bytes"),
}


def snake(name):
    """Kafka CamelCase field name -> snake_case member name."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    s = s.lower()
    return s + "_" if s in CPP_KEYWORDS else s


def file_stem(name):
    return snake(name).rstrip("_")


def vr(r):
    """kdef.VersionRange -> C++ VersionRange initializer."""
    if r is None or (r.lo == 0 and r.hi is None):
        return "kAllVersions"
    if r.empty:
        return "kNoVersions"
    return "{%d, %d}" % (r.lo, MAX_VERSION if r.hi is None else r.hi)


def cstr(s):
    return json.dumps(s)


def _is_zero(kafka_type, default):
    """True when `default` (as written in a definition) is the zero of `kafka_type`."""
    try:
        if kafka_type in ("int8", "int16", "uint16", "int32", "int64"):
            return int(default, 0) == 0
        if kafka_type == "float64":
            return float(default) == 0.0
    except ValueError:
        return False
    return default == "false" and kafka_type == "bool"


class MessageGen:
    """Generates the C++ of one message."""

    def __init__(self, msg):
        self.msg = msg
        self.structs = {}  # struct name -> list of fields
        self.order = []  # struct names, dependencies first
        self._collect(msg.fields)
        self._order_structs()

    def _collect(self, fields):
        for f in fields:
            if not f.is_struct:
                continue
            name = f.element_type
            common = self.msg.struct(name)
            sub = common.fields if common is not None else f.fields
            if name in self.structs:
                # A struct type reused by name: the first declaration with fields wins;
                # a second declaration must agree.
                if sub and self.structs[name] and [x.name for x in sub] != [
                        x.name for x in self.structs[name]]:
                    raise SystemExit("%s: struct %s declared twice with different fields"
                                     % (self.msg.name, name))
                if sub and not self.structs[name]:
                    self.structs[name] = sub
            else:
                self.structs[name] = sub
            self._collect(sub)
        if self.msg.name in self.structs:
            raise SystemExit("%s: a struct has the message's own name" % self.msg.name)

    def _order_structs(self):
        seen = set()

        def visit(name):
            if name in seen:
                return
            seen.add(name)
            for f in self.structs[name]:
                if f.is_struct:
                    visit(f.element_type)
            self.order.append(name)

        for f in self.msg.fields:
            if f.is_struct:
                visit(f.element_type)

    # ---- per field
    def value_type(self, f):
        """C++ type of the value (without nullability / tagging)."""
        et = f.element_type
        if f.is_array:
            inner = CPP_SCALARS[et][0] if et in CPP_SCALARS else et
            return "std::vector<%s>" % inner
        return CPP_SCALARS[et][0] if et in CPP_SCALARS else et

    def member_type(self, f):
        t = self.value_type(f)
        if not f.nullable.empty:
            t = "std::optional<%s>" % t
        if f.tag is not None:
            t = "Tagged<%s>" % t
        return t

    def initializer(self, f):
        """Default member initializer text ("{}" for value-initialized).

        Mirrors Kafka's generated Java defaults: a nullable field whose default is
        "null" (and every nullable records field) starts null, other nullable fields
        start as the empty/zero value; tagged fields start absent.
        """
        if f.tag is not None:
            return "{}"
        d = f.default
        et = f.element_type
        if not f.nullable.empty:
            if d == "null" or et == "records":
                return "{}"
            if et == "string" and d:
                return "{std::in_place, %s}" % cstr(d)
            return "{std::in_place}"
        if f.is_array or f.is_struct or d is None or d == "":
            return "{}"
        if et in ("int8", "int16", "uint16", "int32", "int64"):
            v = int(d, 0)
            suffix = "LL" if et == "int64" or v < -2147483647 else ""
            return " = %d%s" % (v, suffix)
        if et == "float64":
            return " = %s" % repr(float(d))
        if et == "bool" and d in ("true", "false"):
            return " = %s" % d
        if et == "string":
            return " = %s" % cstr(d)
        raise SystemExit("%s.%s: unsupported default %r for %s" % (self.msg.name, f.name, d, et))

    def field_spec(self, f, path):
        """The FieldSpec row of `f`: designated initialisers, defaulted members left out
        (the defaults are FieldSpec's, codec/schema/spec.h)."""
        et = f.element_type
        kind = CPP_SCALARS[et][1] if et in CPP_SCALARS else "kStruct"
        top = "kArray" if f.is_array else kind
        parts = [".name = %s" % cstr(f.name), ".type_name = %s" % cstr(f.type),
                 ".type = FieldType::%s" % top]
        if top != kind:
            parts.append(".element = FieldType::%s" % kind)
        for member, r, default in (("versions", f.versions, "kAllVersions"),
                                   ("nullable", f.nullable, "kNoVersions"),
                                   ("tagged", f.tagged, "kNoVersions")):
            if vr(r) != default:
                parts.append(".%s = %s" % (member, vr(r)))
        if f.tag is not None:
            parts.append(".tag = %d" % f.tag)
        if vr(f.flexible) != "kAllVersions":
            parts.append(".flexible = %s" % vr(f.flexible))
        if f.ignorable:
            parts.append(".ignorable = true")
        if (self.msg.name, path) in SENSITIVE:
            parts.append(".sensitive = true")
        if et == "records":
            p = RECORDS_POLICY.get((self.msg.name, path))
            if p is None:
                raise SystemExit("%s.%s: records field without a RECORDS_POLICY entry "
                                 "(tools/generate.py)" % (self.msg.name, path))
            policy = [".layout = RecordsLayout::%s" % p["layout"]]
            if "one_v2_batch_from" in p:
                policy.append(".one_v2_batch_from = %d" % p["one_v2_batch_from"])
            if p.get("zstd_from", 0):
                policy.append(".zstd_from = %d" % p["zstd_from"])
            policy.append(".source = %s" % cstr(p["source"]))
            parts.append(".records = {%s}" % ", ".join(policy))
        return "{" + ", ".join(parts) + "}"

    def field_doc(self, f, path):
        """The doc comment of `f`'s member: Kafka name, type, versions, nullability, tag,
        and the default where it is not the type's zero (never Kafka's "about" text)."""
        facts = ["%s: %s" % (f.name, f.type), "v%s" % f.versions]
        if not f.nullable.empty:
            facts.append("nullable v%s" % f.nullable)
        if f.tag is not None:
            facts.append("tag %d, tagged v%s" % (f.tag, f.tagged))
        if f.flexible is not None and vr(f.flexible) != "kAllVersions":
            facts.append("compact v%s" % f.flexible if not f.flexible.empty
                         else "never compact")
        d = f.default
        if d not in (None, "") and not f.is_array and not f.is_struct:
            if d == "null":
                facts.append("default null")
            elif not _is_zero(f.element_type, d):
                facts.append("default %s" % (cstr(d) if f.element_type == "string" else d))
        if f.ignorable:
            facts.append("ignorable")
        if (self.msg.name, path) in SENSITIVE:
            facts.append("sensitive")
        return "/// %s." % ", ".join(facts)

    def struct_body(self, name, fields, indent, path_prefix, is_message=False):
        ind = " " * indent
        out = []
        out.append('%sstatic constexpr const char* kStructName = %s;' % (ind, cstr(name)))
        has_tagged = any(f.tag is not None for f in fields)
        out.append("%sstatic constexpr bool kHasTaggedFields = %s;" % (
            ind, "true" if has_tagged else "false"))
        if fields:
            out.append("%sstatic constexpr FieldSpec kFields[] = {" % ind)
            for f in fields:
                out.append("%s    %s," % (ind, self.field_spec(f, path_prefix + f.name)))
            out.append("%s};" % ind)
        else:
            out.append("%sstatic constexpr std::array<FieldSpec, 0> kFields{};" % ind)
        out.append("")
        for f in fields:
            out.append("%s%s" % (ind, self.field_doc(f, path_prefix + f.name)))
            out.append("%s%s %s%s;" % (ind, self.member_type(f), snake(f.name), self.initializer(f)))
        out.append("%s/// Tagged fields this version did not know, kept for re-encoding (KIP-482)."
                   % ind)
        out.append("%sUnknownTaggedFields unknown_tagged_fields;" % ind)
        out.append("")
        out.append("%s/// Calls v(kFields[i], s.member...) for every field, in wire order." % ind)
        out.append("%stemplate <class V, class... S>" % ind)
        out.append("%sstatic void VisitFields(V&& v, S&... s) {" % ind)
        for i, f in enumerate(fields):
            out.append("%s  v(kFields[%d], s.%s...);" % (ind, i, snake(f.name)))
        if not fields:
            out.append("%s  ((void)v, ..., (void)s);" % ind)
        out.append("%s}" % ind)
        return out

    def header(self):
        m = self.msg
        guard = "KWIRE_CODEC_GENERATED_%s_H_" % file_stem(m.name).upper()
        out = [
            "// Generated by tools/generate.py from codec/defs/%s.kdef. Do not edit." % m.name,
            "#ifndef %s" % guard,
            "#define %s" % guard,
            "",
            "#include <array>",
            "#include <cstdint>",
            "#include <optional>",
            "#include <string>",
            "#include <vector>",
            "",
            '#include "codec/schema/spec.h"',
            "",
            "namespace kwire {",
            "",
        ]
        removed = m.removed_versions() if m.current is not None else []
        doc = "/// %s" % m.name
        if m.api_key is not None:
            doc += " (API key %d, %s)" % (m.api_key, m.type)
        else:
            doc += " (%s)" % m.type
        doc += ": versions %s" % m.valid
        if removed:
            last = [r.last for r in m.releases if r.versions.contains(removed[-1])]
            doc += " (%s removed%s)" % (
                "%d-%d" % (removed[0], removed[-1]) if len(removed) > 1 else removed[0],
                "; last in Kafka %s" % last[0] if last else "")
        doc += ", flexible %s." % m.flexible
        # The file's opening comment says what the message is, as its struct's does.
        out.insert(1, "// %s" % doc[len("/// "):])
        # Nested structs are defined at namespace scope (in <file_stem>_types) and
        # aliased inside the message, so that each is a complete class before any
        # std::optional / Tagged of it is instantiated. Defined inside the message,
        # clang treats their default member initializers as unparsed until the
        # enclosing class is complete and caches is_default_constructible<S> as false
        # (std::optional<S>::emplace() then fails to compile; LLVM issue 36032).
        ns = "%s_types" % file_stem(m.name)
        if self.order:
            out.append("namespace %s {" % ns)
            out.append("")
            for name in self.order:
                out.append("/// %s.%s: nested struct." % (m.name, name))
                out.append("struct %s {" % name)
                out += self.struct_body(name, self.structs[name], 2, self._path_of(name))
                out.append("  friend bool operator==(const %s&, const %s&) = default;" % (name, name))
                out.append("};")
                out.append("")
            out.append("}  // namespace %s" % ns)
            out.append("")
        out.append(doc)
        out.append("struct %s {" % m.name)
        for name in self.order:
            out.append("  using %s = %s::%s;" % (name, ns, name))
        if self.order:
            out.append("")
        kind = {"request": "kRequest", "response": "kResponse", "header": "kHeader",
                "data": "kData"}[m.type]
        current = m.current if m.current is not None else m.valid
        has_sensitive = any(name == m.name for name, _ in SENSITIVE)
        spec = [".name = %s" % cstr(m.name)]
        if m.api_key is not None:
            spec.append(".api_key = %d" % m.api_key)
        spec += [".kind = MessageKind::%s" % kind, ".valid = %s" % vr(m.valid)]
        if vr(current) != vr(m.valid):
            spec.append(".current = %s" % vr(current))
        if vr(m.flexible) != "kNoVersions":
            spec.append(".flexible = %s" % vr(m.flexible))
        if m.unstable_latest:
            spec.append(".latest_unstable = true")
        if has_sensitive:
            spec.append(".has_sensitive = true")
        out.append("  static constexpr MessageSpec kMessage = {%s};" % ", ".join(spec))
        out += self.struct_body(m.name, m.fields, 2, "", is_message=True)
        out.append("  friend bool operator==(const %s&, const %s&) = default;" % (m.name, m.name))
        out.append("};")
        out.append("")
        out.append("}  // namespace kwire")
        out.append("")
        out.append("#endif  // %s" % guard)
        return "\n".join(out) + "\n"

    def _path_of(self, struct_name):
        """Dotted field path of the first field using `struct_name` (for SENSITIVE)."""
        for path, f in self.msg.walk():
            if f.is_struct and f.element_type == struct_name:
                return ".".join(path) + "."
        return ""


def write_if_changed(path, text):
    try:
        with open(path) as fh:
            if fh.read() == text:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--defs", required=True, help="directory of .kdef files")
    ap.add_argument("--out", required=True, help="output root (codec/generated/ is created)")
    ap.add_argument("--list", action="store_true", help="print the files that would be written")
    args = ap.parse_args()

    msgs = kdef.load_dir(args.defs)
    gen_dir = os.path.join(args.out, "codec", "generated")
    apis = {}
    for m in msgs.values():
        if m.type in ("request", "response"):
            apis.setdefault(m.api_key, {})[m.type] = m
    files = {}
    for m in sorted(msgs.values(), key=lambda m: m.name):
        files["%s.h" % file_stem(m.name)] = MessageGen(m).header()
    files["messages.h"] = messages_h(msgs)
    for key, pair in sorted(apis.items()):
        files["api_%d.cc" % key] = api_cc(key, pair)
    files["registry_table.cc"] = registry_cc(apis, msgs)
    if args.list:
        for name in sorted(files):
            print(os.path.join(gen_dir, name))
        return
    changed = sum(write_if_changed(os.path.join(gen_dir, n), t) for n, t in files.items())
    # A message no longer in codec/defs leaves no header behind (an install or a
    # glob over this directory would still see it).
    stale = [n for n in os.listdir(gen_dir)
             if n.endswith((".h", ".cc")) and n not in files]
    for n in stale:
        os.remove(os.path.join(gen_dir, n))
    print("generate.py: %d messages, %d API keys, %d files (%d changed, %d stale removed)" % (
        len(msgs), len(apis), len(files), changed, len(stale)))


def messages_h(msgs):
    out = ["// Generated by tools/generate.py. Do not edit. Every kwire message type.",
           "#ifndef KWIRE_CODEC_GENERATED_MESSAGES_H_", "#define KWIRE_CODEC_GENERATED_MESSAGES_H_", ""]
    for m in sorted(msgs.values(), key=lambda m: m.name):
        out.append('#include "codec/generated/%s.h"' % file_stem(m.name))
    out += ["", "#endif  // KWIRE_CODEC_GENERATED_MESSAGES_H_", ""]
    return "\n".join(out)


def api_name(pair):
    m = pair.get("request") or pair.get("response")
    return re.sub(r"(Request|Response)$", "", m.name)


def api_cc(key, pair):
    out = ["// Generated by tools/generate.py. Do not edit.",
           "// Instantiates the shared visitors for API key %d (%s)." % (key, api_name(pair)),
           '#include "codec/schema/message.h"']
    for t in ("request", "response"):
        if t in pair:
            out.append('#include "codec/generated/%s.h"' % file_stem(pair[t].name))
    out += ["", "namespace kwire {", "namespace generated {", ""]
    for t in ("request", "response"):
        if t in pair:
            n = pair[t].name
            out.append("extern const MessageOps k%sOps;" % n)
            out.append("const MessageOps k%sOps = MakeMessageOps<%s>();" % (n, n))
    out += ["", "}  // namespace generated", "}  // namespace kwire", ""]
    return "\n".join(out)


def registry_cc(apis, msgs):
    out = ["// Generated by tools/generate.py. Do not edit. The API table (registry.h).",
           '#include "codec/protocol/registry.h"', "", "namespace kwire {",
           "namespace generated {"]
    for key, pair in sorted(apis.items()):
        for t in ("request", "response"):
            if t in pair:
                out.append("extern const MessageOps k%sOps;" % pair[t].name)
    out += ["}  // namespace generated", "", "namespace registry_internal {", "",
            "extern const ApiInfo kApiTable[];", "extern const size_t kApiTableSize;", ""]
    for key, pair in sorted(apis.items()):
        req = pair.get("request")
        if req is None:
            continue
        out.append("const VersionReleases kReleases%d[] = {" % key)
        for r in req.releases:
            out.append("    {%s, %s, %s, %s, %s}," % (
                vr(r.versions), cstr(r.first) if r.first else "nullptr",
                cstr(r.seen) if r.seen else "nullptr", cstr(r.last),
                "true" if r.or_earlier else "false"))
        out.append("};")
    out.append("const ApiInfo kApiTable[] = {")
    for key, pair in sorted(apis.items()):
        req, resp = pair.get("request"), pair.get("response")
        if req is None or resp is None:
            raise SystemExit("API key %d lacks a request or a response" % key)
        if req.releases != resp.releases or req.formerly and [
                re.sub(r"Request$", "", n) for n in req.formerly] != [
                re.sub(r"Response$", "", n) for n in resp.formerly]:
            raise SystemExit("API key %d: request and response disagree on releases or "
                             "former names" % key)
        covered = sum(len(r.versions.versions()) for r in req.releases)
        if covered != len(req.valid.versions()):
            raise SystemExit("API key %d: release lines cover %d of %d versions"
                             % (key, covered, len(req.valid.versions())))
        former = " ".join(re.sub(r"Request$", "", n) for n in req.formerly)
        out.append("    {%d, %s, &generated::k%sOps, &generated::k%sOps, %s, kReleases%d}," % (
            key, cstr(api_name(pair)), req.name, resp.name, cstr(former), key))
    out += ["};", "const size_t kApiTableSize = sizeof(kApiTable) / sizeof(kApiTable[0]);",
            "", "}  // namespace registry_internal", "}  // namespace kwire", ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()
