#!/usr/bin/env python3
"""Tests of tools/conformance_ref.py and the committed conformance vectors.

Run from the project root:
  python3 -m unittest discover -s tools -p 'conformance_ref_test.py'

The --check cases need the kafka-clients jars pinned in
tools/kafka-releases.txt on this machine (python3 tools/kafka_defs.py
--jars-only fetches them); without them those cases are skipped.
"""

import contextlib
import io
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VECTORS = os.path.join(ROOT, "conformance", "vectors")
sys.path.insert(0, HERE)

import conformance_ref as ref  # noqa: E402


def read(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as fh:
        return fh.read()


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = ref.main(argv)
    return rc, out.getvalue() + err.getvalue()


class Crc32cTest(unittest.TestCase):
    def test_check_value(self):
        self.assertEqual(ref.crc32c(b"123456789"), 0xE3069283)

    def test_empty(self):
        self.assertEqual(ref.crc32c(b""), 0)

    def test_empty_batch(self):
        batch = ref.empty_record_batch()
        self.assertEqual(len(batch), 61)
        self.assertEqual(ref.crc32c(batch[21:]), 0x595FB7DD)
        self.assertEqual(batch[17:21], bytes.fromhex("595fb7dd"))
        self.assertEqual(int.from_bytes(batch[8:12], "big"), 49)
        self.assertEqual(batch[16], 2)  # magic


class PrimitivesTest(unittest.TestCase):
    def test_uvarint(self):
        self.assertEqual(ref.uvarint(0), b"\x00")
        self.assertEqual(ref.uvarint(62), b"\x3e")
        self.assertEqual(ref.uvarint(127), b"\x7f")
        self.assertEqual(ref.uvarint(128), b"\x80\x01")
        self.assertEqual(ref.uvarint(300), b"\xac\x02")

    def test_strip_comments_keeps_slashes_in_strings(self):
        text = '{ "a": "x // y", // gone\n "b": "q\\"//r" } // end'
        self.assertEqual(ref.json.loads(ref.strip_comments(text)),
                         {"a": "x // y", "b": 'q"//r'})

    def test_versions(self):
        self.assertIn(3, ref.Versions("2+"))
        self.assertNotIn(1, ref.Versions("2+"))
        self.assertIn(4, ref.Versions("3-5"))
        self.assertNotIn(6, ref.Versions("3-5"))
        self.assertIn(7, ref.Versions("7"))
        self.assertNotIn(0, ref.Versions("none"))


class SeedsTest(unittest.TestCase):
    """seeds.txt was transcribed by hand; the encoder must agree with it."""

    @classmethod
    def setUpClass(cls):
        cls.seeds = ref.parse_seeds(read("seeds.txt"))

    def test_four_seeds(self):
        got = [(s["api_key"], s["version"], s["kind"], s["size"])
               for s in self.seeds]
        self.assertEqual(got, [(41, 3, "request", 20), (41, 3, "response", 52),
                               (39, 2, "request", 25), (39, 2, "response", 24)])

    def test_trees_consistent_with_hex(self):
        for s in self.seeds:
            self.assertEqual(ref.check_seed(s), [])

    def test_encoder_matches_seeds(self):
        schemas = _BuiltinSeedSchemas()
        enc = ref.Encoder(schemas, ref.empty_record_batch())
        for s in self.seeds:
            m = schemas.messages[(s["api_key"], s["kind"])]
            data, _ = enc.frame(m, s["version"])
            self.assertEqual(data.hex(), s["hex"],
                             "%s v%d %s" % (s["api"], s["version"], s["kind"]))

    def test_encoder_matches_seeds_from_schema_dir(self):
        seeds, problems = ref.verify_seeds(releases(self)[0],
                                           os.path.join(VECTORS, "seeds.txt"))
        self.assertEqual(len(seeds), 4)
        self.assertEqual(problems, [])


_RELEASES = []


def releases(test):
    """The pinned releases' SchemaSets (newest first), read once; skips the
    test when their jars are not on this machine (python3
    tools/kafka_defs.py --jars-only fetches them)."""
    if not _RELEASES:
        _RELEASES.extend(ref.release_sets(download=False))
    if not _RELEASES:
        import kafka_defs
        kafka_defs.without_jars(test)
    return _RELEASES


class _BuiltinSeedSchemas:
    """The four seed messages and the two headers, written here from the
    seed pages' facts so that the seed test runs without a schema dir."""

    def __init__(self):
        def msg(name, kind, key, valid, flex, fields):
            return ref.MessageDef("<test>", {
                "name": name, "type": kind, "apiKey": key,
                "validVersions": valid, "flexibleVersions": flex,
                "fields": fields})

        def f(name, typ, versions="0+", **kw):
            d = {"name": name, "type": typ, "versions": versions}
            d.update(kw)
            return d

        owner = [f("PrincipalType", "string"), f("PrincipalName", "string")]
        token = [f("PrincipalType", "string"), f("PrincipalName", "string"),
                 f("TokenRequesterPrincipalType", "string", "3+"),
                 f("TokenRequesterPrincipalName", "string", "3+"),
                 f("IssueTimestamp", "int64"), f("ExpiryTimestamp", "int64"),
                 f("MaxTimestamp", "int64"), f("TokenId", "string"),
                 f("Hmac", "bytes"),
                 f("Renewers", "[]DescribedDelegationTokenRenewer",
                   fields=owner)]
        self.messages = {
            (41, "request"): msg(
                "DescribeDelegationTokenRequest", "request", 41, "1-3", "2+",
                [f("Owners", "[]DescribeDelegationTokenOwner",
                   nullableVersions="0+", fields=owner)]),
            (41, "response"): msg(
                "DescribeDelegationTokenResponse", "response", 41, "1-3", "2+",
                [f("ErrorCode", "int16"),
                 f("Tokens", "[]DescribedDelegationToken", fields=token),
                 f("ThrottleTimeMs", "int32")]),
            (39, "request"): msg(
                "RenewDelegationTokenRequest", "request", 39, "1-2", "2+",
                [f("Hmac", "bytes"), f("RenewPeriodMs", "int64")]),
            (39, "response"): msg(
                "RenewDelegationTokenResponse", "response", 39, "1-2", "2+",
                [f("ErrorCode", "int16"), f("ExpiryTimestampMs", "int64"),
                 f("ThrottleTimeMs", "int32")]),
        }
        self.headers = {
            "RequestHeader": ref.MessageDef("<test>", {
                "name": "RequestHeader", "type": "header",
                "validVersions": "0-2", "flexibleVersions": "2+",
                "fields": [f("RequestApiKey", "int16"),
                           f("RequestApiVersion", "int16"),
                           f("CorrelationId", "int32"),
                           f("ClientId", "string", "1+",
                             nullableVersions="1+",
                             flexibleVersions="none")]}),
            "ResponseHeader": ref.MessageDef("<test>", {
                "name": "ResponseHeader", "type": "header",
                "validVersions": "0-1", "flexibleVersions": "1+",
                "fields": [f("CorrelationId", "int32")]}),
        }


class MinimalFileTest(unittest.TestCase):
    def check_rows(self, name):
        rows = ref.parse_vector_lines(read(name))
        for key, api, v, kind, size, hx in rows:
            data = bytes.fromhex(hx)
            self.assertEqual(len(data), size, (key, v, kind))
            self.assertEqual(int.from_bytes(data[:4], "big"), size - 4,
                             (key, v, kind))
        order = [(r[0], r[2], r[3] != "request") for r in rows]
        self.assertEqual(order, sorted(order), name + " not sorted")
        self.assertEqual(len(set(order)), len(order), name + " duplicates")
        return rows

    def test_minimal_618(self):
        rows = self.check_rows("minimal.txt")
        self.assertEqual(len(rows), 618)  # Kafka 4.4.0: 309 API versions
        self.assertEqual(sum(r[3] == "request" for r in rows), 309)

    def test_minimal_header(self):
        text = read("minimal.txt")
        self.assertIn("# Regenerate: python3 tools/conformance_ref.py", text)
        self.assertIn("org.apache.kafka:kafka-clients 4.4.0", text)

    def test_removed_rows(self):
        rows = self.check_rows("minimal-removed.txt")
        self.assertGreater(len(rows), 0)
        current = {(r[0], r[2], r[3]) for r in
                   ref.parse_vector_lines(read("minimal.txt"))}
        for r in rows:
            self.assertNotIn((r[0], r[2], r[3]), current)

    def test_seeds_appear_in_minimal(self):
        rows = {(r[0], r[2], r[3]): r[5]
                for r in ref.parse_vector_lines(read("minimal.txt"))}
        for s in ref.parse_seeds(read("seeds.txt")):
            self.assertEqual(rows[(s["api_key"], s["version"], s["kind"])],
                             s["hex"])


class CheckModeTest(unittest.TestCase):
    def test_check_from_the_pinned_releases(self):
        releases(self)
        rc, log = run_main(["--out", VECTORS, "--check"])
        self.assertEqual(rc, 0, log)



# ---------------------------------------------------------------------------
# The general encoder and the reference decoder, on a hand-made message whose
# expected bytes are assembled here piece by piece from the wire rules
# (conformance/README.md), not taken from the tool's output.

def _f(name, typ, versions="0+", **kw):
    d = {"name": name, "type": typ, "versions": versions}
    d.update(kw)
    return d


class _TestSchemas:
    """One request (key 77, v0 classic, v1 flexible) using every type."""

    def __init__(self):
        fields = [
            _f("Flag", "bool"), _f("I8", "int8"), _f("I16", "int16"),
            _f("U16", "uint16"), _f("I32", "int32"), _f("I64", "int64"),
            _f("Ratio", "float64"), _f("Uid", "uuid"), _f("Name", "string"),
            _f("Opt", "string", nullableVersions="0+"),
            _f("Data", "bytes"), _f("Ids", "[]int32"),
            _f("Sub", "SubStruct", nullableVersions="0+",
               fields=[_f("Id", "int32")]),
            _f("Items", "[]Item", fields=[_f("Key", "string")]),
            _f("Rec", "records", nullableVersions="0+"),
            _f("Epoch", "int64", "1+", taggedVersions="1+", tag=2),
            _f("Note", "string", "1+", taggedVersions="1+", tag="4"),
            _f("Leader", "LeaderStruct", "1+", taggedVersions="1+", tag=6,
               fields=[_f("Id", "int32")]),
        ]
        self.msg = ref.MessageDef("<test>", {
            "name": "KwireTestRequest", "type": "request", "apiKey": 77,
            "validVersions": "0-1", "flexibleVersions": "1+",
            "fields": fields})
        self.messages = {(77, "request"): self.msg}
        self.headers = _BuiltinSeedSchemas().headers
        self.label = "test"


VALUE = {
    "Flag": True, "I8": -128, "I16": 32767, "U16": 65535,
    "I32": -2147483648, "I64": "-9223372036854775808", "Ratio": -0.0,
    "Uid": "00112233445566778899aabbccddeeff", "Name": "h\u00e9",
    "Opt": None, "Data": "00ff", "Ids": [1, -1], "Sub": {"Id": 7},
    "Items": [{"Key": ""}], "Rec": None,
}


def _pieces(flexible):
    """[(path, bytes)] of the body of VALUE, by hand."""
    import struct as st

    def ln(n, classic):  # compact n+1 or a classic signed length
        return bytes([n + 1]) if flexible else st.pack(classic, n)
    tags = b"\x00" if flexible else b""
    return [
        ("Flag", b"\x01"), ("I8", b"\x80"), ("I16", b"\x7f\xff"),
        ("U16", b"\xff\xff"), ("I32", b"\x80\x00\x00\x00"),
        ("I64", b"\x80" + b"\x00" * 7), ("Ratio", b"\x80" + b"\x00" * 7),
        ("Uid", bytes.fromhex("00112233445566778899aabbccddeeff")),
        ("Name", ln(3, ">h") + b"h\xc3\xa9"),
        ("Opt", b"\x00" if flexible else b"\xff\xff"),
        ("Data", ln(2, ">i") + b"\x00\xff"),
        ("Ids", ln(2, ">i") + b"\x00\x00\x00\x01\xff\xff\xff\xff"),
        ("Sub", b"\x01\x00\x00\x00\x07" + tags),
        ("Items", ln(1, ">i") + ln(0, ">h") + tags),
        ("Rec", b"\x00" if flexible else b"\xff\xff\xff\xff"),
        ("tagged_fields", tags),
    ]


def _frame(version, body_pieces, client_id=b"\x00\x00"):
    import struct as st
    header = st.pack(">hhi", 77, version, 0) + client_id + (
        b"\x00" if version == 1 else b"")
    body = b"".join(p for _, p in body_pieces)
    return st.pack(">i", len(header) + len(body)) + header + body


def _offset(pieces, name, version):
    hdr = 4 + 10 + (1 if version == 1 else 0)
    for n, p in pieces:
        if n == name:
            return hdr
        hdr += len(p)
    raise KeyError(name)


class EncoderDecoderTest(unittest.TestCase):
    def setUp(self):
        self.s = _TestSchemas()
        self.enc = ref.Encoder(self.s)
        self.dec = ref.Decoder(self.s)
        self.java = ref.Decoder(self.s, java=True)

    def header(self, v):
        return {"RequestApiKey": 77, "RequestApiVersion": v,
                "CorrelationId": 0, "ClientId": ""}

    def encode(self, v, body, header=None):
        return self.enc.frame(self.s.msg, v, header=header or self.header(v),
                              body=body)[0]

    def test_every_type_both_encodings(self):
        for v in (0, 1):
            want = _frame(v, _pieces(v == 1))
            self.assertEqual(self.encode(v, VALUE).hex(), want.hex(), v)
            got = self.dec.frame(want, "request")
            self.assertEqual(ref.canonical_json(got["body"]),
                             ref.canonical_json(VALUE))
            self.assertEqual(got["header"], self.header(v))
            self.assertEqual(got["header_version"], 2 if v else 1)

    def test_float64_mapping(self):
        cases = {"-0.0": 0x8000000000000000, "5e-324": 1,
                 "1.7976931348623157e+308": 0x7FEFFFFFFFFFFFFF,
                 '"NaN"': 0x7FF8000000000000,
                 '"NaN:0x7ff0000000000001"': 0x7FF0000000000001,
                 '"NaN:0xfff8000000000000"': 0xFFF8000000000000,
                 '"Infinity"': 0x7FF0000000000000,
                 '"-Infinity"': 0xFFF0000000000000, "0.1": 0x3FB999999999999A}
        for text, bits in cases.items():
            self.assertEqual(ref.canonical_json(ref.float64_to_json(bits)),
                             text)
            self.assertEqual(ref.float64_bits(ref.json.loads(text)), bits)
        body = dict(VALUE, Ratio="NaN:0x7ff0000000000001")
        data = self.encode(1, body)
        off = _offset(_pieces(True), "Ratio", 1)
        self.assertEqual(data[off:off + 8].hex(), "7ff0000000000001")
        self.assertEqual(self.dec.frame(data, "request")["body"]["Ratio"],
                         "NaN:0x7ff0000000000001")

    def test_nulls_and_empties_differ(self):
        for v in (0, 1):
            body = dict(VALUE, Opt="", Rec="", Sub=None, Ids=[])
            got = self.dec.frame(self.encode(v, body), "request")["body"]
            self.assertEqual(got["Opt"], "")
            self.assertEqual(got["Rec"], "")
            self.assertIsNone(got["Sub"])
            self.assertEqual(got["Ids"], [])

    def test_tags_merged_in_order(self):
        body = dict(VALUE, Epoch="5", Note="x", _unknownTaggedFields=[
            {"tag": 1, "data": "aa"}, {"tag": 3, "data": ""},
            {"tag": 9, "data": "0102"}])
        data = self.encode(1, body)
        tail = (b"\x05" + b"\x01\x01\xaa" + b"\x02\x08" + b"\x00" * 7
                + b"\x05" + b"\x03\x00" + b"\x04\x02\x02x"
                + b"\x09\x02\x01\x02")
        self.assertTrue(data.endswith(tail), data.hex())
        got = self.dec.frame(data, "request")["body"]
        self.assertEqual(list(got)[-3:],
                         ["Epoch", "Note", "_unknownTaggedFields"])
        self.assertEqual(got["Epoch"], "5")
        self.assertEqual([u["tag"] for u in got["_unknownTaggedFields"]],
                         [1, 3, 9])
        with self.assertRaises(ref.SchemaError):  # unknown tag = known tag
            self.encode(1, dict(VALUE, _unknownTaggedFields=[
                {"tag": 2, "data": ""}]))
        with self.assertRaises(ref.SchemaError):
            self.encode(0, dict(VALUE, _unknownTaggedFields=[
                {"tag": 1, "data": ""}]))

    def test_client_id_never_compact(self):
        data = self.encode(1, VALUE, dict(self.header(1), ClientId="ab"))
        self.assertEqual(data[12:17], b"\x00\x02ab\x00")
        data = self.encode(1, VALUE, dict(self.header(1), ClientId=None))
        self.assertEqual(data[12:15], b"\xff\xff\x00")

    def test_encoder_rejects_bad_values(self):
        for bad in ({"I8": 128}, {"U16": -1}, {"I64": 2 ** 63},
                    {"Name": None}, {"Flag": 1}, {"Uid": "00"},
                    {"Nope": 1}):
            with self.assertRaises(ref.SchemaError, msg=bad):
                self.encode(1, dict(VALUE, **bad))

    # -- negative kinds: the exact error of each ----------------------------

    def expect(self, data, kind, offset, path, lenient):
        with self.assertRaises(ref.DecodeError) as cm:
            self.dec.frame(data, "request")
        e = cm.exception
        self.assertEqual((e.kind, e.offset, e.path), (kind, offset, path),
                         str(e))
        try:
            self.java.frame(data, "request")
            accepted = True
        except ref.DecodeError:
            accepted = False
        self.assertEqual(accepted, lenient, kind)

    def mutated(self, v, name, piece):
        pieces = [(n, piece if n == name else p)
                  for n, p in _pieces(v == 1)]
        return _frame(v, pieces), _offset(pieces, name, v)

    def test_truncated_inside_a_field(self):
        import struct as st
        full = _frame(1, _pieces(True))
        off = _offset(_pieces(True), "Ratio", 1)
        cut = full[:off + 3]
        cut = st.pack(">i", len(cut) - 4) + cut[4:]
        self.expect(cut, "truncated", off, "KwireTestRequest.Ratio", False)

    def test_length_beyond_bytes_left(self):
        data, off = self.mutated(1, "Name", b"\x7fh\xc3\xa9")
        self.expect(data, "truncated", off, "KwireTestRequest.Name", False)
        data, off = self.mutated(0, "Data", b"\x00\x00\x01\x00\x00\xff")
        self.expect(data, "truncated", off, "KwireTestRequest.Data", False)

    def test_count_too_large(self):
        data, off = self.mutated(0, "Items", b"\x7f\xff\xff\xff\x00\x00")
        self.expect(data, "count_too_large", off, "KwireTestRequest.Items",
                    False)

    def test_negative_lengths(self):
        data, off = self.mutated(0, "Name", b"\xff\xfe")
        self.expect(data, "invalid_length", off, "KwireTestRequest.Name",
                    False)
        # nullable: Java takes any negative length as null
        data, off = self.mutated(0, "Opt", b"\xff\xfe")
        self.expect(data, "invalid_length", off, "KwireTestRequest.Opt", True)
        data, off = self.mutated(1, "Opt", b"\xff\xff\xff\xff\x0f")
        self.expect(data, "invalid_length", off, "KwireTestRequest.Opt", True)

    def test_null_where_not_nullable(self):
        data, off = self.mutated(1, "Name", b"\x00")
        self.expect(data, "unexpected_null", off, "KwireTestRequest.Name",
                    False)
        data, off = self.mutated(0, "Ids", b"\xff\xff\xff\xff")
        self.expect(data, "unexpected_null", off, "KwireTestRequest.Ids",
                    False)

    def test_bool(self):
        data, off = self.mutated(1, "Flag", b"\x02")
        self.assertEqual(off, 15)
        self.expect(data, "invalid_bool", 15, "KwireTestRequest.Flag", True)

    def test_varints(self):
        rest = b"\x00\x00\x00\x01\xff\xff\xff\xff"
        for enc, kind, lenient in (
                (b"\x83\x00", "varint_non_canonical", True),
                (b"\x83\x80\x80\x80\x80\x00", "varint_too_long", False),
                (b"\x83\x80\x80\x80\x10", "varint_overflow", True)):
            data, off = self.mutated(1, "Ids", enc + rest)
            self.expect(data, kind, off, "KwireTestRequest.Ids", lenient)

    def test_tags(self):
        path = "KwireTestRequest.tagged_fields"
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x02\x05\x00\x03\x00")
        self.expect(data, "tag_out_of_order", off + 3, path, True)
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x02\x05\x00\x05\x00")
        self.expect(data, "tag_duplicate", off + 3, path, True)
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x01\x02\x07" + b"\x00" * 8)
        self.expect(data, "tag_size_mismatch", off + 1,
                    "KwireTestRequest.Epoch", True)  # Java ignores the size
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x01\x02\x09" + b"\x00" * 9)
        self.expect(data, "tag_size_mismatch", off + 1,
                    "KwireTestRequest.Epoch", False)
        # a struct-typed tag whose declared size ends before its own
        # tagged-field count: named by what was being read
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x01\x06\x04\x00\x00\x00\x07\x00")
        self.expect(data, "tag_size_mismatch", off + 1,
                    "KwireTestRequest.Leader.tagged_fields", True)
        data, off = self.mutated(1, "tagged_fields",
                                 b"\x01\x06\x05\x00\x00\x00\x07\x00")
        self.assertEqual(self.dec.frame(data, "request")["body"]["Leader"],
                         {"Id": 7})
        data, off = self.mutated(1, "tagged_fields", b"\x01\x07\x05\x00")
        self.expect(data, "truncated", off + 1, path, False)
        data, off = self.mutated(1, "tagged_fields", b"\x05\x01\x00")
        self.expect(data, "count_too_large", off, path, False)

    def test_trailing_bytes(self):
        full = _frame(1, _pieces(True) + [("x", b"\x00")])
        self.expect(full, "trailing_bytes", len(full) - 1, "", False)

    def test_api_key_and_version(self):
        full = _frame(1, _pieces(True))
        self.expect(full[:4] + b"\x03\xe7" + full[6:], "unknown_api_key", 4,
                    "RequestHeader.RequestApiKey", False)
        self.expect(full[:6] + b"\x00\x05" + full[8:], "unsupported_version",
                    6, "RequestHeader.RequestApiVersion", False)

    def test_invalid_utf8(self):
        data, off = self.mutated(1, "Name", b"\x03h\xff")
        self.expect(data, "invalid_utf8", off + 2, "KwireTestRequest.Name",
                    True)
        data, off = self.mutated(0, "Name", b"\x00\x03\xed\xa0\x80")
        self.expect(data, "invalid_utf8", off + 2, "KwireTestRequest.Name",
                    True)  # a surrogate is not UTF-8

    def test_struct_marker(self):
        data, off = self.mutated(1, "Sub", b"\x02\x00\x00\x00\x07\x00")
        self.expect(data, "invalid_value", off, "KwireTestRequest.Sub", True)
        data, off = self.mutated(1, "Sub", b"\xfe")
        self.expect(data, "invalid_value", off, "KwireTestRequest.Sub", True)

    def test_frame_size(self):
        full = _frame(1, _pieces(True))
        self.expect(b"\x00\x00\x00\x01" + full[4:], "invalid_frame_size", 0,
                    "Frame.size", False)


class RecordBatchTest(unittest.TestCase):
    def test_batch_with_records(self):
        import struct as st
        batch = ref.record_batch(
            [(0, b"k", b"v", []), (5, None, b"", [(b"h", None)])],
            base_timestamp=1000)
        self.assertEqual(st.unpack(">i", batch[8:12])[0], len(batch) - 12)
        self.assertEqual(batch[16], 2)
        self.assertEqual(st.unpack(">I", batch[17:21])[0],
                         ref.crc32c(batch[21:]))
        self.assertEqual(st.unpack(">i", batch[23:27])[0], 1)  # lastOffsetDelta
        self.assertEqual(st.unpack(">q", batch[35:43])[0], 1005)  # maxTimestamp
        self.assertEqual(st.unpack(">i", batch[57:61])[0], 2)
        # record 0: length 8 (zigzag 0x10), attributes 0, tsDelta 0,
        # offsetDelta 0, key len 1 (zigzag 2) "k", value len 1 "v", 0 headers
        self.assertEqual(batch[61:70].hex(), "10" "00" "00" "00" "026b"
                         "0276" "00")
        self.assertEqual(ref.record_batch([]), ref.empty_record_batch())


class RecordsFormatsTest(unittest.TestCase):
    """The compressed formats of the records set, by their specifications."""

    def test_xxh32(self):
        self.assertEqual(ref.xxh32(b""), 0x02CC5D05)
        self.assertEqual(ref.xxh32(b"abc"), 0x32D153FF)

    def test_lz4_frame_as_kafka_writes_it(self):
        # magic, FLG 0x60, BD 0x40, HC 0x82 (the header every Kafka LZ4
        # batch starts with), one block flagged uncompressed, end mark
        self.assertEqual(ref.lz4_frame(b"abc").hex(),
                         "04224d18" "6040" "82" "03000080" "616263"
                         "00000000")
        self.assertEqual(ref.lz4_decompress(ref.lz4_frame(b"abc")), b"abc")
        # a compressed block: literal "ab", then a match of 6 at offset 2,
        # then the last literals "c"
        block = bytes([0x22]) + b"ab" + b"\x02\x00" + bytes([0x10]) + b"c"
        frame = ref.lz4_frame(b"")[:7] + len(block).to_bytes(4, "little") \
            + block + b"\x00" * 4
        self.assertEqual(ref.lz4_decompress(frame), b"abababab" + b"c")
        with self.assertRaises(ref.CompressionFault) as cm:
            ref.lz4_decompress(ref.lz4_frame(b"abc")[:-2])
        self.assertEqual(cm.exception.pos, 16)  # the stream's end

    def test_snappy(self):
        # preamble 5, one literal element of 5 bytes (tag (5-1)<<2)
        self.assertEqual(ref.snappy_literals(b"hello").hex(),
                         "0510" + b"hello".hex())
        # 20 bytes: 16 in a tag-length literal, 4 in a second one
        self.assertEqual(ref.snappy_literals(b"x" * 20)[:2].hex(), "143c")
        # 100 bytes: the second literal (84) has its length in one byte
        self.assertEqual(ref.snappy_literals(b"y" * 100)[18:20].hex(), "f053")
        self.assertEqual(ref.snappy_xerial(b"hi").hex(),
                         "82534e4150505900" "00000001" "00000001"
                         "00000004" "0204" + b"hi".hex())
        # a copy with a 2-byte offset: literal "ab", copy 6 from 2 back
        self.assertEqual(ref.snappy_decompress(bytes.fromhex(
            "08" "04" "6162" "16" "0200")), b"abababab")
        with self.assertRaises(ref.CompressionFault):
            ref.snappy_decompress(bytes.fromhex("09" "04" "6162" "16" "0200"))

    def test_zstd_raw_blocks(self):
        # magic, FHD 0, window descriptor 0x58, last Raw_Block of 3 bytes
        self.assertEqual(ref.zstd_frame(b"abc").hex(),
                         "28b52ffd" "00" "58" "190000" "616263")
        self.assertEqual(ref.zstd_decompress(ref.zstd_frame(b"abc")), b"abc")
        # an RLE block (type 1) of 4 bytes of "z", single-segment, size 4
        self.assertEqual(ref.zstd_decompress(bytes.fromhex(
            "28b52ffd" "20" "04" "230000" "7a")), b"zzzz")
        with self.assertRaises(ref.CompressionFault) as cm:
            ref.zstd_decompress(bytes.fromhex("28b52ffd" "00" "58" "150000"))
        self.assertEqual(cm.exception.pos, 6)  # its block header: compressed

    def test_gzip(self):
        # a fixed-Huffman block of no literals is 03 00 (BFINAL, BTYPE 01,
        # end of block)
        self.assertEqual(ref.deflate_literals(b"").hex(), "0300")
        for stored in (False, True):
            data = bytes(range(256)) * 3
            z = ref.gzip_compress(data, stored)
            self.assertEqual(z[:10].hex(), "1f8b0800000000000000")
            self.assertEqual(ref.zlib.decompress(z, 31), data)
            self.assertEqual(ref.gzip_decompress(z + z), data + data)
        with self.assertRaises(ref.CompressionFault) as cm:
            ref.gzip_decompress(b"\x1f\x8c" + z[2:])
        self.assertEqual(cm.exception.pos, 0)


class ExternalToolsTest(unittest.TestCase):
    """Where the gzip, lz4 and zstd command-line tools are installed: they
    read the tool's streams back, and the tool reads lz4's real compressed
    frames (sequences, linked blocks, checksums)."""

    DATA = bytes(range(256)) * 70 + b"kwire records " * 300

    def tool(self, *argv, data):
        import shutil
        import subprocess
        if shutil.which(argv[0]) is None:
            self.skipTest("%s not installed" % argv[0])
        return subprocess.run(argv, input=data, capture_output=True,
                              check=True).stdout

    def test_tools_read_the_reference_streams(self):
        stored = self.DATA[:60000]  # one stored block holds < 64 KiB
        for argv, z, want in (
                (("gzip", "-dc"), ref.gzip_compress(self.DATA), self.DATA),
                (("gzip", "-dc"), ref.gzip_compress(stored, True), stored),
                (("lz4", "-dc"), ref.lz4_frame(self.DATA), self.DATA),
                (("zstd", "-dc"), ref.zstd_frame(self.DATA), self.DATA)):
            with self.subTest(argv=argv):
                self.assertEqual(self.tool(*argv, data=z), want)

    def test_reference_reads_lz4_frames(self):
        for opts in ((), ("-BD",), ("-BX", "--content-size"), ("-B4",)):
            with self.subTest(opts=opts):
                z = self.tool("lz4", "-c", "-q", *opts, data=self.DATA)
                self.assertEqual(ref.lz4_decompress(z), self.DATA)


class RecordsCheckerTest(unittest.TestCase):
    """The reference validator of records fields on hand-built batches."""

    def check(self, data, policy=("whole", 3, 7), version=12):
        try:
            ref.RecordsChecker(policy, version).check(data, 100, "R")
        except ref.DecodeError as exc:
            return exc.kind, exc.offset, exc.path
        return None

    def batch(self, **kw):
        return ref.v2_batch([{"ts": 5, "key": b"k", "value": b"v" * 20,
                              "headers": [(b"h", None)]}], **kw)

    def test_known_batch(self):
        b = ref.v2_batch([{"key": b"k", "value": b"v"}])
        # record: length 8, attributes 0, tsDelta 0, offsetDelta 0,
        # key 1 "k", value 1 "v", no headers
        self.assertEqual(b[61:].hex(), "10" "00" "00" "00" "026b" "0276" "00")
        self.assertEqual(int.from_bytes(b[17:21], "big"), ref.crc32c(b[21:]))
        self.assertEqual(b[43:57].hex(), "ff" * 14)  # producer -1, -1, -1
        self.assertIsNone(self.check(b))

    def test_faults(self):
        good = self.batch()
        self.assertIsNone(self.check(good))
        flipped = good[:-1] + bytes([good[-1] ^ 1])
        self.assertEqual(self.check(flipped),
                         ("crc_mismatch", 117, "R.Batch[0]"))
        self.assertEqual(self.check(self.batch(count=2)),
                         ("corrupt_records", 100 + len(good),
                          "R.Batch[0].Record[1]"))
        self.assertEqual(self.check(self.batch(codec=5)),
                         ("corrupt_records", 121, "R.Batch[0]"))
        self.assertEqual(self.check(good[:-3]),
                         ("corrupt_records", 100, "R.Batch[0]"))
        self.assertIsNone(self.check(good + good[:-3], ("partial", None,
                                                        None)))
        self.assertEqual(self.check(b""), ("records_not_allowed", 100, "R"))
        self.assertEqual(self.check(good + good),
                         ("records_not_allowed", 100 + len(good),
                          "R.Batch[1]"))
        self.assertIsNone(self.check(good + good, version=2))
        legacy = ref.legacy_message(0, 1, None, b"v")
        self.assertIsNone(self.check(legacy, version=2))
        self.assertEqual(self.check(legacy),
                         ("records_not_allowed", 116, "R.Batch[0]"))
        zstd = self.batch(codec=4)
        self.assertIsNone(self.check(zstd, version=7))
        self.assertEqual(self.check(zstd, version=6),
                         ("records_not_allowed", 121, "R.Batch[0]"))

    def test_compressed(self):
        for codec in (1, 2, 3, 4):
            self.assertIsNone(self.check(self.batch(codec=codec)), codec)
        # a fault inside the decompressed records: at the payload's first
        # byte, with the record's path
        bad = ref.v2_batch([{"key": b"k", "length": 40}], codec=3)
        self.assertEqual(self.check(bad), ("corrupt_records", 161,
                                           "R.Batch[0].Record[0]"))
        # a broken stream: at the fault's byte in the stream
        cut = self.batch(codec=4, section_fn=lambda p: ref.zstd_frame(p)[:-1])
        self.assertEqual(self.check(cut)[:2],
                         ("compression_error", 100 + len(cut)))

    def test_control_records(self):
        commit = ref.v2_batch([ref.control_record(True, 3)],
                              attributes=ref.ATTR_TRANSACTIONAL
                              | ref.ATTR_CONTROL)
        self.assertIsNone(self.check(commit))
        self.assertEqual(ref.control_record(False)["key"].hex(), "00000000")
        self.assertEqual(ref.control_record(True, 3)["value"].hex(),
                         "000000000003")
        null_key = ref.v2_batch([dict(ref.control_record(True), key=None)],
                                attributes=ref.ATTR_CONTROL)
        self.assertEqual(self.check(null_key),
                         ("corrupt_records", 161, "R.Batch[0].Record[0]"))

    def test_record_fields(self):
        r = {"key": b"key", "value": b"v", "headers": [(b"h", b"x")]}
        cases = [
            (dict(r, raw_key_len=ref.varint_bytes(-2)), "invalid_length",
             "R.Batch[0].Record[0].Key"),
            (dict(r, raw_key_len=ref.varint_bytes(50)), "corrupt_records",
             "R.Batch[0].Record[0].Key"),
            (dict(r, tail=b"\x00"), "corrupt_records", "R.Batch[0].Record[0]"),
            (dict(r, header_count=9), "corrupt_records",
             "R.Batch[0].Record[0].Headers"),
            (dict(r, raw_header_key_len=b"\x01"), "invalid_length",
             "R.Batch[0].Record[0].Headers[0].Key"),
            (dict(r, headers=[(b"\xc0\x80", None)]), "invalid_utf8",
             "R.Batch[0].Record[0].Headers[0].Key"),
            (dict(r, raw_key_len=b"\x86\x00"), "varint_non_canonical",
             "R.Batch[0].Record[0].Key"),
        ]
        for rec, kind, path in cases:
            got = self.check(ref.v2_batch([rec]))
            self.assertEqual(got[0::2], (kind, path), rec)


# ---------------------------------------------------------------------------
# The JSON Lines files.

JSONL_COUNTS = {"minimal.jsonl": 618, "minimal-removed.jsonl": 118,
                "seeds.jsonl": 4, "rich.jsonl": 736, "records.jsonl": 80}
RECORDS_KINDS = {"corrupt_records", "crc_mismatch", "compression_error",
                 "records_not_allowed"}
ERROR_KINDS = {
    "truncated", "invalid_length", "unexpected_null", "count_too_large",
    "invalid_bool", "invalid_value", "varint_too_long", "varint_overflow",
    "varint_non_canonical", "invalid_utf8", "tag_out_of_order",
    "tag_duplicate", "tag_size_mismatch", "trailing_bytes",
    "unknown_api_key", "unsupported_version", "invalid_frame_size"} | \
    RECORDS_KINDS


def read_jsonl(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as fh:
        text = fh.read()
    return text, [ref.json.loads(line) for line in text.split("\n") if line]


class JsonlFilesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = {}
        for name in list(JSONL_COUNTS) + ["negative.jsonl"]:
            cls.files[name] = read_jsonl(name)

    def test_counts_and_members(self):
        ids = set()
        for name, (text, recs) in self.files.items():
            self.assertTrue(text.endswith("\n") and "\r" not in text)
            if name in JSONL_COUNTS:
                self.assertEqual(len(recs), JSONL_COUNTS[name], name)
            for r in recs:
                self.assertEqual(r["format"], 1)
                self.assertEqual(r["set"], name[:-len(".jsonl")])
                self.assertNotIn(r["id"], ids)
                ids.add(r["id"])
                frame = bytes.fromhex(r["frame"])
                self.assertEqual(int.from_bytes(frame[:4], "big"),
                                 len(frame) - 4, r["id"])
                if r["expect"] == "accept":
                    self.assertIn("header", r)
                    self.assertIn("body", r)
                    if r["direction"] == "request":
                        self.assertEqual(
                            r["header"]["RequestApiKey"], r["api_key"])
                        self.assertEqual(
                            int.from_bytes(frame[4:6], "big"), r["api_key"])
                elif r["expect"] == "refuse":
                    self.assertEqual(r["direction"], "request")
                    self.assertIn("header", r)
                    self.assertIn("body", r)
                    self.assertNotIn("error", r)
                    self.assertTrue(r["refusals"])
                    for x in r["refusals"]:
                        self.assertLessEqual(
                            {"error", "error_code", "kind", "offset", "part",
                             "path"}, set(x))
                        self.assertLessEqual(set(x), {
                            "error", "error_code", "kind", "offset", "part",
                            "path", "whole_request"})
                        self.assertIn(x["kind"], ERROR_KINDS)
                        self.assertTrue(x["path"].startswith(x["part"]))
                    self.assertIsInstance(r["lenient"], bool)
                    self.assertTrue(r["mutation"])
                else:
                    self.assertEqual(r["expect"], "reject")
                    self.assertIn(r["error"]["kind"], ERROR_KINDS)
                    self.assertIsInstance(r["lenient"], bool)
                    self.assertTrue(r["mutation"])

    def test_same_frames_as_text_files(self):
        for txt, js in (("minimal.txt", "minimal.jsonl"),
                        ("minimal-removed.txt", "minimal-removed.jsonl")):
            rows = [(r[0], r[2], r[3], r[5])
                    for r in ref.parse_vector_lines(read(txt))]
            recs = [(r["api_key"], r["version"], r["direction"], r["frame"])
                    for r in self.files[js][1]]
            self.assertEqual(rows, recs)
        seeds = [s["hex"] for s in ref.parse_seeds(read("seeds.txt"))]
        self.assertEqual(seeds, [r["frame"]
                                 for r in self.files["seeds.jsonl"][1]])

    def test_rich_covers_minimal_cases(self):
        keys = lambda n: sorted((r["api_key"], r["version"], r["direction"])
                                for r in self.files[n][1])
        self.assertEqual(keys("rich.jsonl"),
                         sorted(keys("minimal.jsonl")
                                + keys("minimal-removed.jsonl")))

    def test_negative_kinds(self):
        recs = self.files["negative.jsonl"][1]
        kinds = {r["error"]["kind"] for r in recs}
        self.assertEqual(kinds, ERROR_KINDS - {"invalid_frame_size"}
                         - RECORDS_KINDS)
        cases = {(r["api_key"], r["version"], r["direction"]) for r in recs}
        self.assertEqual(len(cases), 736)
        lenient = {r["error"]["kind"] for r in recs if r["lenient"]}
        self.assertNotIn("trailing_bytes", lenient)
        self.assertNotIn("varint_too_long", lenient)
        self.assertIn("varint_non_canonical", lenient)
        for r in recs:
            frame = bytes.fromhex(r["frame"])
            self.assertLessEqual(r["error"]["offset"], len(frame), r["id"])

    def test_records_set(self):
        recs = self.files["records.jsonl"][1]
        accepts = [r for r in recs if r["expect"] == "accept"]
        rejects = [r for r in recs if r["expect"] == "reject"]
        refuses = [r for r in recs if r["expect"] == "refuse"]
        self.assertEqual((len(accepts), len(rejects), len(refuses)),
                         (36, 8, 36))
        self.assertEqual({r["api_name"] for r in accepts},
                         {"Produce", "Fetch", "ShareFetch"})
        # A fault in a Produce request's records is the broker's to refuse,
        # per partition (the frame reads); one in a response's fails it.
        self.assertEqual({r["api_name"] for r in refuses}, {"Produce"})
        self.assertEqual({r["api_name"] for r in rejects},
                         {"Fetch"})
        counts, codes = {}, {}
        for r in rejects + refuses:
            kind = (r["error"] if r["expect"] == "reject"
                    else r["refusals"][0])["kind"]
            counts[kind] = counts.get(kind, 0) + 1
            src = r["mutation"].split(":")[0]
            self.assertIn(src, {a["id"] for a in accepts}, r["id"])
        for r in rejects:
            # Java's protocol decoder leaves records unparsed (MemoryRecords)
            self.assertTrue(r["lenient"], r["id"])
            self.assertIn(".Records", r["error"]["path"])
        for r in refuses:
            self.assertEqual(len(r["refusals"]), 1, r["id"])
            x = r["refusals"][0]
            self.assertEqual(
                x["part"], "ProduceRequest.TopicData[0].PartitionData[0]"
                ".Records")
            codes[(x["kind"], x["error_code"])] = \
                codes.get((x["kind"], x["error_code"]), 0) + 1
        self.assertEqual(counts, {
            "corrupt_records": 24, "crc_mismatch": 2, "compression_error": 6,
            "records_not_allowed": 5, "invalid_length": 4,
            "invalid_utf8": 1, "varint_non_canonical": 1,
            "varint_too_long": 1})
        # What Kafka 4.4's broker answers (checked against a real broker and
        # the Apache Kafka testee: its FAILURES.md, "Refusals").
        self.assertEqual(codes, {
            ("records_not_allowed", 87): 3, ("records_not_allowed", 76): 2,
            ("corrupt_records", 87): 12, ("corrupt_records", 2): 3,
            ("corrupt_records", -1): 3, ("crc_mismatch", 2): 1,
            ("compression_error", -1): 6, ("invalid_length", 87): 4,
            ("varint_non_canonical", 87): 1, ("varint_too_long", 87): 1})
        by_id = {r["id"].split("/", 2)[2]: r for r in refuses}
        # Only the first batch's magic is probed for the whole request.
        self.assertEqual(
            [i for i, r in sorted(by_id.items())
             if r["refusals"][0].get("whole_request")],
            ["v12/request/magic-3"])
        # Where the broker appends all the same, the vector is lenient.
        self.assertEqual(
            sorted(i for i, r in by_id.items() if r["lenient"]),
            ["v12/request/key-length-negative",
             "v12/request/varint-non-canonical",
             "v2/request/partial-batch", "v2/request/zstd-in-v2",
             "v9/request/partial-after-batch",
             "v9/request/record-length-beyond-batch"])
        self.assertEqual(by_id["v12/request/partial-batch"]["refusals"][0]
                         ["error_code"], 87)  # alone: no batch at all
        # zstd before v7 (KIP-110): 76, which Java checks from v3 only (Apache
        # Kafka N6: below v3 Kafka appends it).
        for i in ("v6/request/zstd-in-v6", "v2/request/zstd-in-v2"):
            self.assertEqual(by_id[i]["refusals"][0]["error_code"], 76, i)
        self.assertFalse(by_id["v6/request/zstd-in-v6"]["lenient"])
        # every codec is carried, in Produce and in Fetch
        codecs = set()
        for r in accepts:
            if r["api_name"] == "Fetch" and r["version"] == 11:
                frame = bytes.fromhex(r["frame"])
                codecs |= {frame[i + 22] & 7 for i in
                           range(len(frame) - 61) if frame[i + 16] == 2
                           and ref.crc32c(frame[i + 21:i + 12 + int.from_bytes(
                               frame[i + 8:i + 12], "big")]) ==
                           int.from_bytes(frame[i + 17:i + 21], "big")}
        self.assertEqual(codecs, {2, 3, 4})

    def test_every_records_field_has_a_policy(self):
        sets = releases(self)
        found = set()

        def walk(m, fields):
            for f in fields:
                if f["type"] == "records":
                    found.add((m.name, f["name"]))
                elif f["type"].lstrip("[]") not in ref.FIXED_SIZES and \
                        not ref.is_primitive(f["type"].lstrip("[]")):
                    walk(m, m.struct_fields(f, f["type"].lstrip("[]")))
        for s in sets[:sets.index(next(
                x for x in sets if x.label.endswith(" 3.9.2"))) + 1]:
            for m in s.messages.values():
                walk(m, m.fields)
        self.assertEqual(found, set(ref.RECORDS_POLICY))

    def test_decoder_agrees_with_every_vector(self):
        by_label = {s.label: s for s in releases(self)}
        decs = {}
        for name, (_, recs) in self.files.items():
            for r in recs:
                s = by_label[r["source"]]
                dec = decs.setdefault(id(s), ref.Decoder(s))
                frame = bytes.fromhex(r["frame"])
                if r["expect"] == "accept":
                    got = dec.frame(frame, r["direction"], r["api_key"],
                                    r["version"])
                    self.assertEqual(ref.canonical_json(got["body"]),
                                     ref.canonical_json(r["body"]), r["id"])
                    self.assertEqual(got["header_version"],
                                     r["header_version"])
                elif r["expect"] == "refuse":
                    broker = ref.Decoder(s, broker=True)
                    got = broker.frame(frame, r["direction"], r["api_key"],
                                       r["version"])
                    self.assertEqual(ref.canonical_json(got["body"]),
                                     ref.canonical_json(r["body"]), r["id"])
                    self.assertEqual(broker.refusals, r["refusals"], r["id"])
                    with self.assertRaises(ref.DecodeError) as cm:
                        dec.frame(frame, r["direction"], r["api_key"],
                                  r["version"])
                    self.assertEqual(cm.exception.as_json(),
                                     {k: r["refusals"][0][k] for k in
                                      ("kind", "offset", "path")}, r["id"])
                else:
                    with self.assertRaises(ref.DecodeError) as cm:
                        dec.frame(frame, r["direction"], r["api_key"],
                                  r["version"])
                    self.assertEqual(cm.exception.as_json(), r["error"],
                                     r["id"])


if __name__ == "__main__":
    unittest.main()
