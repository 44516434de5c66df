"""The include graph points down only: codec/'s layers (issue 15 item 3) and the rooms of
the whole tree (issue 37 item 5, ROOMS below).

Layers, lowest first: wire (bytes, Reader/Writer) → schema (FieldSpec, the decode and
encode walks, generated messages) → records (record batches; may use schema: it
implements its RecordsValidator) → protocol (registry, frames) → harness (codec/harness/:
the explain visitor, the fillers and the records display: kwire_explain / kwire_fill /
kwire_records_print, outside the core library) → include (codec/include/kwire/: the facade
headers users include as <kwire/kwire.h>, over everything below). A layer is a folder of
codec/ (its subfolders belong to it), declared
by directory; a folder that is not a layer fails. A source or header may include its own
layer and the ones below, never one above; tests are exempt (they sit on top of
everything).

Port macros (issue 37 item 2): kwire's compiler hints (KWIRE_LIKELY, KWIRE_ALWAYS_INLINE,
...) are defined only in codec/wire/port_def.inc. A header that uses them includes it after
all of its #includes and codec/wire/port_undef.inc at its end, so none reaches a user's
translation unit; no other file of codec/ defines a KWIRE_ macro that it does not
#undef again in the same file (include guards aside).
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"codec/([a-z_]+)/([A-Za-z0-9_./]+)"', re.M)

# One layer per folder of codec/ (the harness has its own: codec/harness/); the generated
# message types (gen/codec/generated/) belong to schema.
LAYERS = ["wire", "schema", "records", "protocol", "harness", "include"]
NOT_CODE = {"defs"}  # codec/defs/: definition files, no C++


def layer_of(directory, filename=None):
    """The layer of a file of codec/<directory>/ (by directory alone)."""
    return "schema" if directory == "generated" else directory


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
        if layer_of(directory) not in LAYERS:
            out.append("%s/%s: codec/%s is not a layer" % (directory, filename, directory))
            continue
        own = LAYERS.index(layer_of(directory))
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
    for directory in sorted(os.listdir(os.path.join(ROOT, "codec"))):
        path = os.path.join(ROOT, "codec", directory)
        if not os.path.isdir(path) or directory in NOT_CODE:
            continue
        for sub, _, names in os.walk(path):
            for name in names:
                if name.endswith((".h", ".cc")):
                    rel = os.path.relpath(os.path.join(sub, name), path)
                    with open(os.path.join(sub, name), encoding="utf-8") as f:
                        files[(directory, rel)] = f.read()
    return files


DEFINE = re.compile(r'^\s*#\s*define\s+(KWIRE_[A-Z0-9_]+)', re.M)
UNDEF = re.compile(r'^\s*#\s*undef\s+(KWIRE_[A-Z0-9_]+)', re.M)
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]', re.M)
PORT_DEF = "codec/wire/port_def.inc"
PORT_UNDEF = "codec/wire/port_undef.inc"


def port_violations(files):
    """files: {path: text} (paths relative to the root). Returns what breaks the rule."""
    out = []
    for path, text in sorted(files.items()):
        base = os.path.basename(path)
        if path in (PORT_DEF, PORT_UNDEF) or is_test(base):
            continue
        undefined = set(UNDEF.findall(text))
        # The library's files: a macro there would reach users. (The fuzz harness's
        # entry-point macros, fuzz/, are its API, for fuzz targets only.)
        for name in DEFINE.findall(text) if path.startswith("codec/") else []:
            guard = name.endswith("_H_") and ("#ifndef " + name) in text
            if not guard and name not in undefined:
                out.append("%s defines %s (hints belong in %s)" % (path, name, PORT_DEF))
        includes = ANY_INCLUDE.findall(text)
        if PORT_DEF not in includes:
            if re.search(r'\bKWIRE_(UN)?LIKELY\(|\bKWIRE_ALWAYS_INLINE\b|\bKWIRE_NOINLINE\b|'
                         r'\bKWIRE_COLD\b', text):
                out.append("%s uses a port macro without including %s" % (path, PORT_DEF))
            continue
        if includes.index(PORT_DEF) != len(includes) - 1 - (PORT_UNDEF in includes):
            out.append("%s includes a header after %s" % (path, PORT_DEF))
        if path.endswith(".h") and includes[-1:] != [PORT_UNDEF]:
            out.append("%s does not end with #include \"%s\"" % (path, PORT_UNDEF))
    return out


def source_files():
    files = {}
    for top in ("codec", "tools", "fuzz", "bench", "conformance"):
        for dirpath, dirnames, names in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "target", "build")]
            for name in names:
                if name.endswith((".h", ".cc", ".inc")):
                    full = os.path.join(dirpath, name)
                    with open(full, encoding="utf-8") as f:
                        files[os.path.relpath(full, ROOT)] = f.read()
    return files


class PortTest(unittest.TestCase):
    def test_port_macros_stay_inside_kwire(self):
        files = source_files()
        users = [p for p, t in files.items() if PORT_DEF in ANY_INCLUDE.findall(t)]
        self.assertGreaterEqual(len(users), 6)  # reader.h, writer.h, varint*.h, two .cc
        self.assertEqual(port_violations(files), [])

    def test_a_leaking_header_is_found(self):
        files = {
            "codec/wire/a.h": '#ifndef KWIRE_A_H_\n#define KWIRE_A_H_\n#include "codec/wire/port_def.inc"\n'
                              '#define KWIRE_OWN(x) x\n#endif\n',
            "codec/wire/b.h": '#include "codec/wire/port_def.inc"\n#include <vector>\n'
                              '#include "codec/wire/port_undef.inc"\n',
            "codec/wire/c.cc": 'if (KWIRE_LIKELY(x)) {}\n',
            "codec/wire/d.h": '#define KWIRE_TMP(k) k\n#undef KWIRE_TMP\n#include "codec/wire/port_def.inc"\n'
                              '#include "codec/wire/port_undef.inc"\n',
            "codec/wire/e.cc": '#include "x.h"\n#include "codec/wire/port_def.inc"\n',
        }
        self.assertEqual(port_violations(files), [
            "codec/wire/a.h defines KWIRE_OWN (hints belong in codec/wire/port_def.inc)",
            "codec/wire/a.h does not end with #include \"codec/wire/port_undef.inc\"",
            "codec/wire/b.h includes a header after codec/wire/port_def.inc",
            "codec/wire/c.cc uses a port macro without including codec/wire/port_def.inc",
        ])


# Rooms (issue 37 item 5): every folder of the tree that holds C++ is a room, and every
# room says which others it may include. A new folder, or a new arrow between rooms,
# fails here until it is declared — so the core never learns about the rooms built on it.
# "codec" is the core library (its own layers: LAYERS above); tests may also include
# what their room's code may not (they sit on top of everything).
ROOMS = {
    "codec": [],
    "fuzz": ["codec"],
    "bench": ["codec"],
    "conformance": ["codec", "tools/json"],
    "tools/json": ["codec"],
    "tools/traffic": ["codec", "tools/json"],
    "tools/pcap": ["codec", "tools/json", "tools/traffic"],
    "tools/proxy": ["codec", "tools/json", "tools/traffic"],
    "tools/diff": ["codec", "conformance", "fuzz", "tools/json"],
    "tools/brokerfuzz": ["codec", "tools/diff", "tools/json", "tools/proxy"],
    "tools/html": ["codec", "conformance"],
    "tools/package": ["codec"],
    # The CLI dispatches to every room; nothing includes it.
    "tools/kwire": ["codec", "conformance", "tools/brokerfuzz", "tools/diff", "tools/html",
                    "tools/json", "tools/pcap", "tools/proxy"],
}
# Folders without C++ of their own: data, scripts, the peers' own languages.
NO_CODE = {"corpus", "oss-fuzz", "tools/kafka-broker", "conformance/testees",
           "conformance/vectors", "bench/peers"}
TOP_LEVEL = {"codec", "fuzz", "corpus", "conformance", "bench", "tools", "oss-fuzz"}


def room_of(path):
    """The room of a path relative to the root ("codec/wire/reader.h" -> "codec")."""
    parts = path.split("/")
    if parts[0] == "tools" and len(parts) > 2:
        return "tools/" + parts[1]
    return parts[0]


def room_violations(files):
    """files: {path: text}. Returns the undeclared rooms and arrows."""
    out = []
    for path, text in sorted(files.items()):
        room = room_of(path)
        if any(path.startswith(n + "/") for n in NO_CODE):
            out.append("%s: C++ in a folder declared without code" % path)
            continue
        if room not in ROOMS:
            out.append("%s: room %s is not declared in ROOMS" % (path, room))
            continue
        if is_test(os.path.basename(path)):
            continue
        for inc in ANY_INCLUDE.findall(text):
            if inc.split("/")[0] not in ROOMS and inc.split("/")[0] != "tools":
                continue  # system and third-party headers
            target = room_of(inc)
            if target != room and target not in ROOMS[room]:
                out.append("%s (%s) includes %s (%s): not in ROOMS[%r]"
                           % (path, room, inc, target, room))
    return out


class RoomsTest(unittest.TestCase):
    def test_every_folder_is_a_declared_room(self):
        top = {d for d in os.listdir(ROOT)
               if os.path.isdir(os.path.join(ROOT, d)) and not d.startswith(".")
               and d != "build"}
        self.assertEqual(top, TOP_LEVEL)
        tools = {"tools/" + d for d in os.listdir(os.path.join(ROOT, "tools"))
                 if os.path.isdir(os.path.join(ROOT, "tools", d)) and d != "__pycache__"}
        self.assertEqual(tools - set(ROOMS) - NO_CODE, set())

    def test_rooms_include_only_what_they_declare(self):
        files = source_files()
        self.assertGreater(len(files), 150)
        self.assertEqual(room_violations(files), [])

    def test_an_undeclared_arrow_is_found(self):
        files = {
            "codec/wire/reader.h": '#include "conformance/check.h"\n',
            "tools/json/json.cc": '#include "tools/json/json.h"\n#include "codec/wire/reader.h"\n',
            "tools/newroom/a.cc": '#include "codec/wire/reader.h"\n',
            "fuzz/x_test.cc": '#include "tools/json/json.h"\n',
            "tools/html/page.cc": '#include "tools/kwire/cli.h"\n#include <vector>\n',
        }
        self.assertEqual(room_violations(files), [
            "codec/wire/reader.h (codec) includes conformance/check.h (conformance): "
            "not in ROOMS['codec']",
            "tools/html/page.cc (tools/html) includes tools/kwire/cli.h (tools/kwire): "
            "not in ROOMS['tools/html']",
            "tools/newroom/a.cc: room tools/newroom is not declared in ROOMS",
        ])


class LayersTest(unittest.TestCase):
    def test_codec_includes_point_down(self):
        files = codec_files()
        checked = [k for k in files if not is_test(k[1])]
        self.assertGreater(len(checked), 40)
        # Every folder of codec/ with C++ is a layer, the harness among them.
        self.assertEqual({d for d, _ in files}, set(LAYERS))
        self.assertEqual(violations(files), [])

    def test_an_upward_include_is_found(self):
        files = {
            ("wire", "reader.h"): '#include "codec/schema/spec.h"\n',
            ("schema", "decode.h"): '#include "codec/wire/reader.h"\n',
            ("schema", "message.h"): '#include "codec/harness/print.h"\n',
            ("schema", "spec.cc"): '#include "codec/records/crc32c.h"\n',
            ("harness", "fill.cc"): '#include "codec/records/crc32c.h"\n',
            ("harness", "print.cc"): '#include "codec/protocol/frame.h"\n',
            ("extra", "a.cc"): '#include "codec/wire/reader.h"\n',
            ("protocol", "frame_test.cc"): '#include "codec/harness/fill.h"\n',
        }
        self.assertEqual(violations(files), [
            "extra/a.cc: codec/extra is not a layer",
            "schema/message.h (schema) includes codec/harness/print.h (harness)",
            "schema/spec.cc (schema) includes codec/records/crc32c.h (records)",
            "wire/reader.h (wire) includes codec/schema/spec.h (schema)",
        ])


if __name__ == "__main__":
    unittest.main()
