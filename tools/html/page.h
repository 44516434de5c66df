// HTML pages of explained frames (`kwire explain --html`) and of the documentation site
// (`kwire site`, site.h): one self-contained file each — no network, no external asset —
// made of a fixed template (tools/html/page.html, page.css, page.js, embedded at build
// time) and the page's data as JSON in a <script type="application/json"> element, which
// the page's script renders (byte grid coloured by section with a legend, collapsible
// object tree, hover and selection both ways, the decoder's error marked).
//
// Frames are hostile input: every string from a frame is data, never markup. The data is
// JSON (nlohmann/json, invalid UTF-8 replaced by U+FFFD) with `<`, `>`, `&`, U+2028 and
// U+2029 written as \u escapes, so nothing in it can end the script element; the script
// only ever sets textContent; the page's Content-Security-Policy allows no network and
// no script but its own (by SHA-256).
#ifndef KWIRE_TOOLS_HTML_PAGE_H_
#define KWIRE_TOOLS_HTML_PAGE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/harness/explain.h"
#include "codec/wire/types.h"

namespace kwire::html {

/// JSON values of the pages' data (members in insertion order).
using Json = nlohmann::ordered_json;

/// What a byte of a frame is part of: the grid's colours and the legend, in legend
/// order. The deepest node that defines a section wins (a Record inside a RecordBatch
/// inside a request body is kRecord).
enum class Section : uint8_t {
  kNone = 0,      ///< Not covered by any node (bytes after a decoding failure).
  kFraming,       ///< The int32 size prefix (PrintNode::Kind::kFrame).
  kHeader,        ///< Request or response header (kHeader).
  kRequestBody,   ///< The body of a request (kBody).
  kResponseBody,  ///< The body of a response (kBody).
  kRecordBatch,   ///< A record batch or partial batch in a records field (kRecords).
  kRecord,        ///< One record of a batch (the records printer's "Record[i]" nodes).
  kTaggedFields,  ///< A tagged-field section: count, tags, sizes, values (kTaggedFields).
};
inline constexpr int kSectionCount = 8;

/// The legend's name of a section: "framing", "rpc header", "request body",
/// "response body", "RecordBatch", "Record", "tagged_fields" ("" for kNone).
const char* SectionName(Section s);

/// The section of every byte of `ex.bytes` (same size), from `ex.nodes`.
std::vector<Section> ByteSections(const FrameExplanation& ex, Direction dir);

/// One frame shown on a page.
struct FrameView {
  FrameExplanation ex;
  Direction dir = Direction::kRequest;
  /// API key and version. Requests: read from the frame's header when not given.
  /// Responses: as they were typed (--api/--version, --requests).
  std::optional<int16_t> api_key, api_version;
  /// The frame's heading on the page, e.g. "Request", "frame 2 of 3, at byte 40 of the
  /// stream"; empty: none.
  std::string heading;
  /// The message definition's fields to show below the tree (site pages), or none.
  bool show_schema = false;
  /// For a frame that does not decode: what its failure points at (the hints of
  /// codec/harness/diagnose.h, as `kwire explain` prints them after "hint: "), shown under
  /// the error; the data's error.hints.
  std::vector<std::string> hints;
};

/// Limits of a page. A node costs about 60 bytes of page data plus its strings.
struct PageLimits {
  /// Nodes written per frame; the rest are dropped and the page says how many.
  size_t max_nodes = 250000;
};

/// The data of one frame as the page's script reads it:
///   {"heading", "title", "direction", "summary": [[name, value]...], "size",
///    "hex": 2 lowercase hex digits per byte, "**" for a redacted byte,
///    "sections": [[start, end, section]...] (runs, end exclusive, Section values),
///    "nodes": [[depth, offset, size, kind, flags, label, type, value, detail, note,
///               keep, rest]...] (pre-order; flags: 1 failed, 2 redacted; the path is
///               the first `keep` characters of the parent's path followed by `rest`),
///    "nodes_dropped", "status": "ok" or "error",
///    "error": null or {"kind", "offset", "path", "detail", "message", "hints": [text...]},
///    "schema": (show_schema) {"message", "version", "rows": [[depth, name, type,
///               versions, nullable, tag, tagged, present]...]}}
/// Strings are the explanation's as they are; invalid UTF-8 is replaced when written.
Json FrameData(const FrameView& f, const PageLimits& limits = {});

/// `j` as JSON text that can stand inside <script type="application/json">: invalid
/// UTF-8 replaced by U+FFFD, and `<`, `>`, `&`, U+2028, U+2029 written as \uXXXX (they
/// occur only inside JSON strings, where the escapes mean the same characters).
std::string ScriptSafeJson(const Json& j);

/// `s` with `&`, `<`, `>`, `"` and `'` as character references and invalid UTF-8
/// replaced by U+FFFD: text for an HTML element or attribute value.
std::string EscapeHtml(std::string_view s);

/// A page: the template with `title` (escaped) and `data` (ScriptSafeJson) filled in.
/// `data["page"]` selects what the script renders: "explain", "api" or "index".
std::string RenderPage(std::string_view title, const Json& data);

/// The page of `kwire explain --html`: every frame with summary, byte grid, legend,
/// object tree and, for a frame that does not decode, its error marked.
std::string ExplainPage(const std::vector<FrameView>& frames, const PageLimits& limits = {});

/// The page data's JSON text in `page` (the content of the element with id
/// "kwire-data"), or std::nullopt; for tests and tools that read pages back.
std::optional<std::string> PageDataText(std::string_view page);

}  // namespace kwire::html

#endif  // KWIRE_TOOLS_HTML_PAGE_H_
