"""The include graph of codec/ points down only (issue 15 item 3).

Layers, lowest first: wire (bytes, Reader/Writer) → schema (FieldSpec, the decode and
encode walks, generated messages) → records (record batches; may use schema: it
implements its RecordsValidator) → protocol (registry, frames) → harness (the explain
visitor and the fillers: kwire_explain / kwire_fill, outside the core library). A source
or header may include its own layer and the ones below, never one above; tests are
exempt (they sit on top of everything).
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"codec/([a-z_]+)/([A-Za-z0-9_./]+)"', re.M)

LAYERS = ["wire", "schema", "records", "protocol", "harness"]
# The harness: per-message tables of their own, not in the core library.
HARNESS = {
    ("schema", "print"), ("schema", "fill"),
    ("protocol", "explain"), ("protocol", "minimal"),
    ("records", "print_records"),
}


def layer_of(directory, filename):
    stem = os.path.splitext(os.path.basename(filename))[0]
    if (directory, stem) in HARNESS:
        return "harness"
    if directory == "generated":
        return "schema"
    return directory


def is_test(filename):
    base = os.path.basename(filename)
    return ("_test" in base or base == "test_util.h" or base.endswith("_throughput.cc")
            or base.startswith("heap_test"))


def violations(files):
    """files: {(directory, filename): text}. Returns 'a includes b' strings going up."""
    out = []
    for (directory, filename), text in sorted(files.items()):
        if is_test(filename):
            continue
        own = LAYERS.index(layer_of(directory, filename))
        for inc_dir, inc_file in INCLUDE.findall(text):
            target = layer_of(inc_dir, inc_file)
            if target not in LAYERS:
                out.append("%s/%s includes codec/%s/%s: unknown layer"
                           % (directory, filename, inc_dir, inc_file))
            elif LAYERS.index(target) > own:
                out.append("%s/%s (%s) includes codec/%s/%s (%s)"
                           % (directory, filename, LAYERS[own], inc_dir, inc_file, target))
    return out


def codec_files():
    files = {}
    for directory in ("wire", "schema", "records", "protocol"):
        path = os.path.join(ROOT, "codec", directory)
        for name in os.listdir(path):
            if name.endswith((".h", ".cc")):
                with open(os.path.join(path, name), encoding="utf-8") as f:
                    files[(directory, name)] = f.read()
    return files


class LayersTest(unittest.TestCase):
    def test_codec_includes_point_down(self):
        files = codec_files()
        checked = [k for k in files if not is_test(k[1])]
        self.assertGreater(len(checked), 40)
        self.assertEqual(violations(files), [])

    def test_an_upward_include_is_found(self):
        files = {
            ("wire", "reader.h"): '#include "codec/schema/spec.h"\n',
            ("schema", "decode.h"): '#include "codec/wire/reader.h"\n',
            ("schema", "message.h"): '#include "codec/schema/print.h"\n',
            ("schema", "spec.cc"): '#include "codec/records/crc32c.h"\n',
            ("schema", "fill.cc"): '#include "codec/records/crc32c.h"\n',
            ("protocol", "frame_test.cc"): '#include "codec/schema/fill.h"\n',
        }
        self.assertEqual(violations(files), [
            "schema/message.h (schema) includes codec/schema/print.h (harness)",
            "schema/spec.cc (schema) includes codec/records/crc32c.h (records)",
            "wire/reader.h (wire) includes codec/schema/spec.h (schema)",
        ])


if __name__ == "__main__":
    unittest.main()
