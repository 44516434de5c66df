#!/usr/bin/env python3
"""Tests of tools/conformance_ref.py and the committed conformance vectors.

Run from the project root:
  python3 -m unittest discover -s tools -p 'conformance_ref_test.py'

The --check cases need the Kafka definition directories:
  KWIRE_KAFKA_SCHEMAS=<current set>  KWIRE_KAFKA_SCHEMAS_PRE40=<pre-4.0 set>
Without them those cases are skipped.
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
        d = os.environ.get("KWIRE_KAFKA_SCHEMAS")
        if not d:
            self.skipTest("KWIRE_KAFKA_SCHEMAS not set")
        seeds, problems = ref.verify_seeds(ref.SchemaSet(d),
                                           os.path.join(VECTORS, "seeds.txt"))
        self.assertEqual(len(seeds), 4)
        self.assertEqual(problems, [])


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

    def test_minimal_608(self):
        rows = self.check_rows("minimal.txt")
        self.assertEqual(len(rows), 608)
        self.assertEqual(sum(r[3] == "request" for r in rows), 304)

    def test_minimal_header(self):
        text = read("minimal.txt")
        self.assertIn("# Regenerate: python3 tools/conformance_ref.py", text)
        self.assertIn("apache/kafka trunk 2024-12-27", text)

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
    def test_check_current(self):
        d = os.environ.get("KWIRE_KAFKA_SCHEMAS")
        if not d:
            self.skipTest("KWIRE_KAFKA_SCHEMAS not set")
        rc, log = run_main(["--schemas", d, "--out", VECTORS, "--check"])
        self.assertEqual(rc, 0, log)

    def test_check_with_removed(self):
        d = os.environ.get("KWIRE_KAFKA_SCHEMAS")
        old = os.environ.get("KWIRE_KAFKA_SCHEMAS_PRE40")
        if not d or not old:
            self.skipTest("KWIRE_KAFKA_SCHEMAS / KWIRE_KAFKA_SCHEMAS_PRE40 "
                          "not set")
        rc, log = run_main(["--schemas", d, "--removed-from", old,
                            "--out", VECTORS, "--check"])
        self.assertEqual(rc, 0, log)


if __name__ == "__main__":
    unittest.main()
