"""Tests for tools/generate.py: the generated headers a person reads (stdlib unittest).

Run from the project root:
    python3 -m unittest discover -s tools -p '*_test.py'

Rows are C++20 designated initialisers that leave out FieldSpec's and MessageSpec's
defaults (codec/schema/spec.h), and every member has a doc comment with the field's
Kafka name, type, versions, nullability, tag and non-zero default (issue 37 item 6).
"""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFS = os.path.join(ROOT, "codec", "defs")
sys.path.insert(0, HERE)

import generate  # noqa: E402
import kdef  # noqa: E402

_MSGS = None


def msgs():
    global _MSGS
    if _MSGS is None:
        _MSGS = kdef.load_dir(DEFS)
    return _MSGS


def header(name):
    return generate.MessageGen(msgs()[name]).header()


class HeaderTest(unittest.TestCase):
    def test_heartbeat_request_reads_as_named_rows(self):
        h = header("HeartbeatRequest")
        lines = h.splitlines()
        self.assertEqual(lines[1], "// HeartbeatRequest (API key 12, request): versions 0-4, "
                                   "flexible 4+.")
        self.assertIn(
            '  static constexpr MessageSpec kMessage = {.name = "HeartbeatRequest", '
            '.api_key = 12, .kind = MessageKind::kRequest, .valid = {0, 4}, '
            '.flexible = {4, 32767}};', lines)
        self.assertIn('      {.name = "GroupId", .type_name = "string", '
                      '.type = FieldType::kString},', lines)
        self.assertIn('      {.name = "GroupInstanceId", .type_name = "string", '
                      '.type = FieldType::kString, .versions = {3, 32767}, '
                      '.nullable = {3, 32767}},', lines)
        i = lines.index("  std::optional<std::string> group_instance_id{};")
        self.assertEqual(lines[i - 1],
                         "  /// GroupInstanceId: string, v3+, nullable v3+, default null.")
        i = lines.index("  int32_t generation_id{};")
        self.assertEqual(lines[i - 1], "  /// GenerationId: int32, v0+.")

    def test_tagged_field(self):
        lines = header("FetchRequest").splitlines()
        self.assertIn('      {.name = "ClusterId", .type_name = "string", '
                      '.type = FieldType::kString, .versions = {12, 32767}, '
                      '.nullable = {12, 32767}, .tagged = {12, 32767}, .tag = 0, '
                      '.ignorable = true},', lines)
        self.assertIn("  /// ClusterId: string, v12+, nullable v12+, tag 0, tagged v12+, "
                      "default null, ignorable.", lines)
        # A removed-versions note and the flexible versions open the file.
        self.assertEqual(lines[1], "// FetchRequest (API key 1, request): versions 0-18 "
                                   "(0-3 removed; last in Kafka 3.9), flexible 12+.")

    def test_arrays_name_their_element_and_defaults_show(self):
        h = header("FetchRequest")
        self.assertIn('{.name = "Topics", .type_name = "[]FetchTopic", '
                      '.type = FieldType::kArray, .element = FieldType::kStruct}', h)
        self.assertIn("/// Topics: []FetchTopic, v0+.", h)
        self.assertIn("/// CurrentLeaderEpoch: int32, v9+, default -1, ignorable.", h)
        self.assertIn("/// Topic: string, v0-12, ignorable.", h)
        # A zero default is the type's own: not repeated.
        for line in h.splitlines():
            self.assertNotRegex(line, r"default (0|0\.0|false)[,.]")

    def test_header_flexible_override_and_no_api_key(self):
        lines = header("RequestHeader").splitlines()
        self.assertIn('  static constexpr MessageSpec kMessage = {.name = "RequestHeader", '
                      '.kind = MessageKind::kHeader, .valid = {0, 2}, '
                      '.flexible = {2, 32767}};', lines)
        self.assertIn("  /// ClientId: string, v1+, nullable v1+, never compact, ignorable.",
                      lines)
        self.assertTrue(any(".flexible = kNoVersions, .ignorable = true}" in l for l in lines))

    def test_records_policy_and_sensitive(self):
        h = header("ProduceRequest")
        self.assertIn(".records = {.layout = RecordsLayout::kWholeBatches, "
                      ".one_v2_batch_from = 3, .zstd_from = 7, .source = "
                      '"ProduceRequest.validateRecords (Java), KIP-98, KIP-110"}', h)
        h = header("FetchSnapshotResponse")
        self.assertIn(".records = {.layout = RecordsLayout::kUnaligned, .source = "
                      '"KIP-630 (FetchSnapshot): raw snapshot bytes"}}', h)
        h = header("SaslAuthenticateRequest")
        self.assertIn(".type = FieldType::kBytes, .sensitive = true}", h)
        self.assertIn("/// AuthBytes: bytes, v0+, sensitive.", h)
        self.assertIn(".has_sensitive = true};", h)

    def test_every_member_of_every_message_has_its_doc_comment(self):
        member = re.compile(r"^  (?!static|friend|using|template|///)[\w:<>, ]+ (\w+)"
                            r"(\{.*\}| = .*);$")
        checked = 0
        for name in msgs():
            m = msgs()[name]
            gen = generate.MessageGen(m)
            lines = gen.header().splitlines()
            fields = {}
            for _, f in m.walk():
                fields.setdefault(generate.snake(f.name), []).append(f)
            for i, line in enumerate(lines):
                hit = member.match(line)
                if not hit or hit.group(1) == "unknown_tagged_fields":
                    continue
                doc = lines[i - 1]

                def documents(f):
                    """True when `doc` gives f's name, type, versions, nullability, tag."""
                    if not doc.startswith("  /// %s: %s, v%s" % (f.name, f.type, f.versions)):
                        return False
                    if not f.nullable.empty and ", nullable v%s" % f.nullable not in doc:
                        return False
                    return f.tag is None or ", tag %d, tagged v%s" % (f.tag, f.tagged) in doc

                self.assertTrue(any(documents(f) for f in fields[hit.group(1)]),
                                "%s: %s after %s" % (name, line, doc))
                checked += 1
        self.assertGreater(checked, 1700)  # 1,767 today

    def test_rows_are_designated_initialisers(self):
        for name in ("MetadataResponse", "OffsetCommitRequest", "ApiVersionsResponse"):
            for line in header(name).splitlines():
                if line.startswith("      {"):
                    self.assertTrue(line.startswith('      {.name = "'), line)
                    self.assertNotIn("kAllVersions", line.split(".records")[0]
                                     .replace(".nullable = kAllVersions", "")
                                     .replace(".tagged = kAllVersions", ""))


if __name__ == "__main__":
    unittest.main()
