#!/usr/bin/env python3
"""Import Apache Kafka's JSON message definitions into kwire's kdef format.

Usage::

    python3 tools/kafka_import.py --schemas DIR [--removed-from OLD_DIR] \\
        --out codec/defs [--check]

Reads every ``*.json`` of DIR (Kafka's message-definition format: JSON with
``//`` comments), keeps only the facts (names, types, versions, tags,
defaults, flags; never the "about" texts or comments) and writes one
``<MessageName>.kdef`` per message.

With ``--removed-from OLD_DIR`` (a snapshot from before KIP-896 removed the
oldest versions in Kafka 4.0) the versions that OLD_DIR still had below the
new set's lowest version are restored: version v takes its layout from DIR if
v is valid there, else from OLD_DIR.  Field lists are merged by name in
declaration order; every range of the merged definition is the union of the
per-version facts.  A self-check then compares, for every message and every
version, the flattened wire layout of the merged definition against the
source snapshot responsible for that version.

``--check`` writes nothing and exits 1 if any output file would change.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import sys
from typing import Callable, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kdef  # noqa: E402
from kdef import Field, Message, NONE, Struct, VersionRange  # noqa: E402

DEFAULT_UPSTREAM = "apache/kafka trunk 2024-12-27 (4.1 development line)"
DEFAULT_REMOVED_UPSTREAM = "trunk 2024-10-25 (pre-4.0, KIP-896)"


class ImportError_(Exception):
    """A schema problem the importer refuses to paper over."""


def fail(msg: str) -> None:
    raise ImportError_(msg)


# ---------------------------------------------------------------------------
# Reading Kafka's JSON
# ---------------------------------------------------------------------------

def strip_comments(text: str) -> str:
    """Remove ``//`` line comments and ``/* */`` block comments outside JSON
    strings.  String contents (including ``//`` and escaped quotes) are kept
    verbatim; newlines are kept so JSON error positions stay meaningful."""
    out: List[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
            continue
        if c == '"':
            in_str = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j          # keep the newline itself
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated /* comment")
            out.append("".join(ch for ch in text[i:j + 2] if ch == "\n") or " ")
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


DUPLICATE_KEYS: List[str] = []
NOTES: List[str] = []      # oddities seen while reading, printed by build()


def _no_dup_keys(pairs):
    """Jackson keeps the last of duplicate keys; we accept a repeated key only
    when both values agree (and record it), and refuse conflicting ones."""
    d = {}
    for k, v in pairs:
        if k in d:
            if d[k] != v:
                raise ValueError("duplicate key %r with different values %r, %r"
                                 % (k, d[k], v))
            DUPLICATE_KEYS.append("%s (in object named %r)" % (k, d.get("name")))
        d[k] = v
    return d


def load_json(path: str) -> dict:
    """Read one Kafka definition file (comments stripped, duplicate keys
    rejected)."""
    with open(path, "r", encoding="utf-8") as fh:
        text = fh.read()
    where = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(path))),
                         os.path.basename(path))
    return load_json_text(path, where, text)


def load_json_text(path: str, where: str, text: str) -> dict:
    """Parse the text of one definition file; ``path`` names it in errors,
    ``where`` in notes."""
    del DUPLICATE_KEYS[:]
    body = strip_comments(text)
    try:
        start = len(body) - len(body.lstrip())
        raw, end = json.JSONDecoder(object_pairs_hook=_no_dup_keys).raw_decode(body, start)
    except ValueError as e:
        fail("%s: %s" % (path, e))
    if body[end:].strip():
        # Kafka 2.8.2's DescribeProducersRequest.json closes its object early
        # and has "]}" left over; Kafka's generator (Jackson's readValue) reads
        # the first value and ignores the rest.  So do we, noted.
        NOTES.append("%s: text after the definition ignored (as Jackson does): %r"
                     % (where, body[end:].strip()[:20]))
    for d in DUPLICATE_KEYS:
        NOTES.append("%s: repeated key %s with the same value" % (where, d))
    return raw


MESSAGE_KEYS = {"apiKey", "type", "name", "validVersions", "flexibleVersions",
                "latestVersionUnstable", "listeners", "fields", "commonStructs",
                "deprecatedVersions"}
FIELD_KEYS = {"name", "type", "versions", "nullableVersions", "default",
              "taggedVersions", "tag", "ignorable", "entityType", "mapKey",
              "zeroCopy", "flexibleVersions", "fields", "about"}
STRUCT_KEYS = {"name", "versions", "fields", "about"}


def _range(where: str, value, required: bool = False) -> Optional[VersionRange]:
    if value is None:
        if required:
            fail("%s: missing version range" % where)
        return None
    if not isinstance(value, str):
        fail("%s: version range must be a string, got %r" % (where, value))
    try:
        return kdef.parse_range(value)
    except kdef.KdefError as e:
        fail("%s: %s" % (where, e))


def _bool(where: str, value) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):      # Jackson coerces these strings too
        return value == "true"
    fail("%s: expected a boolean, got %r" % (where, value))


def normalize_default(where: str, value) -> Optional[str]:
    """A ``default`` as Kafka's generator reads it (Jackson text coercion):
    strings as-is, booleans ``true``/``false``, numbers in decimal.  JSON null
    means no default."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    fail("%s: unsupported default %r" % (where, value))


def _tag(where: str, value) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool):
        fail("%s: bad tag %r" % (where, value))
    if isinstance(value, str):
        if not value.strip().isdigit():
            fail("%s: bad tag %r" % (where, value))
        return int(value.strip())
    if isinstance(value, int) and value >= 0:
        return value
    fail("%s: bad tag %r" % (where, value))


def convert_field(where: str, raw: dict) -> Field:
    """Convert one JSON field (recursively) into a :class:`kdef.Field`."""
    if not isinstance(raw, dict):
        fail("%s: field is not an object" % where)
    name = raw.get("name")
    if not isinstance(name, str):
        fail("%s: field without a name" % where)
    where = "%s.%s" % (where, name)
    extra = set(raw) - FIELD_KEYS
    if extra:
        fail("%s: unknown keys %s" % (where, sorted(extra)))
    typ = raw.get("type")
    if not isinstance(typ, str) or not kdef._TYPE_RE.match(typ):
        fail("%s: bad type %r" % (where, typ))
    versions = raw.get("versions")
    if versions is None and isinstance(raw.get("taggedVersions"), str):
        # Kafka 3.5's FetchRequest.ReplicaState: a tagged field without
        # versions; it exists in its tagged versions.
        NOTES.append("%s.%s: no versions; its taggedVersions" % (where, name))
        versions = raw["taggedVersions"]
    f = Field(name, typ, _range(where + " versions", versions, True))
    f.nullable = _range(where + " nullableVersions", raw.get("nullableVersions")) or NONE
    f.tagged = _range(where + " taggedVersions", raw.get("taggedVersions")) or NONE
    f.tag = _tag(where, raw.get("tag"))
    if (f.tag is None) != f.tagged.empty:
        fail("%s: tag and taggedVersions must be given together" % where)
    if not f.tagged.empty and not f.tagged.open_ended:
        fail("%s: taggedVersions must be open ended" % where)
    f.flexible = _range(where + " flexibleVersions", raw.get("flexibleVersions"))
    f.default = normalize_default(where, raw.get("default"))
    f.ignorable = _bool(where, raw.get("ignorable"))
    f.map_key = _bool(where, raw.get("mapKey"))
    f.zero_copy = _bool(where, raw.get("zeroCopy"))
    ent = raw.get("entityType")
    if ent is not None:
        if not isinstance(ent, str) or not kdef._NAME_RE.match(ent):
            fail("%s: bad entityType %r" % (where, ent))
        f.entity = ent
    sub = raw.get("fields")
    if sub is not None:
        if not f.is_struct:
            fail("%s: primitive type %s with nested fields" % (where, typ))
        if not isinstance(sub, list):
            fail("%s: fields is not a list" % where)
        f.fields = [convert_field(where, r) for r in sub]
        f._inline = True                         # type: ignore[attr-defined]
    _check_unique(where, f.fields)
    return f


def _check_unique(where: str, fields: List[Field]) -> None:
    seen = set()
    for f in fields:
        if f.name in seen:
            fail("%s: duplicate field name %s" % (where, f.name))
        seen.add(f.name)


def convert_message(path: str, raw: dict) -> Message:
    """Convert one parsed JSON definition into a :class:`kdef.Message`
    (``current`` = valid for requests/responses)."""
    if not isinstance(raw, dict):
        fail("%s: top level is not an object" % path)
    extra = set(raw) - MESSAGE_KEYS
    if extra:
        fail("%s: unknown keys %s" % (path, sorted(extra)))
    name = raw.get("name")
    if not isinstance(name, str) or not kdef._NAME_RE.match(name):
        fail("%s: bad name %r" % (path, name))
    if os.path.basename(path.replace("!", "/")) != name + ".json":
        fail("%s: file name does not match message name %s" % (path, name))
    typ = raw.get("type")
    if typ not in kdef.MESSAGE_TYPES:
        fail("%s: bad type %r" % (path, typ))
    m = Message(name, typ)
    if raw.get("validVersions") == "none":
        # A tombstone (Kafka 4.x keeps the API key of a removed API, e.g.
        # LeaderAndIsr, with validVersions "none" and nothing else).
        if typ not in ("request", "response") or raw.get("fields"):
            fail("%s: validVersions none on a %s with fields" % (name, typ))
        ak = raw.get("apiKey")
        if not isinstance(ak, int) or isinstance(ak, bool) or ak < 0:
            fail("%s: bad apiKey %r" % (name, ak))
        m.api_key, m.valid, m.current, m.flexible = ak, NONE, NONE, NONE
        m._tombstone = True  # importer-private mark
        return m
    m.valid = _range(name + " validVersions", raw.get("validVersions"), True)
    if m.valid.empty or m.valid.open_ended:
        fail("%s: validVersions must be a closed, non-empty range" % name)
    if "flexibleVersions" not in raw:
        # Kafka 2.2-2.8 jars: a message without flexibleVersions has none
        # (Kafka's generator made the key required later).
        NOTES.append("%s: messages without flexibleVersions (none)"
                     % path.split("!")[0])
    m.flexible = _range(name + " flexibleVersions", raw.get("flexibleVersions", "none"), True)
    m.unstable_latest = _bool(name, raw.get("latestVersionUnstable"))
    if typ in ("request", "response"):
        ak = raw.get("apiKey")
        if not isinstance(ak, int) or isinstance(ak, bool) or ak < 0:
            fail("%s: bad apiKey %r" % (name, ak))
        m.api_key = ak
        m.current = m.valid
    elif "apiKey" in raw:
        fail("%s: apiKey on a %s" % (name, typ))
    lis = raw.get("listeners")
    if lis is not None:
        if not isinstance(lis, list) or not all(
                isinstance(x, str) and kdef._NAME_RE.match(x) for x in lis):
            fail("%s: bad listeners %r" % (name, lis))
        m.listeners = list(lis)
    fields = raw.get("fields")
    if not isinstance(fields, list):
        fail("%s: missing fields" % name)
    m.fields = [convert_field(name, r) for r in fields]
    _check_unique(name, m.fields)
    for rs in raw.get("commonStructs") or []:
        sname = rs.get("name") if isinstance(rs, dict) else None
        if not isinstance(sname, str) or not kdef._NAME_RE.match(sname):
            fail("%s: bad common struct %r" % (name, sname))
        extra = set(rs) - STRUCT_KEYS
        if extra:
            fail("%s.%s: unknown keys %s" % (name, sname, sorted(extra)))
        if m.struct(sname) is not None:
            fail("%s: common struct %s declared twice" % (name, sname))
        s = Struct(sname, [convert_field(name + "." + sname, r)
                           for r in rs.get("fields") or []],
                   _range("%s.%s versions" % (name, sname), rs.get("versions", "0+"), True))
        if "versions" not in rs:
            # Kafka 3.5's FetchRequest.ReplicaState: a common struct without
            # versions (later required); its fields carry their own.
            NOTES.append("%s: common struct %s without versions; 0+" % (path, sname))
        _check_unique(name + "." + sname, s.fields)
        m.structs.append(s)
    _check_struct_refs(m)
    return m


def _check_struct_refs(m: Message) -> None:
    """Kafka's StructRegistry rules: a common struct may not be re-specified
    inline; every struct name is declared once; every struct type resolves."""
    common = {s.name for s in m.structs}
    inline: Dict[str, str] = {}

    def rec(where, fields):
        for f in fields:
            if not f.is_struct:
                continue
            t = f.element_type
            if t in common:
                if f.fields:
                    fail("%s.%s: re-specifies common struct %s inline"
                         % (where, f.name, t))
            elif getattr(f, "_inline", False) or f.fields:
                if t in inline:
                    fail("%s.%s: struct %s declared twice (also at %s)"
                         % (where, f.name, t, inline[t]))
                inline[t] = "%s.%s" % (where, f.name)
            else:
                fail("%s.%s: struct type %s has no fields and is not a common "
                     "struct" % (where, f.name, t))
            rec(where + "." + f.name, f.fields)
    rec(m.name, m.fields)
    for s in m.structs:
        rec(m.name + "." + s.name, s.fields)
    clash = common & set(inline)
    if clash:
        fail("%s: struct names both common and inline: %s" % (m.name, sorted(clash)))


def is_tombstone(m: Optional[Message]) -> bool:
    """True for a removed API's placeholder (validVersions "none")."""
    return m is not None and getattr(m, "_tombstone", False)


def load_schema_jar(path: str) -> Dict[str, Message]:
    """Convert every ``common/message/*.json`` resource of a kafka-clients jar
    (read in memory; nothing is extracted)."""
    import zipfile
    out: Dict[str, Message] = {}
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist()
                       if n.startswith("common/message/") and n.endswith(".json")
                       and "/" not in n[len("common/message/"):])
        if not names:
            fail("%s: no common/message/*.json resources" % path)
        for n in names:
            where = "%s!%s" % (os.path.basename(path), n)
            text = z.read(n).decode("utf-8")
            m = convert_message(where, load_json_text(where, where, text))
            out[m.name] = m
    return out


def load_schema_dir(path: str) -> Dict[str, Message]:
    """Convert every ``*.json`` of a Kafka schema directory."""
    out: Dict[str, Message] = {}
    files = sorted(f for f in os.listdir(path) if f.endswith(".json"))
    if not files:
        fail("%s: no *.json files" % path)
    for fn in files:
        m = convert_message(os.path.join(path, fn), load_json(os.path.join(path, fn)))
        out[m.name] = m
    return out


# ---------------------------------------------------------------------------
# Merging removed versions (KIP-896)
# ---------------------------------------------------------------------------

class _Ctx:
    """Version bookkeeping for one message merge."""

    def __init__(self, name: str, valid: VersionRange, new_lo: int):
        self.name = name
        self.valid = valid
        self.new_lo = new_lo
        self.versions = valid.versions()
        self.notes: List[str] = []

    def is_new(self, v: int) -> bool:
        return v >= self.new_lo

    def pick(self, v: int, old, new):
        return new if self.is_new(v) else old


def _describe(vs) -> str:
    vs = sorted(vs)
    if not vs:
        return "{}"
    parts, start, prev = [], vs[0], vs[0]
    for v in vs[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
        if v is not None:
            start = prev = v
    return "{" + ",".join(parts) + "}"


def merge_range(ctx: _Ctx, what: str,
                fact: Callable[[int], Optional[VersionRange]]) -> VersionRange:
    """Union of per-version facts.  ``fact(v)`` is the range that the source
    responsible for v gives (None if the entity does not exist there).  The
    result restricted to the merged valid range equals the set of versions v
    with ``v in fact(v)``; beyond its edges it keeps the source's bounds (so
    ``0+`` stays ``0+``)."""
    s = [v for v in ctx.versions if (fact(v) is not None and fact(v).contains(v))]
    if not s:
        return NONE
    if s[-1] - s[0] + 1 != len(s):
        removed = [v for v in ctx.versions if not ctx.is_new(v)]
        current = [v for v in ctx.versions if ctx.is_new(v)]
        fail("%s: %s: union of per-version facts is not contiguous: %s "
             "(old set %s for removed versions %s; new set %s for current "
             "versions %s)" % (ctx.name, what, _describe(s),
                               fact(removed[0]) if removed else "-", _describe(removed),
                               fact(current[0]) if current else "-", _describe(current)))
    lo, hi = s[0], s[-1]
    if lo == ctx.valid.lo:
        lo = fact(lo).lo
    if hi == ctx.valid.hi:
        hi = fact(hi).hi
    return VersionRange(lo, hi)


def merge_order(where: str, old: List[str], new: List[str]) -> List[str]:
    """Order-preserving merge of two name lists.  Names in both lists must
    keep their relative order; names only in ``old`` are placed right after
    their predecessor in ``old``."""
    old_set, new_set = set(old), set(new)
    common_old = [n for n in old if n in new_set]
    common_new = [n for n in new if n in old_set]
    if common_old != common_new:
        fail("%s: field order differs between snapshots: old %s, new %s"
             % (where, common_old, common_new))
    out: List[str] = []
    i = 0
    # old-only names before the first common name
    while i < len(old) and old[i] not in new_set:
        out.append(old[i])
        i += 1
    for n in new:
        out.append(n)
        if n in old_set:
            i = old.index(n) + 1
            while i < len(old) and old[i] not in new_set:
                out.append(old[i])
                i += 1
    return out


def _by_name(fields: Optional[List]) -> Dict[str, object]:
    return {f.name: f for f in fields or []}


def merge_fields(ctx: _Ctx, where: str,
                 old_fields: Callable[[int], Optional[List[Field]]],
                 new_fields: Callable[[int], Optional[List[Field]]]) -> List[Field]:
    """Merge one field list.  ``old_fields(v)``/``new_fields(v)`` return the
    list in force for version v in each set (None where the enclosing struct
    does not exist).  Which set applies to v is decided by ``ctx``."""
    # Union of names over all versions, in declaration order.
    old_lists = [old_fields(v) for v in ctx.versions if not ctx.is_new(v)]
    new_lists = [new_fields(v) for v in ctx.versions if ctx.is_new(v)]
    old_names = _names(where, old_lists)
    new_names = _names(where, new_lists)
    out: List[Field] = []
    for name in merge_order(where, old_names, new_names):
        fwhere = "%s.%s" % (where, name)

        def src(v, _n=name):
            lst = ctx.pick(v, old_fields, new_fields)(v)
            return None if lst is None else _by_name(lst).get(_n)

        present = [v for v in ctx.versions if src(v) is not None and src(v).present_in(v)]
        types = {src(v).type for v in present}
        if len(types) > 1:
            fail("%s: type conflict between snapshots: %s" % (fwhere, sorted(types)))
        tags = {src(v).tag for v in ctx.versions
                if src(v) is not None and src(v).tag is not None}
        if len(tags) > 1:
            fail("%s: tag conflict between snapshots: %s" % (fwhere, sorted(tags)))
        # Representative source definition: newest set that has the field.
        rep_v = next((v for v in reversed(ctx.versions) if src(v) is not None), None)
        rep = src(rep_v)
        f = Field(name, rep.type if not types else types.pop(), NONE)
        f.versions = merge_range(ctx, fwhere + " versions",
                                 lambda v: src(v) and src(v).versions)
        in_new = any(src(v) is not None for v in ctx.versions if ctx.is_new(v))
        if f.versions.empty and not in_new:
            # An old-set field that none of the removed versions carries
            # (e.g. renamed in a version the new set still defines): drop it.
            ctx.notes.append("%s: old-set field not present in any removed "
                             "version; dropped" % fwhere)
            continue
        f.nullable = merge_range(ctx, fwhere + " nullableVersions",
                                 lambda v: src(v) and src(v).nullable)
        f.tagged = merge_range(ctx, fwhere + " taggedVersions",
                               lambda v: src(v) and src(v).tagged)
        f.tag = tags.pop() if tags else None
        if (f.tag is None) != f.tagged.empty:
            f.tag = None if f.tagged.empty else f.tag
        flex = {str(src(v).flexible) for v in present if src(v).flexible is not None}
        nflex = {v for v in present if src(v).flexible is None}
        if len(flex) > 1 or (flex and nflex):
            fail("%s: field-level flexibleVersions differ between snapshots" % fwhere)
        f.flexible = rep.flexible
        f.default, f.ignorable, f.entity = rep.default, rep.ignorable, rep.entity
        f.map_key, f.zero_copy = rep.map_key, rep.zero_copy
        # Notes for attributes that differ between the two sets.
        olds = {id(src(v)): src(v) for v in ctx.versions
                if not ctx.is_new(v) and src(v) is not None}
        for o in olds.values():
            if o is rep:
                continue
            if o.ignorable and not rep.ignorable:
                # `ignorable` says what an encoder does with a value at a version without
                # the field; the old set's versions are the old set's to say (RequestHeader
                # ClientId, absent only from v0, is ignorable in 3.9 and not in 4.x, which
                # has no v0): either set's yes is kept.
                f.ignorable = True
                ctx.notes.append("%s: ignorable in the old set, not in the new; kept "
                                 "ignorable (the old versions need it)" % fwhere)
            for attr in ("default", "ignorable", "entity", "map_key", "zero_copy"):
                if attr == "ignorable" and o.ignorable and not rep.ignorable:
                    continue
                if getattr(o, attr) != getattr(rep, attr):
                    ctx.notes.append("%s: %s differs (old %r, kept new %r)"
                                     % (fwhere, attr, getattr(o, attr), getattr(rep, attr)))
        if rep.is_struct and getattr(rep, "_inline", False):
            def sub(which, _src=src):
                def g(v):
                    fv = _src(v)
                    return None if fv is None else fv.fields
                return g
            f.fields = merge_fields(ctx, fwhere, sub("old"), sub("new"))
            f._inline = True                     # type: ignore[attr-defined]
        inl = {getattr(src(v), "_inline", False) for v in ctx.versions if src(v) is not None}
        if len(inl) > 1:
            fail("%s: inline struct in one snapshot, common struct in the other" % fwhere)
        out.append(f)
    return out


def _names(where: str, lists: List[Optional[List[Field]]]) -> List[str]:
    """Ordered union of names over several versions of the same list (the
    lists of one set are the same object, so this is usually one list)."""
    seen: List[str] = []
    uniq = []
    for lst in lists:
        if lst is not None and all(lst is not u for u in uniq):
            uniq.append(lst)
    for lst in uniq:
        names = [f.name for f in lst]
        seen = merge_order(where, seen, names) if seen else names
    return seen


def merge_message(new: Message, old: Optional[Message]) -> Tuple[Message, List[str]]:
    """Merge a message of the new set with the same message of the old set.
    Returns ``(merged, notes)``.  Without removed versions the new message is
    returned unchanged (the old set never overrides a version still valid in
    the new set)."""
    if old is None or old.valid.lo >= new.valid.lo:
        return new, []
    if old.type != new.type or old.api_key != new.api_key:
        fail("%s: type/api_key differ between snapshots" % new.name)
    if new.type not in ("request", "response", "header"):
        fail("%s: versions removed from a %s message; kdef has no 'current' "
             "for it" % (new.name, new.type))
    if old.valid.hi < new.valid.lo - 1:
        fail("%s: gap between old valid %s and new valid %s"
             % (new.name, old.valid, new.valid))
    valid = VersionRange(old.valid.lo, new.valid.hi)
    ctx = _Ctx(new.name, valid, new.valid.lo)
    m = Message(new.name, new.type, new.api_key, valid,
                new.current if new.type != "header" else None)
    m.unstable_latest = new.unstable_latest
    m.listeners = list(new.listeners)
    pick_msg = lambda v: ctx.pick(v, old, new)  # noqa: E731
    m.flexible = merge_range(ctx, "flexibleVersions", lambda v: pick_msg(v).flexible)
    m.fields = merge_fields(ctx, new.name, lambda v: old.fields, lambda v: new.fields)
    # common structs: merged by name in declaration order
    snames = merge_order(new.name + " commonStructs",
                         [s.name for s in old.structs], [s.name for s in new.structs])
    for sn in snames:
        def sfields(msg, _sn=sn):
            s = msg.struct(_sn)
            return None if s is None else s.fields
        so, sn_ = old.struct(sn), new.struct(sn)
        s = Struct(sn, merge_fields(ctx, "%s.%s" % (new.name, sn),
                                    lambda v, f=sfields: f(old),
                                    lambda v, f=sfields: f(new)))

        def sver(v, a=so, b=sn_):
            st = b if ctx.is_new(v) else a
            return None if st is None else st.versions
        s.versions = merge_range(ctx, "%s.%s versions" % (new.name, sn), sver)
        if s.versions.empty:
            s.versions = (sn_ or so).versions
        m.structs.append(s)
    # drop old-only common structs that no merged field references
    used = {f.element_type for _, f in m.walk()}
    for s in list(m.structs):
        if new.struct(s.name) is None and s.name not in used:
            ctx.notes.append("%s: old-only common struct %s unused; dropped"
                             % (new.name, s.name))
            m.structs.remove(s)
    _check_struct_refs(m)
    return m, ctx.notes


# ---------------------------------------------------------------------------
# Wire-layout self-check
# ---------------------------------------------------------------------------

def wire_layout(m: Message, v: int) -> tuple:
    """Flattened wire layout of message ``m`` at version ``v``: the flexible
    flag and an ordered tuple of (path, type, nullable, tagged, tag,
    field-flexible) for the fields present in v, recursing into structs."""
    rows = []

    def rec(prefix, fields):
        for f in fields:
            if not f.present_in(v):
                continue
            path = prefix + "." + f.name if prefix else f.name
            tagged = f.tagged_in(v)
            rows.append((path, f.type, f.nullable_in(v), tagged,
                         f.tag if tagged else None, m.field_flexible_in(f, v)))
            rec(path, m.struct_fields(f))
    rec("", m.fields)
    return (m.is_flexible(v), tuple(rows))


def wire_shape(m: Message, v: int) -> tuple:
    """What decides the bytes of version ``v`` of ``m``, and nothing else: the
    flexible flag and, in wire order, the type of every field that is not a
    tagged field at v (structs by their fields, whatever their names).  Field
    names, nullability (a null is a length or marker either way) and tagged
    fields (any reader skips an unknown tag, and Kafka adds them without a new
    version) are left out, and records are bytes, so two releases with the same
    shape of v read each other's frames."""
    def rec(fields):
        out = []
        for f in fields:
            if not f.present_in(v) or f.tagged_in(v):
                continue
            if f.is_struct:
                out.append((("[]" if f.is_array else "") + "struct",
                            tuple(rec(m.struct_fields(f)))))
            else:
                # A records field is bytes on the wire (2.2-2.7 defined Produce's and
                # Fetch's as "bytes").
                out.append(f.type.replace("records", "bytes"))
            out.append(m.field_flexible_in(f, v))
        return out
    return (m.is_flexible(v), tuple(rec(m.fields)))


def self_check(merged: Message, new: Message, old: Optional[Message]) -> None:
    """Fail unless every version's layout equals the responsible source's,
    and tagged fields only appear in flexible versions."""
    def source(v):
        src = new if new.valid.contains(v) else old
        return src, "new" if src is new else "old"
    check_sources(merged, source)


def check_sources(merged: Message, source_for) -> None:
    """Fail unless, for every version ``v``, the layout of ``merged`` equals
    that of ``source_for(v)[0]`` (the snapshot responsible for ``v``, named
    ``source_for(v)[1]``), and tagged fields only appear in flexible
    versions."""
    for v in merged.valid.versions():
        src, src_name = source_for(v)
        if src is None or not src.valid.contains(v):
            fail("%s v%d: no source snapshot defines this version" % (merged.name, v))
        got, want = wire_layout(merged, v), wire_layout(src, v)
        if got != want:
            detail = ""
            if got[0] != want[0]:
                detail = "flexible %s vs %s" % (got[0], want[0])
            else:
                for a, b in itertools.zip_longest(got[1], want[1]):
                    if a != b:
                        detail = "merged %r vs source %r" % (a, b)
                        break
            fail("%s v%d: merged wire layout differs from the %s set: %s"
                 % (merged.name, v, src_name, detail))
        flex, rows = got
        tags_by_parent: Dict[str, List[int]] = {}
        for r in rows:
            if r[3] and not flex:
                fail("%s v%d: %s is tagged in a non-flexible version"
                     % (merged.name, v, r[0]))
            if r[3]:
                parent = r[0].rpartition(".")[0]
                tags = tags_by_parent.setdefault(parent, [])
                if r[4] in tags:
                    fail("%s v%d: duplicate tag %d under %r"
                         % (merged.name, v, r[4], parent or "<top>"))
                tags.append(r[4])
    # round trip through the text format (dataclass equality ignores the
    # importer-private _inline marker)
    text = kdef.dump(merged)
    back = kdef.parse(text)
    if back != merged or kdef.dump(back) != text:
        fail("%s: kdef dump/parse round trip mismatch" % merged.name)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def build(schemas: str, removed_from: Optional[str], upstream: str,
          removed_upstream: str, log=print) -> Dict[str, Message]:
    """Import (and merge), self-check, and return ``{name: Message}``."""
    del NOTES[:]
    new_set = load_schema_dir(schemas)
    old_set = load_schema_dir(removed_from) if removed_from else {}
    up = upstream + ("; removed versions: " + removed_upstream if removed_from else "")
    out: Dict[str, Message] = {}
    notes: List[str] = list(NOTES)
    for name in sorted(new_set):
        new = new_set[name]
        merged, n = merge_message(new, old_set.get(name))
        notes += n
        self_check(merged, new, old_set.get(name))
        merged = kdef.parse(kdef.dump(merged))   # plain copy, no private marks
        merged.upstream = up
        out[name] = merged
    only_old = sorted(set(old_set) - set(new_set))
    for name in only_old:
        notes.append("%s: only in the old set; not imported" % name)
    _check_pairs(out)
    summary(out, log)
    for n in notes:
        log("note: " + n)
    return out


# ---------------------------------------------------------------------------
# Releases: the definitions of several kafka-clients releases, newest first
# ---------------------------------------------------------------------------

def _same_message(release: Dict[str, Message], m: Message) -> Optional[Message]:
    """The message of ``release`` that is ``m``: by API key and type for
    requests and responses (APIs were renamed: ListOffset -> ListOffsets,
    ListClientMetricsResources -> ListConfigResources), else by name."""
    if m.api_key is not None:
        for o in release.values():
            if o.api_key == m.api_key and o.type == m.type:
                return o
        return None
    return release.get(m.name)


def release_spans(merged: Message, chain: List[Tuple[str, Optional[Message]]],
                  notes: Optional[List[str]] = None,
                  partner: Optional[Tuple[Message, List[Tuple[str, Optional[Message]]]]] = None
                  ) -> List[kdef.Release]:
    """For each version of ``merged``: the first release in which it is stable,
    the first that has it at all, the last that has it; ``chain`` is
    ``[(release, message or None)]`` newest first, its last entry the oldest
    release imported.  A release counts for v only while its wire shape of v
    (wire_shape) is ``merged``'s, and that of ``partner`` (the response of a
    request: ``(merged, chain)``) is the partner's: going back from the newest,
    the first release that had v in another shape (a version still in
    development, which Kafka marked ``latestVersionUnstable`` only from 3.5 on,
    e.g. EndQuorumEpoch v0 of 2.7) and every older one are left out, with a
    note.  Consecutive versions with the same facts share a row."""
    pairs = [(merged, chain)] + ([partner] if partner else [])
    oldest = chain[-1][0]
    rows: List[kdef.Release] = []
    for v in merged.valid.versions():
        present, stable = [], []
        want = [wire_shape(mm, v) for mm, _ in pairs]
        for i, (label, m) in enumerate(chain):
            if m is None or is_tombstone(m) or not m.valid.contains(v):
                continue
            other = [mm.name for (mm, c), shape in zip(pairs, want)
                     if c[i][1] is None or wire_shape(c[i][1], v) != shape]
            if other:
                if notes is not None:
                    notes.append("%s v%d: kafka-clients %s had another wire shape (in "
                                 "development); releases from %s back not counted"
                                 % (other[0], v, label, label))
                break
            present.append(label)
            if not (m.unstable_latest and v == m.valid.hi):
                stable.append(label)
        if not present:
            fail("v%d: in no release" % v)
        first = stable[-1] if stable else None
        seen = present[-1] if present[-1] != first else None
        r = kdef.Release(VersionRange(v, v), first, present[0], seen,
                         first is not None and first == oldest and first == present[-1])
        prev = rows[-1] if rows else None
        if (prev is not None and prev.versions.hi == v - 1 and
                (prev.first, prev.last, prev.seen, prev.or_earlier) ==
                (r.first, r.last, r.seen, r.or_earlier)):
            rows[-1] = kdef.Release(VersionRange(prev.versions.lo, v), r.first, r.last,
                                    r.seen, r.or_earlier)
        else:
            rows.append(r)
    return rows


def build_releases(releases: List[Tuple[str, Dict[str, Message]]], upstream: str,
                   log=print, skip: Optional[Dict[str, str]] = None) -> Dict[str, Message]:
    """Import the definitions of several Kafka releases, ``[(release, set)]``
    newest first.  Every message of the newest release is imported; version
    v takes its layout from the newest release that has v (a version that
    changed layout while unstable is read as the newest release has it); the
    versions newer releases removed (KIP-896 in 4.0, the share-group v0 in
    4.1, whole APIs such as LeaderAndIsr whose newest definition is a
    tombstone) come from the releases that still had them.  ``current`` is
    the newest release's range.  Each message gets its release spans and the
    names it had before.  ``skip`` names messages left out, each with why."""
    newest = releases[0][1]
    out: Dict[str, Message] = {}
    spans: Dict[str, Tuple[Message, List[Tuple[str, Optional[Message]]]]] = {}
    notes: List[str] = list(NOTES)
    for name in sorted(newest):
        top = newest[name]
        if skip and name in skip:
            if top.type in ("request", "response", "header"):
                fail("%s: a %s cannot be skipped" % (name, top.type))
            notes.append("%s: not imported: %s" % (name, skip[name]))
            continue
        chain = [(label, _same_message(rs, top)) for label, rs in releases]
        sources: List[Tuple[str, Message]] = []
        merged: Optional[Message] = None
        for label, m in chain:
            if m is None or is_tombstone(m):
                continue
            if merged is None:
                merged = copy.deepcopy(m)
                merged.name = top.name
                if merged.type in ("request", "response"):
                    merged.current = top.valid if not is_tombstone(top) else NONE
                sources.append((label, m))
                continue
            if m.valid.hi is not None and merged.valid.hi is not None and \
                    m.valid.hi > merged.valid.hi and not is_tombstone(top):
                notes.append("%s: v%d-%d of %s not in newer releases (withdrawn); "
                             "not imported" % (top.name, merged.valid.hi + 1,
                                               m.valid.hi, label))
            if m.valid.lo < merged.valid.lo:
                m2 = copy.deepcopy(m)
                m2.name = merged.name
                merged, n = merge_message(merged, m2)
                notes += n
                sources.append((label, m))
        if merged is None:
            notes.append("%s: a tombstone in every release; not imported" % name)
            continue

        def source_for(v, _s=sources):
            for label, m in _s:
                if m.valid.contains(v):
                    return m, "kafka-clients %s" % label
            return None, "-"
        check_sources(merged, source_for)
        merged = kdef.parse(kdef.dump(merged))
        merged.upstream = upstream
        if merged.type in ("request", "response"):
            # Headers and data records got their JSON files later than the
            # versions they describe (RequestHeader.json is "0" in 2.2-2.3),
            # so only API versions get release spans (below, per API).
            spans[name] = (merged, chain)
        former = []
        for label, m in chain:
            if m is not None and m.name != top.name and m.name not in former:
                former.append(m.name)
        merged.formerly = former
        out[name] = merged
    for label, rs in releases[1:]:
        for name in sorted(rs):
            if name not in newest and _same_message(newest, rs[name]) is None:
                notes.append("%s: only in kafka-clients %s and older; not imported"
                             % (name, label))
    # Per API: Kafka marks only the request latestVersionUnstable, and a release
    # has a version only if it has the request's and the response's shape of it;
    # the response gets the request's spans.
    for name, (req, chain) in spans.items():
        if req.type != "request":
            continue
        resp = next((m for m in spans.values()
                     if m[0].type == "response" and m[0].api_key == req.api_key), None)
        req.releases = release_spans(req, chain, notes, resp)
        if resp is not None:
            resp[0].releases = list(req.releases)
    notes = sorted(set(notes), key=notes.index)
    _check_pairs(out)
    summary(out, log)
    for n in notes:
        log("note: " + n)
    return out


def _check_pairs(msgs: Dict[str, Message]) -> None:
    """Each API key has one request and one response with equal ranges."""
    by_key: Dict[int, Dict[str, Message]] = {}
    for m in msgs.values():
        if m.api_key is None:
            continue
        slot = by_key.setdefault(m.api_key, {})
        if m.type in slot:
            fail("api key %d has two %ss: %s and %s"
                 % (m.api_key, m.type, slot[m.type].name, m.name))
        slot[m.type] = m
    for k, slot in sorted(by_key.items()):
        if set(slot) != {"request", "response"}:
            fail("api key %d lacks a request or a response" % k)
        rq, rs = slot["request"], slot["response"]
        if (rq.valid, rq.current) != (rs.valid, rs.current):
            fail("api key %d: request %s/%s and response %s/%s ranges differ"
                 % (k, rq.valid, rq.current, rs.valid, rs.current))


def summary(msgs: Dict[str, Message], log=print) -> dict:
    """Print and return the counts."""
    api = [m for m in msgs.values() if m.api_key is not None]
    keys = sorted({m.api_key for m in api})
    total = sum(len(m.valid.versions()) for m in api)
    current = sum(len(m.current.versions()) for m in api)
    restored = {m.api_key: m for m in api if m.type == "request" and m.removed_versions()}
    counts = {
        "messages": len(msgs),
        "api_keys": len(keys),
        "api_key_min": keys[0] if keys else None,
        "api_key_max": keys[-1] if keys else None,
        "request_response_messages": len(api),
        "headers": sum(1 for m in msgs.values() if m.type == "header"),
        "data": sum(1 for m in msgs.values() if m.type == "data"),
        "versions_total": total,
        "versions_current": current,
        "versions_restored": total - current,
    }
    log("messages: %d (%d requests/responses, %d headers, %d data)"
        % (counts["messages"], len(api), counts["headers"], counts["data"]))
    log("api keys: %d (%s-%s)" % (len(keys), counts["api_key_min"], counts["api_key_max"]))
    log("request+response versions: %d total = %d current + %d restored"
        % (total, current, total - current))
    for k in sorted(restored):
        m = restored[k]
        rv = m.removed_versions()
        log("  restored api %d %s: v%s (x2 request+response)"
            % (k, m.name[:-len("Request")], str(VersionRange(rv[0], rv[-1]))))
    return counts


def render(msgs: Dict[str, Message]) -> Dict[str, str]:
    """``{file name: text}`` for every message."""
    return {name + ".kdef": kdef.dump(m) for name, m in msgs.items()}


def sync(out_dir: str, files: Dict[str, str], check: bool, log=print) -> List[str]:
    """Write (or, with ``check``, only compare) the output directory.
    Returns the list of files that changed / would change (stale ``*.kdef``
    files not produced by this run are deleted / reported)."""
    changed = []
    existing = set()
    if os.path.isdir(out_dir):
        existing = {f for f in os.listdir(out_dir) if f.endswith(".kdef")}
    elif not check:
        os.makedirs(out_dir)
    for fn in sorted(files):
        p = os.path.join(out_dir, fn)
        cur = None
        if fn in existing:
            with open(p, "r", encoding="utf-8", newline="") as fh:
                cur = fh.read()
        if cur != files[fn]:
            changed.append(fn)
            if not check:
                with open(p, "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(files[fn])
    for fn in sorted(existing - set(files)):
        changed.append(fn + " (stale)")
        if not check:
            os.remove(os.path.join(out_dir, fn))
    return changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemas", required=True, help="Kafka message JSON directory")
    ap.add_argument("--removed-from", help="older snapshot holding removed versions")
    ap.add_argument("--out", required=True, help="output directory (codec/defs)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if any file would change")
    ap.add_argument("--upstream", default=DEFAULT_UPSTREAM,
                    help="description of --schemas for the '# upstream:' line")
    ap.add_argument("--removed-upstream", default=DEFAULT_REMOVED_UPSTREAM,
                    help="description of --removed-from for the '# upstream:' line")
    a = ap.parse_args(argv)
    try:
        msgs = build(a.schemas, a.removed_from, a.upstream, a.removed_upstream)
    except ImportError_ as e:
        print("kafka_import: error: %s" % e, file=sys.stderr)
        return 2
    changed = sync(a.out, render(msgs), a.check)
    if a.check:
        if changed:
            print("kafka_import: %d file(s) in %s are out of date:" % (len(changed), a.out))
            for c in changed:
                print("  " + c)
            return 1
        print("kafka_import: %s is up to date (%d files)" % (a.out, len(msgs)))
        return 0
    print("kafka_import: wrote %d file(s) to %s (%d changed)"
          % (len(msgs), a.out, len(changed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
