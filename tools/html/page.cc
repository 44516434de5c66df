#include "tools/html/page.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/registry.h"
#include "codec/wire/error.h"
#include "codec/wire/hex.h"
#include "codec/wire/port.h"
#include "codec/wire/utf8.h"
#include "tools/html/html_assets.h"  // generated from page.html, page.css, page.js
#include "tools/html/schema.h"

namespace kwire::html {
namespace {

using Kind = PrintNode::Kind;

// `s` with every ill-formed UTF-8 sequence's first byte replaced by U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  while (!s.empty()) {
    const size_t bad = FindInvalidUtf8(s);
    out.append(s.substr(0, bad));
    if (bad == s.size()) break;
    out += "\xef\xbf\xbd";
    s.remove_prefix(bad + 1);
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The section a node defines for its bytes, or kNone (it takes its parent's).
Section NodeSection(const PrintNode& n, Direction dir) {
  switch (n.kind) {
    case Kind::kFrame:
      return Section::kFraming;
    case Kind::kHeader:
      return Section::kHeader;
    case Kind::kBody:
      return dir == Direction::kRequest ? Section::kRequestBody : Section::kResponseBody;
    case Kind::kTaggedFields:
      return Section::kTaggedFields;
    case Kind::kRecords:
      return Section::kRecordBatch;  // "Batch[i]", "partial batch" (print_records.h)
    case Kind::kField:
      // The records printer's records: "Record[i]" (RecordBatch v2 "record", legacy
      // "message"), below a batch.
      return StartsWith(n.label, "Record[") ? Section::kRecord : Section::kNone;
    default:
      return Section::kNone;
  }
}

// Number of leading characters of `parent` that `path` shares with it, counted in
// UTF-16 code units as the page's script counts them: ASCII only (stops at the first
// byte >= 0x80, so the count is the same in bytes and in code units).
size_t SharedAsciiPrefix(std::string_view parent, std::string_view path) {
  size_t i = 0;
  while (i < parent.size() && i < path.size() && parent[i] == path[i] &&
         static_cast<unsigned char>(path[i]) < 0x80) {
    ++i;
  }
  return i;
}

Json SummaryRow(std::string name, std::string value) {
  return Json::array({std::move(name), std::move(value)});
}

// The summary of one frame: API, key, version, header version, flexible versions, size.
Json Summary(const FrameView& f, const ApiInfo* api, std::optional<int16_t> key,
             std::optional<int16_t> version) {
  Json rows = Json::array();
  const bool request = f.dir == Direction::kRequest;
  if (api != nullptr) {
    rows.push_back(SummaryRow("API", api->name));
  } else if (key) {
    rows.push_back(SummaryRow("API", absl::StrFormat("unknown (key %d)", *key)));
  } else {
    rows.push_back(SummaryRow("API", "unknown (the header is not readable)"));
  }
  if (key) rows.push_back(SummaryRow("API key", absl::StrCat(*key)));
  if (version) {
    std::string v = absl::StrCat(*version);
    if (api != nullptr && !api->request_versions().Contains(*version)) {
      v += absl::StrFormat(" (not a version of this API: %s)", RangeText(api->request_versions()));
    } else if (api != nullptr && api->IsRemoved(*version)) {
      v += " (removed from Kafka's current releases)";
    }
    rows.push_back(SummaryRow("version", v));
  }
  if (key && version) {
    rows.push_back(SummaryRow(
        "header version",
        request ? absl::StrFormat("request header v%d", RequestHeaderVersion(*key, *version))
                : absl::StrFormat("response header v%d", ResponseHeaderVersion(*key, *version))));
  }
  if (api != nullptr) {
    const VersionRange flex = api->request->spec->flexible;
    rows.push_back(SummaryRow("flexible versions", RangeText(flex)));
    const VersionRange valid = request ? api->request_versions() : api->response_versions();
    const VersionRange current = api->current_versions();
    rows.push_back(SummaryRow(
        "API versions", current == valid ? RangeText(valid)
                                         : absl::StrFormat("%s (current %s)", RangeText(valid),
                                                           RangeText(current))));
  }
  std::string size = absl::StrFormat("%d bytes", f.ex.bytes.size());
  if (f.ex.bytes.size() >= 4) {
    size += absl::StrFormat(" (size prefix %d)", LoadBigEndian<int32_t>(f.ex.bytes.data()));
  }
  rows.push_back(SummaryRow("size", size));
  return rows;
}

Json SchemaData(const ApiInfo& api, Direction dir, int16_t version) {
  const MessageSpec* spec = api.ops(dir).spec;
  Json rows = Json::array();
  for (const SchemaRow& r : SchemaOf(spec)) {
    const FieldSpec& f = *r.field;
    int flags = 0;
    if (f.sensitive) flags |= 1;
    if (f.ignorable) flags |= 2;
    rows.push_back(Json::array({r.depth, f.name, f.type_name, RangeText(f.versions),
                                RangeText(f.nullable),
                                f.IsTagged() ? Json(f.tag) : Json(nullptr), RangeText(f.tagged),
                                f.versions.Contains(version), flags}));
  }
  Json j = Json::object();
  j["message"] = spec->name;
  j["version"] = version;
  j["flexible"] = RangeText(spec->flexible);
  j["rows"] = std::move(rows);
  return j;
}

}  // namespace

const char* SectionName(Section s) {
  switch (s) {
    case Section::kNone:
      return "";
    case Section::kFraming:
      return "framing";
    case Section::kHeader:
      return "rpc header";
    case Section::kRequestBody:
      return "request body";
    case Section::kResponseBody:
      return "response body";
    case Section::kRecordBatch:
      return "RecordBatch";
    case Section::kRecord:
      return "Record";
    case Section::kTaggedFields:
      return "tagged_fields";
  }
  return "";
}

std::vector<Section> ByteSections(const FrameExplanation& ex, Direction dir) {
  const size_t size = ex.bytes.size();
  std::vector<Section> out(size, Section::kNone);
  // Pre-order: a node comes after its ancestors, so deeper sections overwrite.
  for (const PrintNode& n : ex.nodes) {
    const Section s = NodeSection(n, dir);
    if (s == Section::kNone) continue;
    const size_t lo = std::min(n.offset, size);
    const size_t hi = std::min(n.offset + std::min(n.size, size), size);
    std::fill(out.begin() + static_cast<ptrdiff_t>(lo), out.begin() + static_cast<ptrdiff_t>(hi),
              s);
  }
  return out;
}

Json FrameData(const FrameView& f, const PageLimits& limits) {
  const FrameExplanation& ex = f.ex;
  const size_t size = ex.bytes.size();
  std::optional<int16_t> key = f.api_key, version = f.api_version;
  if (f.dir == Direction::kRequest && (!key || !version)) {
    if (const std::optional<RequestIds> ids = PeekRequestIds(ex.bytes)) {
      if (!key) key = ids->api_key;
      if (!version) version = ids->api_version;
    }
  }
  const ApiInfo* api = key ? FindApi(*key) : nullptr;

  Json j = Json::object();
  j["heading"] = ValidUtf8(f.heading);
  j["title"] = ValidUtf8(ex.title);
  j["direction"] = f.dir == Direction::kRequest ? "request" : "response";
  j["summary"] = Summary(f, api, key, version);
  j["size"] = size;

  // Bytes: hex, redacted ones hidden.
  std::string hex = HexString(ex.bytes);
  for (const PrintNode& n : ex.nodes) {
    if (!n.redacted) continue;
    const size_t hi = std::min(n.offset + std::min(n.size, size), size);
    for (size_t i = std::min(n.offset + n.redact_skip, hi); i < hi; ++i) {
      hex[2 * i] = hex[2 * i + 1] = '*';
    }
  }
  j["hex"] = std::move(hex);

  // Sections as runs.
  const std::vector<Section> sections = ByteSections(ex, f.dir);
  Json runs = Json::array();
  for (size_t i = 0; i < size;) {
    size_t end = i + 1;
    while (end < size && sections[end] == sections[i]) ++end;
    runs.push_back(Json::array({i, end, static_cast<int>(sections[i])}));
    i = end;
  }
  j["sections"] = std::move(runs);

  // Nodes, paths relative to the parent's.
  Json nodes = Json::array();
  const size_t shown = std::min(ex.nodes.size(), limits.max_nodes);
  // The parent of a node is the nearest earlier node of smaller depth (as the page's
  // script finds it): a stack of the open ancestors.
  std::vector<const PrintNode*> open;
  for (size_t i = 0; i < shown; ++i) {
    const PrintNode& n = ex.nodes[i];
    while (!open.empty() && open.back()->depth >= n.depth) open.pop_back();
    const size_t keep = open.empty() ? 0 : SharedAsciiPrefix(open.back()->path, n.path);
    open.push_back(&n);
    int flags = 0;
    if (n.failed) flags |= 1;
    if (n.redacted) flags |= 2;
    nodes.push_back(Json::array({n.depth, n.offset, n.size, static_cast<int>(n.kind), flags,
                                 n.label, n.type, n.value, n.detail, n.note, keep,
                                 n.path.substr(keep)}));
  }
  j["nodes"] = std::move(nodes);
  j["nodes_dropped"] = ex.nodes.size() - shown;

  j["status"] = ex.status.ok() ? "ok" : "error";
  if (ex.status.ok()) {
    j["error"] = nullptr;
  } else {
    Json e = Json::object();
    if (const std::optional<Error> err = ErrorFromStatus(ex.status)) {
      e["kind"] = ErrorKindName(err->kind);
      e["offset"] = err->offset;
      e["path"] = err->path;
      e["detail"] = err->detail;
    } else {
      e["kind"] = nullptr;
      e["offset"] = nullptr;
      e["path"] = "";
      e["detail"] = "";
    }
    e["message"] = std::string(ex.status.message());
    e["hints"] = f.hints;
    j["error"] = std::move(e);
  }
  if (f.show_schema && api != nullptr && version) {
    j["schema"] = SchemaData(*api, f.dir, *version);
  } else {
    j["schema"] = nullptr;
  }
  return j;
}

std::string ScriptSafeJson(const Json& j) {
  const std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size() + s.size() / 32);
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
               (s[i + 2] == '\xa8' || s[i + 2] == '\xa9')) {
      out += s[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view s) {
  std::string out;
  for (const char c : ValidUtf8(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderPage(std::string_view title, const Json& data) {
  // The script's hash for the Content-Security-Policy: 'sha256-<base64>'.
  std::string digest;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };  // lowercase hex
  for (size_t i = 0; i + 1 < assets::kPageJsSha256Hex.size(); i += 2) {
    digest.push_back(static_cast<char>(nibble(assets::kPageJsSha256Hex[i]) * 16 +
                                       nibble(assets::kPageJsSha256Hex[i + 1])));
  }
  const std::string script_hash = absl::StrCat("'sha256-", absl::Base64Escape(digest), "'");
  const std::string_view tpl = assets::kPageHtml;
  struct Slot {
    std::string_view marker;
    std::string_view value;
  };
  const std::string title_text = EscapeHtml(title);
  const std::string json = ScriptSafeJson(data);
  const Slot slots[] = {
      {"@KWIRE_TITLE@", title_text}, {"@KWIRE_SCRIPT_HASH@", script_hash},
      {"@KWIRE_CSS@", assets::kPageCss}, {"@KWIRE_DATA@", json},
      {"@KWIRE_JS@", assets::kPageJs},
  };
  // One pass over the template: filled-in values are never searched for markers.
  std::string out;
  out.reserve(tpl.size() + json.size() + assets::kPageCss.size() + assets::kPageJs.size());
  size_t at = 0;
  while (at < tpl.size()) {
    const size_t next = tpl.find('@', at);
    if (next == std::string_view::npos) {
      out.append(tpl.substr(at));
      break;
    }
    out.append(tpl.substr(at, next - at));
    const Slot* hit = nullptr;
    for (const Slot& s : slots) {
      if (tpl.substr(next, s.marker.size()) == s.marker) hit = &s;
    }
    if (hit != nullptr) {
      out.append(hit->value);
      at = next + hit->marker.size();
    } else {
      out.push_back('@');
      at = next + 1;
    }
  }
  return out;
}

std::string ExplainPage(const std::vector<FrameView>& frames, const PageLimits& limits) {
  Json data = Json::object();
  data["page"] = "explain";
  std::string title;
  if (frames.size() == 1) {
    title = frames[0].ex.title.empty() ? "1 frame" : frames[0].ex.title;
  } else {
    title = absl::StrFormat("%d frames", frames.size());
  }
  title = ValidUtf8(title);
  data["title"] = title;
  Json list = Json::array();
  for (const FrameView& f : frames) list.push_back(FrameData(f, limits));
  data["frames"] = std::move(list);
  return RenderPage("kwire explain: " + title, data);
}

std::optional<std::string> PageDataText(std::string_view page) {
  constexpr std::string_view kOpen = "<script type=\"application/json\" id=\"kwire-data\">";
  const size_t start = page.find(kOpen);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t from = start + kOpen.size();
  const size_t end = page.find("</script>", from);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(page.substr(from, end - from));
}

}  // namespace kwire::html
