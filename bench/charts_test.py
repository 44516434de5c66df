"""Tests of bench/charts.py and the commands that write its charts (ctest bench.charts_python).

Needs matplotlib (python3-matplotlib, tools/install-deps.sh); KWIRE_REQUIRE_MATPLOTLIB=1
(.ci/run) turns its absence from a skip into a failure."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import charts  # noqa: E402

try:
    import matplotlib  # noqa: F401
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
    if os.environ.get("KWIRE_REQUIRE_MATPLOTLIB") == "1":
        raise

SVG = "{http://www.w3.org/2000/svg}"


def gbench(times, unit="ns", field="cpu_time"):
    """A Google Benchmark JSON document: name -> list of repetition times."""
    benchmarks = []
    for name, ts in times.items():
        for i, t in enumerate(ts):
            benchmarks.append({"name": name, "run_name": name, "run_type": "iteration",
                               "repetition_index": i, "iterations": 1000,
                               "real_time": t, "cpu_time": t, "time_unit": unit})
        benchmarks.append({"name": name + "_median", "run_name": name,
                           "run_type": "aggregate", "aggregate_name": "median",
                           "real_time": 1e9, "cpu_time": 1e9, "time_unit": unit})
    return {"context": {}, "benchmarks": benchmarks}


def svg_texts(path):
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def svg_ids(path):
    root = ET.parse(path).getroot()
    return [e.get("id") for e in root.iter() if e.get("id")]


BASE = gbench({"BM_Slower": [100, 101, 99, 100, 102, 98, 100, 100, 101],
               "BM_Same": [50, 51, 49, 50, 50, 50, 52, 48, 50],
               "BM_Faster": [2.0, 2.1, 1.9, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
               "BM_OnlyInBase": [10] * 9}, unit="us")
NEW = gbench({"BM_Slower": [120, 121, 119, 120, 122, 118, 120, 120, 121],
              "BM_Same": [51, 50, 50, 49, 51, 50, 50, 50, 50],
              "BM_Faster": [1.4, 1.5, 1.3, 1.4, 1.4, 1.4, 1.4, 1.4, 1.4]}, unit="us")


class AbRows(unittest.TestCase):
    def test_change_and_verdict_per_benchmark_in_both_files(self):
        rows = {r["name"]: r for r in charts.ab_rows(BASE, NEW, threshold=0.05)}
        self.assertEqual(sorted(rows), ["BM_Faster", "BM_Same", "BM_Slower"])
        self.assertAlmostEqual(rows["BM_Slower"]["change"], 0.20, places=6)
        self.assertEqual(rows["BM_Slower"]["verdict"], "slower")
        self.assertAlmostEqual(rows["BM_Faster"]["change"], -0.30, places=6)
        self.assertEqual(rows["BM_Faster"]["verdict"], "faster")
        self.assertEqual(rows["BM_Same"]["verdict"], "same")
        # Relative to BASE's median (100 us): the repetitions' band, aggregates left out.
        self.assertEqual(len(rows["BM_Slower"]["base"]), 9)
        self.assertAlmostEqual(min(rows["BM_Slower"]["new"]), 1.18)
        self.assertAlmostEqual(max(rows["BM_Slower"]["new"]), 1.22)
        self.assertAlmostEqual(rows["BM_Slower"]["base_ns"], 100e3)

    def test_threshold_and_filter(self):
        rows = {r["name"]: r for r in charts.ab_rows(BASE, NEW, threshold=0.25)}
        self.assertEqual(rows["BM_Slower"]["verdict"], "same")
        self.assertEqual(rows["BM_Faster"]["verdict"], "faster")
        only = charts.ab_rows(BASE, NEW, filt="Fast")
        self.assertEqual([r["name"] for r in only], ["BM_Faster"])


@unittest.skipUnless(HAVE_MPL, "matplotlib is not installed (python3-matplotlib)")
class AbChart(unittest.TestCase):
    def test_svg_names_every_benchmark_and_its_change(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "ab.svg")
            charts.ab_chart(BASE, NEW, out, labels=("base.json", "new.json"))
            texts = svg_texts(out)
            for want in ("BM_Slower", "BM_Same", "BM_Faster", "+20.0%", "-30.0%",
                         "base.json", "new.json"):
                self.assertTrue(any(want in t for t in texts), (want, texts))
            self.assertFalse(any("BM_OnlyInBase" in t for t in texts))
            self.assertTrue(any("1 slower, 1 faster, 1 within" in t for t in texts), texts)
            ids = svg_ids(out)
            self.assertEqual(sum(i.startswith("base-") for i in ids), 3)
            self.assertEqual(sum(i.startswith("new-") for i in ids), 3)

    def test_same_data_same_bytes(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.svg"), os.path.join(d, "b.svg")
            charts.ab_chart(BASE, NEW, a)
            charts.ab_chart(BASE, NEW, b)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertEqual(fa.read(), fb.read())

    def test_no_common_benchmark_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(ValueError):
                charts.ab_chart(BASE, gbench({"BM_Other": [1, 2, 3]}), os.path.join(d, "x.svg"))

    def test_compare_chart_command(self):
        with tempfile.TemporaryDirectory() as d:
            base, new, out = (os.path.join(d, n) for n in ("base.json", "new.json", "c.svg"))
            for path, doc in ((base, BASE), (new, NEW)):
                with open(path, "w") as f:
                    json.dump(doc, f)
            r = subprocess.run([sys.executable, os.path.join(HERE, "compare"), "chart", base,
                                new, out, "--threshold", "0.1"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("3 benchmarks: 1 slower, 1 faster, 1 within 10%", r.stdout)
            self.assertTrue(any("+20.0%" in t for t in svg_texts(out)))
            r = subprocess.run([sys.executable, os.path.join(HERE, "compare"), "chart", base,
                                os.path.join(d, "missing.json"), out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)


def peers_doc():
    def entry(ns, rounds):
        return {"op": "decode", "wall_ns": ns, "cpu_ns": ns, "wall_rounds": rounds,
                "cpu_rounds": rounds}
    return {
        "meta": {"rounds": 3},
        "columns": {"franz-go": "franz-go", "rust": "kafka-protocol", "java": "Kafka (Java)"},
        "rows": [
            {"frame": "Metadata/v12/response/1topic", "op": "decode",
             "kwire": {"wall_ns": 100.0, "cpu_ns": 100.0},
             "peers": {"franz-go": entry(250.0, [240.0, 250.0, 300.0]),
                       "rust": entry(120.0, [110.0, 120.0, 130.0]),
                       "java": {"op": "decode", "wall_ns": 400.0, "cpu_ns": None,
                                "wall_rounds": [400.0, 410.0], "cpu_rounds": []}}},
            {"frame": "Produce/v13/request/1batch", "op": "encode",
             "kwire": {"wall_ns": 1000.0, "cpu_ns": 900.0},
             "peers": {"franz-go": entry(800.0, [800.0])}},
            {"frame": "Fetch/v18/response/8x64KiB", "op": "encode", "kwire": None, "peers": {}},
        ],
    }


class PeerRows(unittest.TestCase):
    def test_ratios_per_operation_and_frame(self):
        data = dict(charts.peer_rows(peers_doc(), "wall"))
        self.assertEqual(list(data), ["decode", "encode"])
        bars = data["decode"][0]["bars"]
        self.assertAlmostEqual(bars["franz-go"]["ratio"], 2.5)
        self.assertAlmostEqual(bars["franz-go"]["min"], 2.4)
        self.assertAlmostEqual(bars["franz-go"]["max"], 3.0)
        self.assertAlmostEqual(bars["java"]["ratio"], 4.0)
        self.assertAlmostEqual(data["encode"][0]["bars"]["franz-go"]["ratio"], 0.8)
        # CPU time: Java has none, so no bar for it.
        cpu = dict(charts.peer_rows(peers_doc(), "cpu"))
        self.assertNotIn("java", cpu["decode"][0]["bars"])
        self.assertAlmostEqual(cpu["encode"][0]["bars"]["franz-go"]["ratio"], 800 / 900)


@unittest.skipUnless(HAVE_MPL, "matplotlib is not installed (python3-matplotlib)")
class PeerChart(unittest.TestCase):
    def test_one_bar_per_peer_time(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "peers.svg")
            charts.peer_chart(peers_doc(), out, "wall")
            bars = sorted(i for i in svg_ids(out) if i.startswith("bar-"))
            self.assertEqual(bars, [
                "bar-decode-Metadata_v12_response_1topic-franz-go",
                "bar-decode-Metadata_v12_response_1topic-java",
                "bar-decode-Metadata_v12_response_1topic-rust",
                "bar-encode-Produce_v13_request_1batch-franz-go"])
            texts = svg_texts(out)
            for want in ("decode", "encode", "Metadata/v12/response/1topic", "franz-go",
                         "kafka-protocol", "Kafka (Java)", "3 rounds"):
                self.assertTrue(any(want in t for t in texts), (want, texts))

    def test_peer_table_writes_both_charts(self):
        # A folder as bench/peers/run.sh leaves it, at its smallest: one frame, kwire's
        # JSON and one Go peer's JSON lines.
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "frames"))
            with open(os.path.join(d, "frames", "frames.tsv"), "w") as f:
                f.write("Heartbeat/v4/request/member\t12\t4\trequest\t60\n")
            with open(os.path.join(d, "kwire-0.json"), "w") as f:
                json.dump({"benchmarks": [
                    {"name": "BM_DecodeFrame/Heartbeat/v4/request/member", "run_type":
                     "iteration", "real_time": 100, "cpu_time": 90, "time_unit": "ns",
                     "iterations": 1000}]}, f)
            with open(os.path.join(d, "franz-go-p1-0.jsonl"), "w") as f:
                f.write(json.dumps({"frame": "Heartbeat/v4/request/member", "op": "decode",
                                    "ns": [300, 310], "cpu_ns": [270, 280], "allocs": 3,
                                    "alloc_bytes": 96}) + "\n")
            r = subprocess.run([sys.executable, os.path.join(HERE, "peers", "peer_table.py"),
                                d], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Chart (wall time): " + os.path.join(d, "peers.svg"), r.stdout)
            self.assertIn("Chart (CPU time): " + os.path.join(d, "peers-cpu.svg"), r.stdout)
            bars = [i for i in svg_ids(os.path.join(d, "peers.svg")) if i.startswith("bar-")]
            self.assertEqual(bars, ["bar-decode-Heartbeat_v4_request_member-franz-go"])
            self.assertTrue(os.path.exists(os.path.join(d, "peers.svg")))
            self.assertTrue(os.path.exists(os.path.join(d, "peers-cpu.svg")))


if __name__ == "__main__":
    unittest.main()
