#!/usr/bin/env python3
"""Browser tests of kwire's HTML pages (issue 34 item 5), in headless Chromium.

Writes pages with the given `kwire` — explain pages of a normal frame, of frames that do
not decode, of a large frame (>= 40 KB, thousands of nodes) and of frames with hostile
strings (quotes, <script>, </script>, invalid UTF-8), the site's index and one API
page, and conformance reports (`kwire conformance --html`) of a deliberately wrong testee
and of kwire's own run — loads each in headless Chromium (Debian's chromium + chromium-driver, driven by
python3-selenium), finds the page's parts, hovers or clicks and checks what is
highlighted, checks the browser's console for errors and that no script from a frame
ran, and writes a screenshot of each page into --out (printed at the end).

  browser_test.py --kwire build/test/tools/kwire/kwire --out build/test/html-screens \
      --vectors conformance/vectors

Exit 0 when every check passes, 1 when one fails, 77 (ctest: skipped) when Chromium,
chromedriver or Selenium is missing — unless KWIRE_REQUIRE_BROWSER=1 (CI), which makes a
missing browser a failure.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

SKIP = 77
CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
DRIVER = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]


def missing_browser(why):
    if os.environ.get("KWIRE_REQUIRE_BROWSER") == "1":
        print("browser test: FAIL: %s (KWIRE_REQUIRE_BROWSER=1)" % why)
        sys.exit(1)
    print("browser test: SKIPPED: %s (apt-get install chromium chromium-driver "
          "python3-selenium; KWIRE_REQUIRE_BROWSER=1 makes this a failure)" % why)
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
except ImportError:
    # Debian's python3-selenium belongs to /usr/bin/python3; ctest may run another one.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and not os.environ.get("KWIRE_BROWSER_TEST_REEXEC"):
        os.environ["KWIRE_BROWSER_TEST_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    missing_browser("Selenium is not installed for %s" % sys.executable)


# ---- Frames, as hex (size prefix included).

def i16(v):
    return (v & 0xffff).to_bytes(2, "big")


def i32(v):
    return (v & 0xffffffff).to_bytes(4, "big")


def uvarint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def compact(s):
    return uvarint(len(s) + 1) + s


def sized(body):
    return (i32(len(body)) + body).hex()


def describe_tokens(client_id, principal_type, principal_name):
    """DescribeDelegationToken v3 request (header v2) with these strings (bytes)."""
    return sized(i16(41) + i16(3) + i32(7) + i16(len(client_id)) + client_id + b"\x00" +
                 b"\x02" + compact(principal_type) + compact(principal_name) + b"\x00" + b"\x00")


def metadata_request(topics):
    """Metadata v12 request with `topics` topics (uuid + name each): a large frame."""
    body = i16(3) + i16(12) + i32(1) + i16(6) + b"kwire1" + b"\x00" + uvarint(topics + 1)
    for t in range(topics):
        body += t.to_bytes(16, "big") + compact(b"topic-%05d" % t) + b"\x00"
    return sized(body + b"\x01\x00\x00")


# A deliberately wrong testee (the testee protocol, conformance/README.md): decode answers
# the minimal DescribeDelegationToken v3 request with a wrong PrincipalType (and nothing
# else: unsupported), roundtrip changes byte 11 (the correlation_id's last byte), validate
# rejects every frame with a hostile error text.
WRONG_TESTEE = r"""import json, sys
MINIMAL = "0000001000290003000000000000000201010000"
for line in sys.stdin:
    q = json.loads(line)
    if q["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "wrong <b>testee</b>", "version": "1",
                          "operations": ["decode", "roundtrip", "validate"]}), flush=True)
        continue
    f = q["frame"]
    if q["op"] == "decode" and f == MINIMAL:
        a = {"result": "ok", "header": {"RequestApiKey": 41, "RequestApiVersion": 3, "CorrelationId": 0, "ClientId": ""},
             "body": {"Owners": [{"PrincipalType": "</script><script>window.__pwned=3</script>", "PrincipalName": ""}]}}
    elif q["op"] == "decode":
        a = {"result": "unsupported", "reason": "only the minimal frame"}
    elif q["op"] == "roundtrip":
        a = {"result": "ok", "frame": f[:22] + ("01" if f[22:24] == "00" else "00") + f[24:]}
    else:
        a = {"result": "rejected", "error": "</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"}
    print(json.dumps(dict(a, seq=q["seq"])), flush=True)
"""


# ---- Checks.

class Checks:
    def __init__(self):
        self.failed = []
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
            print("  ok    %s" % what)
        else:
            self.failed.append(what)
            print("  FAIL  %s" % what)
        return ok


def run_kwire(kwire, args, stdin=None, expect=0):
    p = subprocess.run([kwire] + args, input=stdin, capture_output=True, text=True)
    if p.returncode != expect:
        raise SystemExit("kwire %s: exit %d, expected %d\n%s" % (" ".join(args), p.returncode, expect, p.stderr))
    return p


def start_browser():
    binary = next((b for b in CHROMIUM if os.path.exists(b)), shutil.which("chromium"))
    driver_path = next((d for d in DRIVER if os.path.exists(d)), shutil.which("chromedriver"))
    if not binary:
        missing_browser("Chromium is not installed")
    if not driver_path:
        missing_browser("chromedriver is not installed")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--hide-scrollbars", "--force-device-scale-factor=1",
              "--allow-file-access-from-files", "--disable-extensions"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=opts)


class Page:
    """One loaded page: helpers over the driver."""

    def __init__(self, driver, path, checks):
        self.d = driver
        self.c = checks
        t = time.monotonic()
        driver.get("file://" + os.path.abspath(path))
        ready = driver.execute_script("return document.documentElement.getAttribute('data-ready')")
        self.load_seconds = time.monotonic() - t
        checks.check(ready == "true", "%s: the page's script ran to the end (%.2f s)" % (os.path.basename(path), self.load_seconds))

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def all(self, css, root=None):
        return (root or self.d).find_elements(By.CSS_SELECTOR, css)

    def one(self, css, root=None):
        found = self.all(css, root)
        return found[0] if found else None

    def hover(self, element):
        ActionChains(self.d).move_to_element(element).perform()

    def highlighted_offsets(self, frame, cls="hl"):
        return [int(c.get_attribute("data-offset")) for c in self.all(".b.%s" % cls, frame)]

    def highlighted_paths(self, frame, cls="hl"):
        return [r.get_attribute("data-path") for r in self.all(".row.%s" % cls, frame)]

    def console_clean(self, name):
        logs = self.d.get_log("browser")
        bad = [l for l in logs if l.get("level") in ("SEVERE", "ERROR")]
        self.c.check(not bad, "%s: no console errors%s" % (name, "" if not bad else ": %r" % bad[:3]))

    def no_frame_script(self, name):
        pwned = self.js("return typeof window.__pwned === 'undefined' ? null : String(window.__pwned)")
        scripts = self.js("return document.scripts.length")
        imgs = self.js("return document.images.length")
        self.c.check(pwned is None, "%s: no script from the frame ran (window.__pwned unset)" % name)
        self.c.check(scripts == 2, "%s: only the page's two <script> elements (%s)" % (name, scripts))
        self.c.check(imgs == 0, "%s: no <img> element made from frame strings (%s)" % (name, imgs))

    def screenshot(self, out_dir, name, full=True):
        path = os.path.join(out_dir, name + ".png")
        self.js("window.scrollTo(0, 0)")
        size = self.d.get_window_size()
        if full:
            h = self.js("return Math.ceil(document.documentElement.scrollHeight)")
            self.d.set_window_size(1400, max(600, min(int(h) + 20, 5000)))
        self.d.save_screenshot(path)
        self.d.set_window_size(size["width"], size["height"])
        return path


def frame_sections(page):
    return page.all("section.frame")


def row_of(page, frame, path):
    for r in page.all(".row", frame):
        if r.get_attribute("data-path") == path:
            return r
    return None


def cell(page, frame, offset):
    return page.one('.b[data-offset="%d"]' % offset, frame)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kwire", required=True, help="the kwire binary to write pages with")
    ap.add_argument("--out", required=True, help="folder for the pages and screenshots")
    ap.add_argument("--vectors", required=True, help="conformance/vectors, for the report pages")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    pages_dir = os.path.join(out, "pages")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(pages_dir)
    kwire = args.kwire
    c = Checks()
    shots = []

    # ---- Pages, written by kwire.
    normal = os.path.join(pages_dir, "explain-normal.html")
    run_kwire(kwire, ["explain", "request", "--html", normal],
              run_kwire(kwire, ["minimal", "41", "3", "request"]).stdout)
    produce = os.path.join(pages_dir, "explain-produce.html")
    run_kwire(kwire, ["explain", "request", "--html", produce],
              run_kwire(kwire, ["minimal", "Produce", "max", "request"]).stdout)
    failing = os.path.join(pages_dir, "explain-failing.html")
    bad_utf8 = describe_tokens(b"c", b"ok", b"bad\xff\xfe")  # strict: invalid UTF-8 at byte 24
    truncated = "0000000f002900030000000000000002010100"       # one byte short: needs byte 19
    run_kwire(kwire, ["explain", "request", "--html", failing], bad_utf8 + "\n" + truncated + "\n", expect=1)
    large = os.path.join(pages_dir, "explain-large.html")
    large_hex = metadata_request(2500)
    run_kwire(kwire, ["explain", "request", "--html", large], large_hex)
    hostile = os.path.join(pages_dir, "explain-hostile.html")
    hostile_frames = [
        describe_tokens(b"<script>alert(1)</script>", b"</script><script>window.__pwned=1</script>",
                        b"\"'><img src=x onerror=\"window.__pwned=2\">\xe2\x80\xa8"),
        describe_tokens(b"\xff\xfe<b>", b"caf\xc3", b"&lt;&#60;\\u003c"),
    ]
    run_kwire(kwire, ["explain", "request", "--quirks", "java", "--html", hostile], "\n".join(hostile_frames) + "\n")
    site = os.path.join(out, "site")
    run_kwire(kwire, ["site", site])
    # A conformance report of a deliberately wrong testee (every DescribeDelegationToken
    # v3 request vector fails), and of kwire's own run (all pass).
    wrong = os.path.join(pages_dir, "wrong_testee.py")
    with open(wrong, "w") as w:
        w.write(WRONG_TESTEE)
    report = os.path.join(pages_dir, "conformance-report.html")
    run_kwire(kwire, ["conformance", args.vectors, "--testee", "python3 " + wrong, "--api",
                      "DescribeDelegationToken", "--version", "3", "--direction", "request",
                      "--html", report], expect=1)
    native_report = os.path.join(pages_dir, "conformance-native.html")
    run_kwire(kwire, ["conformance", args.vectors, "--html", native_report])

    d = start_browser()
    try:
        # ---- A normal frame: DescribeDelegationToken v3, 20 bytes.
        print("explain, a normal frame (%s)" % normal)
        p = Page(d, normal, c)
        frames = frame_sections(p)
        c.check(len(frames) == 1, "one frame section")
        f = frames[0]
        c.check(len(p.all(".b[data-offset]", f)) == 20, "20 byte cells in the grid")
        c.check(len(p.all(".grid-body .grid-row", f)) == 2, "2 grid rows of 16")
        legend = [e.get_attribute("data-section") for e in p.all(".legend-item", f)]
        c.check(legend == ["framing", "rpc header", "request body", "response body", "RecordBatch", "Record", "tagged_fields"],
                "legend lists the seven sections: %s" % legend)
        c.check(len(p.all(".row", f)) == 17, "17 tree rows (as seeds.txt)")
        c.check("s1" in cell(p, f, 0).get_attribute("class") and "s2" in cell(p, f, 4).get_attribute("class")
                and "s3" in cell(p, f, 16).get_attribute("class") and "s7" in cell(p, f, 19).get_attribute("class"),
                "bytes coloured by section: 0 framing, 4 header, 16 body, 19 tagged_fields")
        p.hover(cell(p, f, 16))
        c.check(p.highlighted_paths(f) == ["Body.Owners[0].PrincipalType"],
                "hover byte 0x10: tree row Body.Owners[0].PrincipalType highlighted (%s)" % p.highlighted_paths(f))
        c.check(p.highlighted_offsets(f) == [16], "hover byte 0x10: the node's byte highlighted (%s)" % p.highlighted_offsets(f))
        p.hover(row_of(p, f, "RequestHeader.correlation_id"))
        c.check(p.highlighted_offsets(f) == [8, 9, 10, 11],
                "hover tree row RequestHeader.correlation_id: bytes 8-11 highlighted (%s)" % p.highlighted_offsets(f))
        row_of(p, f, "Body.Owners").click()
        c.check(p.highlighted_offsets(f, "sel") == [15, 16, 17, 18],
                "click tree row Body.Owners: bytes 15-18 selected (%s)" % p.highlighted_offsets(f, "sel"))
        c.check("Body.Owners" in p.one(".info", f).text, "the info line names the selection")
        p.console_clean("normal")
        shots.append(p.screenshot(out, "explain-normal"))

        # ---- A Produce request with its RecordBatch.
        print("explain, Produce with a record batch (%s)" % produce)
        p = Page(d, produce, c)
        f = frame_sections(p)[0]
        batch = [int(x.get_attribute("data-offset")) for x in p.all(".b.s5", f)]
        c.check(len(batch) == 61, "61 bytes coloured RecordBatch (%d)" % len(batch))
        p.hover(cell(p, f, batch[0] + 17))
        hl = p.highlighted_paths(f)
        c.check(len(hl) == 1 and hl[0].endswith(".Batch[0].crc"), "hover a crc byte: its tree row %s" % hl)
        c.check(len(p.highlighted_offsets(f)) == 4, "hover a crc byte: the crc's 4 bytes")
        p.console_clean("produce")
        shots.append(p.screenshot(out, "explain-produce"))

        # ---- Frames that do not decode.
        print("explain, frames that do not decode (%s)" % failing)
        p = Page(d, failing, c)
        frames = frame_sections(p)
        c.check(len(frames) == 2, "two frame sections")
        f1, f2 = frames
        c.check(p.one(".error", f1) is not None and p.one(".error-kind", f1).text == "invalid_utf8",
                "frame 1: the error box says invalid_utf8")
        marked = [int(x.get_attribute("data-offset")) for x in p.all(".b.fail", f1)]
        c.check(marked == [24], "frame 1: the failing byte 24 is marked in the grid (%s)" % marked)
        failed_rows = [r.get_attribute("data-path") for r in p.all(".row.failed", f1)]
        c.check(failed_rows == ["DescribeDelegationTokenRequest", "Body", "Body.Owners", "Body.Owners[0]",
                                "Body.Owners[0].PrincipalName"],
                "frame 1: the failed nodes are marked in the tree (%s)" % failed_rows)
        p.hover(cell(p, f1, 24))
        c.check(p.highlighted_paths(f1) == ["Body.Owners[0].PrincipalName"],
                "frame 1: hover the failing byte: its node (%s)" % p.highlighted_paths(f1))
        marked = [int(x.get_attribute("data-offset")) for x in p.all(".b.fail", f2)]
        c.check(marked == [19] and "end" in cell(p, f2, 19).get_attribute("class"),
                "frame 2: the missing byte 19 is marked past the end (%s)" % marked)
        c.check(p.one(".error-path", f2).text == "DescribeDelegationTokenRequest.tagged_fields",
                "frame 2: the error names its path")
        hints = [h.text for h in p.all(".error-hint", f2)]
        c.check(hints == ["hint: the array count at byte 15 (DescribeDelegationTokenRequest.Owners) reads 1 "
                          "(uvarint 2 on the wire: compact, n+1); with 0 (uvarint 1) there the frame "
                          "decodes cleanly"],
                "frame 2: the error box shows kwire explain's hint (%s)" % hints)
        p.one(".error-goto", f2).click()
        c.check(p.highlighted_paths(f2, "sel") == ["Body.tagged_fields"],
                "frame 2: 'show the failing byte' selects the failed node (%s)" % p.highlighted_paths(f2, "sel"))
        p.console_clean("failing")
        shots.append(p.screenshot(out, "explain-failing"))

        # ---- A large frame.
        size = len(large_hex) // 2
        print("explain, a large frame: %d bytes (%s)" % (size, large))
        p = Page(d, large, c)
        c.check(size >= 40000, "the frame has %d bytes (>= 40 KB)" % size)
        c.check(p.load_seconds < 10, "loads in %.2f s" % p.load_seconds)
        f = frame_sections(p)[0]
        nodes = p.js("return JSON.parse(document.getElementById('kwire-data').textContent).frames[0].nodes.length")
        c.check(nodes > 4000, "%d nodes in the tree's data" % nodes)
        drawn_rows = len(p.all(".row", f))
        c.check(drawn_rows < 200, "deep levels collapsed: %d tree rows drawn of %d" % (drawn_rows, nodes))
        cells = len(p.all(".b[data-offset]", f))
        c.check(cells == 4096, "the grid draws 256 rows (4096 bytes) at first (%d)" % cells)
        more = p.one(".grid-more-button", f)
        c.check(more is not None and more.is_displayed(), "a 'show more' button: %s" % (more.text if more else None))
        more.click()
        c.check(len(p.all(".b[data-offset]", f)) == 8192, "'show more' draws 256 more rows")
        target = 23 + 165 * 29 + 3  # size prefix and header: 23 bytes; 29 per topic; in its TopicId
        c_el = cell(p, f, target)
        p.js("arguments[0].scrollIntoView({block: 'center'})", c_el)
        c_el.click()
        sel = p.highlighted_paths(f, "sel")
        c.check(sel == ["Body.Topics[165].TopicId"],
                "click byte %d: its collapsed node is revealed and selected (%s)" % (target, sel))
        # A node past the first 500 children of its parent: drawn when its byte is clicked.
        target = 23 + 700 * 29 + 20  # in topic 700's Name, past the rows drawn so far
        more_kids = p.one(".kids-more", f)
        c.check(more_kids is not None and "500 of 1002" in more_kids.text,
                "Body.Topics draws 500 of its 1002 children: %s" % (more_kids.text if more_kids else None))
        # Draw the grid far enough, then click the byte.
        t = time.monotonic()
        p.one(".grid-all-button", f).click()
        drawn = p.js("return arguments[0].querySelectorAll('.b[data-offset]').length", f)
        c.check(drawn == size, "'show all' draws every byte (%d, %.2f s)" % (drawn, time.monotonic() - t))
        c_el = cell(p, f, target)
        p.js("arguments[0].scrollIntoView({block: 'center'})", c_el)
        c_el.click()
        sel = p.highlighted_paths(f, "sel")
        c.check(sel == ["Body.Topics[700].Name"], "click byte %d: topic 700's Name drawn and selected (%s)" % (target, sel))
        p.console_clean("large")
        shots.append(p.screenshot(out, "explain-large", full=False))

        # ---- Hostile strings.
        print("explain, hostile strings (%s)" % hostile)
        p = Page(d, hostile, c)
        f1, f2 = frame_sections(p)
        values = [e.text for e in p.all(".row .value", f1)]
        c.check('= "<script>alert(1)</script>" (int16 len=25)' in values, "the <script> client_id shows as text")
        c.check('= "</script><script>window.__pwned=1</script>" (compact, len+1=43)' in values,
                "the </script> string shows as text")
        c.check(any('<img src=x onerror=' in v for v in values), "the <img onerror> string shows as text")
        values2 = [e.text for e in p.all(".row .value", f2)]
        c.check(any("\\xff\\xfe<b>" in v for v in values2), "invalid UTF-8 shows as escaped text: %s" % values2[:6])
        p.no_frame_script("hostile")
        p.console_clean("hostile")
        shots.append(p.screenshot(out, "explain-hostile"))

        # ---- The site: index and one API page.
        index = os.path.join(site, "index.html")
        print("site index (%s)" % index)
        p = Page(d, index, c)
        rows = p.all("table.apis tbody tr")
        c.check(len(rows) >= 90, "%d APIs in the index" % len(rows))
        flt = p.one("input.filter")
        flt.send_keys("DelegationToken")
        shown = [r.find_element(By.CSS_SELECTOR, "td.name").text for r in rows if r.is_displayed()]
        c.check(sorted(shown) == ["CreateDelegationToken", "DescribeDelegationToken", "ExpireDelegationToken",
                                  "RenewDelegationToken"], "the filter keeps the four token APIs (%s)" % shown)
        firsts = p.one('tr[data-key="41"] td.firsts').text
        c.check("v3: 3.3" in firsts, "DescribeDelegationToken's versions first stable in: %s" % firsts)
        p.console_clean("index")
        flt.clear()
        p.js("document.querySelector('input.filter').dispatchEvent(new Event('input'))")
        shots.append(p.screenshot(out, "site-index", full=False))
        p.one('tr[data-key="41"] td.name a').click()
        ready = d.execute_script("return document.documentElement.getAttribute('data-ready')")
        c.check(d.current_url.endswith("/DescribeDelegationToken.html") and ready == "true",
                "the index links to DescribeDelegationToken.html")
        p = Page(d, os.path.join(site, "DescribeDelegationToken.html"), c)
        frames = frame_sections(p)
        c.check(len(frames) == 2, "request and response sections")
        c.check([len(p.all(".b[data-offset]", x)) for x in frames] == [20, 52], "20 and 52 byte cells")
        c.check(len(p.all(".row", frames[1])) == 29, "29 tree rows in the response (as seeds.txt)")
        c.check(len(p.all(".schema-table tbody tr", frames[1])) == 15, "the response schema's 15 fields")
        p.hover(row_of(p, frames[0], "RequestHeader.request_api_key"))
        c.check(p.highlighted_offsets(frames[0]) == [4, 5], "hover request_api_key: bytes 4-5 highlighted")
        p.hover(cell(p, frames[1], 0x2a))
        c.check(p.highlighted_paths(frames[1]) == ["Body.Tokens[0].Renewers.length"],
                "hover response byte 0x2a: Body.Tokens[0].Renewers.length (%s)" % p.highlighted_paths(frames[1]))
        p.console_clean("api page")
        shots.append(p.screenshot(out, "site-DescribeDelegationToken"))

        # ---- The conformance report of the wrong testee.
        print("conformance report, a wrong testee (%s)" % report)
        p = Page(d, report, c)
        c.check(p.one(".verdict").text == "FAIL", "the verdict says FAIL")
        totals = {e.get_attribute("data-outcome"): e.find_element(By.CSS_SELECTOR, "dd").text
                  for e in p.all(".report-totals .summary-item")}
        c.check(totals.get("vectors") == "12" and totals.get("fail") == "12" and totals.get("pass") == "0",
                "the totals: 12 vectors, 12 fail (%s)" % totals)
        sets = [[td.text for td in tr.find_elements(By.CSS_SELECTOR, "td")] for tr in p.all("table.report-sets tbody tr")]
        c.check(len(sets) == 6 and all("bad" in tr.get_attribute("class") for tr in p.all("table.report-sets tbody tr")),
                "6 vector files, each with a failure, highlighted (%s)" % [r[0] for r in sets])
        apis = [[td.text for td in tr.find_elements(By.CSS_SELECTOR, "td")] for tr in p.all("table.report-apis tbody tr")]
        c.check(apis and apis[0][:5] == ["41", "DescribeDelegationToken", "3", "12", "0"],
                "the API table's row: DescribeDelegationToken v3, 12 vectors, 0 passed (%s)" % (apis[:1],))
        failures = p.all("details.failure")
        c.check(len(failures) == 12, "12 failures listed (%d)" % len(failures))
        first = failures[0]
        c.check(first.get_attribute("open") is not None and p.one("section.frame", first) is not None,
                "the first failure is open, with its frame drawn")
        marked = [int(x.get_attribute("data-offset")) for x in p.all(".b.mark", first)]
        c.check(marked == [11], "the first failure (a changed roundtrip) marks byte 11 (%s)" % marked)
        c.check([r.get_attribute("data-path") for r in p.all(".row.marked", first)] == ["RequestHeader.correlation_id"],
                "... and the tree row RequestHeader.correlation_id")
        minimal = next((f for f in failures if f.get_attribute("data-id") == "minimal/DescribeDelegationToken/v3/request"), None)
        c.check(minimal is not None and p.one("section.frame", minimal) is None,
                "a closed failure's frame is not drawn until opened")
        p.js("arguments[0].scrollIntoView({block: 'start'})", minimal)
        minimal.find_element(By.CSS_SELECTOR, "summary").click()  # the click: opens it, draws its frame
        marked = [int(x.get_attribute("data-offset")) for x in p.all(".b.mark", minimal)]
        c.check(marked == [16], "click a failure: its frame drawn, the differing member's byte 16 marked (%s)" % marked)
        c.check([r.get_attribute("data-path") for r in p.all(".row.marked", minimal)] == ["Body.Owners[0].PrincipalType"],
                "... and its tree row Body.Owners[0].PrincipalType")
        diff_lines = [(e.find_element(By.XPATH, "ancestor::div[contains(@class,'json-pane')]").get_attribute("class"),
                       e.get_attribute("data-path")) for e in p.all(".compare .jl.diff", minimal)]
        c.check(("json-pane expected", "body.Owners[0].PrincipalType") in diff_lines and
                ("json-pane answered", "body.Owners[0].PrincipalType") in diff_lines,
                "expected vs answered side by side, the differing member marked on both sides (%s)" % diff_lines[:4])
        answered = [e.text for e in p.all(".json-pane.answered .jl", minimal)]
        c.check(any("</script><script>window.__pwned=3</script>" in t for t in answered),
                "the testee's hostile answer shows as text")
        errors = [e.text for e in p.all("td.check-error", minimal)]
        c.check(any(t.startswith("</script><script>window.__pwned=1</script><img src=x onerror=") for t in errors),
                "the testee's hostile error text shows as text (%s)" % errors)
        cmd = p.one("code.command", minimal).text
        c.check(cmd.startswith("kwire explain --vector ") and cmd.endswith("/minimal.jsonl:431"),
                "the command line: %s" % cmd)
        cell_el = cell(p, minimal, 16)
        p.js("arguments[0].scrollIntoView({block: 'center'})", cell_el)
        p.hover(cell_el)
        c.check(p.highlighted_paths(minimal) == ["Body.Owners[0].PrincipalType"],
                "hover the marked byte: its tree row (%s)" % p.highlighted_paths(minimal))
        p.no_frame_script("conformance report")
        p.console_clean("conformance report")
        shots.append(p.screenshot(out, "conformance-report"))

        # ---- kwire's own run: everything passes.
        print("conformance report, kwire's own run (%s)" % native_report)
        p = Page(d, native_report, c)
        c.check(p.one(".verdict").text == "PASS", "the verdict says PASS")
        c.check(len(p.all("table.report-sets tbody tr")) == 3 and not p.all("table.report-sets tr.bad"),
                "3 vector files, none highlighted")
        c.check(not p.all("details.failure"), "no failure listed")
        p.console_clean("conformance native")
        shots.append(p.screenshot(out, "conformance-native", full=False))
    finally:
        d.quit()

    print("\nscreenshots:")
    for s in shots:
        print("  " + s)
    print("\nbrowser test: %d checks passed, %d failed" % (c.passed, len(c.failed)))
    for f in c.failed:
        print("  failed: " + f)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
