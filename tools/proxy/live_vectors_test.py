#!/usr/bin/env python3
"""Tests of tools/proxy/live_vectors.py's sampling (pick): which frames of a live run's
proxy logs become `live` vectors. Frames are taken from the committed vector files, so
they are real frames the reference decoder reads; the pinned kafka-clients jars are
needed (the test skips without them, or fails with KWIRE_REQUIRE_KAFKA_JARS set).

    python3 -m unittest tools/proxy/live_vectors_test.py
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import live_vectors as lv  # noqa: E402
import conformance_ref as ref  # noqa: E402

VECTORS = os.path.join(ROOT, "conformance", "vectors")


def vector(name, vid):
    with open(os.path.join(VECTORS, name)) as f:
        for line in f:
            r = json.loads(line)
            if r["id"] == vid:
                return r
    raise KeyError(vid)


def report(r, verdict="ok"):
    """A `kwire proxy --frames` log line for vector r."""
    return {"connection": 1, "direction": r["direction"], "api_key": r["api_key"],
            "api": r["api_name"], "version": r["version"], "correlation_id": 0,
            "size": len(r["frame"]) // 2, "verdict": verdict, "frame": r["frame"]}


class Pick(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sets = ref.release_sets(download=False)
        cls.schemas = sets[0] if sets else None
        # Metadata v12 requests of three sizes: 23, 37 and 111 bytes.
        cls.small = vector("rich.jsonl", "rich/Metadata/v12/request")
        cls.mid = vector("minimal.jsonl", "minimal/Metadata/v12/request")
        cls.big = vector("java.jsonl", "java/Metadata/v12/request/full")
        cls.api = vector("rich.jsonl", "rich/ApiVersions/v3/request")

    def setUp(self):
        if self.schemas is None:
            import kafka_defs
            kafka_defs.without_jars(self)
        self.dir = tempfile.mkdtemp(prefix="live_vectors_test.")
        self.addCleanup(shutil.rmtree, self.dir)

    def log(self, client, listener, lines):
        os.makedirs(os.path.join(self.dir, client), exist_ok=True)
        with open(os.path.join(self.dir, client, f"{listener}.jsonl"), "w") as f:
            for x in lines:
                f.write(json.dumps(x) + "\n")

    def size(self, r):
        return len(r["frame"]) // 2

    def test_frames_are_of_three_sizes(self):
        self.assertLess(self.size(self.small), self.size(self.mid))
        self.assertLess(self.size(self.mid), self.size(self.big))

    def test_the_largest_frame_of_each_client_key_version_direction(self):
        self.log("java", "plaintext", [{"event": "listen"}, report(self.small), report(self.big),
                                       report(self.mid)])
        self.log("kcat", "plaintext", [report(self.small)])
        kept, _, unread = lv.pick(self.schemas, self.dir, ["java", "kcat"], 1, 1 << 20)
        got = [(c, l, r["frame"]) for c, l, r, _ in kept]
        self.assertEqual(got, [("java", "plaintext", self.big["frame"]),
                               ("kcat", "plaintext", self.small["frame"])])
        self.assertEqual(unread, [])
        # The reference decoding comes along: the vector's own header and body.
        self.assertEqual(kept[0][3]["body"], self.big["body"])
        self.assertEqual(kept[0][3]["header"], self.big["header"])

    def test_max_bytes_and_the_smallest_when_none_is_that_small(self):
        self.log("java", "plaintext", [report(self.small), report(self.big), report(self.mid)])
        kept, _, _ = lv.pick(self.schemas, self.dir, ["java"], 1, self.size(self.big) - 1)
        self.assertEqual([r["frame"] for _, _, r, _ in kept], [self.mid["frame"]])
        kept, _, _ = lv.pick(self.schemas, self.dir, ["java"], 1, self.size(self.small) - 1)
        self.assertEqual([r["frame"] for _, _, r, _ in kept], [self.small["frame"]])

    def test_per_key_takes_the_largest_first(self):
        self.log("java", "plaintext", [report(self.small), report(self.big), report(self.mid)])
        kept, _, _ = lv.pick(self.schemas, self.dir, ["java"], 2, 1 << 20)
        self.assertEqual([r["frame"] for _, _, r, _ in kept], [self.big["frame"], self.mid["frame"]])

    def test_equal_sizes_the_first_in_log_order_plaintext_before_sasl(self):
        self.log("java", "sasl", [report(self.big)])
        self.log("java", "plaintext", [report(self.big)])
        kept, _, _ = lv.pick(self.schemas, self.dir, ["java"], 1, 1 << 20)
        self.assertEqual([(c, l) for c, l, _, _ in kept], [("java", "plaintext")])

    def test_only_frames_that_conformed_and_clients_asked_for(self):
        self.log("java", "plaintext", [report(self.big, verdict="rejected"), report(self.small),
                                       dict(report(self.mid), api_key=-1),
                                       {k: v for k, v in report(self.mid).items() if k != "frame"}])
        self.log("franz-go", "plaintext", [report(self.big)])
        kept, _, _ = lv.pick(self.schemas, self.dir, ["java"], 1, 1 << 20)
        self.assertEqual([(c, r["frame"]) for c, _, r, _ in kept], [("java", self.small["frame"])])

    def test_the_client_software_its_api_versions_requests_announce(self):
        self.log("kcat", "plaintext", [report(self.api), report(self.small)])
        _, announced, _ = lv.pick(self.schemas, self.dir, ["kcat"], 1, 1 << 20)
        body = self.api["body"]
        self.assertEqual(announced,
                         {"kcat": {f"{body['ClientSoftwareName']} {body['ClientSoftwareVersion']}"}})

    def test_a_frame_the_reference_rejects_stops_the_run(self):
        bad = dict(self.small)
        bad["frame"] = self.small["frame"] + "00"  # a trailing byte (size prefix not fixed)
        self.log("java", "plaintext", [report(bad)])
        with self.assertRaises(SystemExit) as e:
            lv.pick(self.schemas, self.dir, ["java"], 1, 1 << 20)
        self.assertIn("the reference decoder rejects a frame", str(e.exception))


if __name__ == "__main__":
    unittest.main()
