#!/usr/bin/env python3
"""Writes every ```cpp block of Markdown files as a C++ source file, exactly as printed.

  tools/readme_snippets.py --out DIR FILE.md...

Each block becomes DIR/<file>_<line>.cc (line: the fence's line), its text unchanged,
after a `#line` directive so that a compiler's message names the Markdown file and line.
Files whose text did not change are not rewritten (no recompile); .cc files in DIR that
no block produces any more are removed. Prints the written paths, ';'-separated (a CMake
list). The top-level CMakeLists.txt compiles them against kwire::kwire and kwire::explain
(target kwire_doc_snippets, ctest docs.snippets): a snippet in the docs is a complete
translation unit that compiles (issue 35 item 5).
"""
import argparse
import os
import re
import sys

FENCE = re.compile(r"^```")


def blocks(text):
    """(line of the ```cpp fence, block text) for each ```cpp block of `text`."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```cpp":
            start = i
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            if j == len(lines):
                raise ValueError("line %d: ```cpp block without its closing fence" % (start + 1))
            out.append((start + 1, "\n".join(lines[start + 1:j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    written = []
    for doc in args.docs:
        with open(doc, encoding="utf-8") as f:
            try:
                found = blocks(f.read())
            except ValueError as e:
                print("readme_snippets: %s: %s" % (doc, e), file=sys.stderr)
                return 1
        stem = re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(doc)[0]).strip("_")
        for line, text in found:
            path = os.path.join(args.out, "%s_%d.cc" % (stem, line))
            # The block's first line is the fence's next line.
            source = '#line %d "%s"\n%s' % (line + 1, doc, text)
            old = None
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    old = f.read()
            if old != source:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(source)
            written.append(os.path.abspath(path))
    for name in os.listdir(args.out):
        path = os.path.abspath(os.path.join(args.out, name))
        if name.endswith(".cc") and path not in written:
            os.remove(path)
    print(";".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
