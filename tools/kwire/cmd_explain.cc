// `kwire explain` and `kwire site`.
#include "tools/kwire/cli_internal.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codec/harness/diagnose.h"
#include "codec/harness/explain.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "tools/kwire/explain_view.h"
#include "tools/html/page.h"
#include "tools/html/site.h"
#if KWIRE_HAVE_RECORDS_PRINT
#include "codec/harness/print_records.h"
#endif

namespace kwire::cli::internal {

int Explain(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u) {
  FrameInput f;
  if (int rc = ReadFrameInput(a, in, err, "explain", f, u); rc >= 0) return rc;
  size_t width = 120;
  if (auto w = a.Get("width")) {
    auto n = ParseNumber(*w);
    if (!n || *n < 0 || *n > 100000) {
      u.Fail("--width takes a number of columns (0: no limit), not '" + *w + "'");
      return kExitUsage;
    }
    width = static_cast<size_t>(*n);
  }
  ExplainView shown;  // --no-bytes, --depth, --path (explain_view.h)
  shown.bytes = a.flags.count("no-bytes") == 0;
  if (auto d = a.Get("depth")) {
    auto n = ParseNumber(*d);
    if (!n || *n < 0 || *n > 10000) {
      u.Fail("--depth takes a number of tree levels (0: the root alone), not '" + *d + "'");
      return kExitUsage;
    }
    shown.depth = static_cast<int>(*n);
  }
  shown.path = a.Get("path").value_or("");
  if (auto o = a.Get("offsets")) {  // the tree's range column: hex (default) or decimal
    if (*o == "dec" || *o == "decimal") {
      shown.offsets = OffsetBase::kDecimal;
    } else if (*o != "hex") {
      u.Fail("--offsets takes hex or dec, not '" + *o + "'");
      return kExitUsage;
    }
  }
  if ((!shown.bytes || shown.depth || !shown.path.empty()) && a.Get("html")) {
    u.Fail("--no-bytes, --depth and --path shape the text; --html writes the whole page");
    return kExitUsage;
  }
  Correlator requests(kFileRequests);
  Correlator* use = nullptr;
  if (int rc = LoadRequests(a, f, err, "explain", requests, use, u); rc >= 0) return rc;
  PrintOptions options;
  options.decode.quirks = f.quirks;
  options.records_mode = f.records;
  options.show_secrets = a.flags.count("show-secrets") > 0;
#if KWIRE_HAVE_RECORDS_PRINT
  options.records = &PrintRecordBatches;  // RecordBatch v2 / message set rows
#endif
  const std::optional<std::string> html_file = a.Get("html");  // --html: a page, no text
  std::vector<html::FrameView> pages;
  std::string split_error;
  const std::vector<StreamFrame> frames = SplitStream(f.bytes, split_error);
  size_t good = 0, refused = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::span<const uint8_t> bytes = frames[i].bytes;
    const std::string prefix = FramePrefix(frames, i, !split_error.empty());
    if (frames.size() > 1 && !html_file) {
      out << (i > 0 ? "\n" : "")
          << absl::StrFormat("== frame %d of %d, at byte %d of the stream ==\n", i + 1,
                             frames.size(), frames[i].at);
    }
    FrameExplanation ex;
    int16_t key = 0, version = 0;
    html::FrameView view;
    view.dir = f.dir;
    if (frames.size() > 1) {
      view.heading = absl::StrFormat("frame %d of %d, at byte %d of the stream", i + 1,
                                     frames.size(), frames[i].at);
    }
    if (f.dir == Direction::kRequest) {
      ex = ExplainRequestFrame(bytes, options);
    } else {
      std::string error, note;
      if (!ResponseApi(f, use, bytes, key, version, error, note)) {
        err << "kwire explain: " << prefix << error << "\n";
        continue;
      }
      if (!note.empty()) err << "kwire explain: " << prefix << note << "\n";
      ex = ExplainResponseFrame(bytes, key, version, options);
      view.api_key = key;
      view.api_version = version;
    }
    if (a.flags.count("lengths") > 0) AddValueLengthRows(ex, true);  // --lengths
    // What the frame's failure points at (codec/harness/diagnose.h): on stderr, and on the
    // page under the error.
    const size_t next = frames[i].at + bytes.size();
    const std::vector<std::string> hints =
        ex.status.ok()
            ? std::vector<std::string>()
            : HintTexts(f, bytes, std::span<const uint8_t>(f.bytes).subspan(std::min(next, f.bytes.size())),
                        key, version);
    if (html_file) {
      view.ex = ex;
      view.hints = hints;
      pages.push_back(std::move(view));
    } else {
      const absl::StatusOr<std::string> text = RenderExplainView(ex, shown, width);
      if (!text.ok()) {  // --path names no row of this frame: exit 1
        out << ex.title << "\n";
        err << "kwire explain: " << prefix << text.status().message() << "\n";
        if (ex.status.ok()) continue;
      } else {
        out << *text;
      }
    }
    if (!ex.status.ok() && f.dir == Direction::kRequest) {
      // The verdict of `kwire decode`: a request whose only faults are in records a broker
      // reads past (refusal.h) is read, and refused in part (exit 3), not undecodable.
      const absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(bytes, FrameOptionsOf(f));
      if (read.ok() && read->refused()) {
        // The verdict's lines exactly as `kwire decode` prints them (no command prefix:
        // they are the verdict, not an error of the tool).
        err << RefusalVerdict(*read, prefix,
                              " (the tree and the byte layout mark the fault where a decoder "
                              "that enforces it stops: \"decoding failed\" there means that "
                              "decoder's)");
        ++good;
        ++refused;
        continue;
      }
    }
    if (!ex.status.ok()) {
      err << "kwire explain: " << prefix << RenderErrorInContext(ex) << "\n";
      for (const std::string& h : hints) err << "kwire explain: " << prefix << "hint: " << h << "\n";
      continue;
    }
    if (f.dir == Direction::kRequest) {
      const std::optional<RequestIds> ids = PeekRequestIds(bytes);
      if (ids && !CheckRequestHeader(f, ids->api_key, ids->api_version, err, "explain")) continue;
    }
    ++good;
  }
  if (!split_error.empty()) err << "kwire explain: " << split_error << "\n";
  if (html_file && !WriteText(*html_file, html::ExplainPage(pages), out, err, "explain")) {
    return kExitFailure;
  }
  if (good != frames.size() || !split_error.empty()) return kExitFailure;
  return refused > 0 ? kExitRefused : kExitOk;
}

int Site(const Args& a, std::ostream& out, std::ostream& err, Usage& u) {
  if (a.positional.size() != 1) {
    u.Fail("expected one OUTDIR");
    return kExitUsage;
  }
  html::SiteOptions options;
  options.out_dir = a.positional[0];
  options.all_versions = a.flags.count("all-versions") > 0;
  const absl::StatusOr<html::SiteResult> r = html::WriteSite(options);
  if (!r.ok()) {
    err << "kwire site: " << r.status().message() << "\n";
    return kExitFailure;
  }
  for (const std::string& failure : r->failures) err << "kwire site: " << failure << "\n";
  out << absl::StrFormat("kwire site: %d pages (%d bytes) in %s\n", r->pages, r->bytes,
                         options.out_dir);
  return r->failures.empty() ? kExitOk : kExitFailure;
}

}  // namespace kwire::cli::internal
