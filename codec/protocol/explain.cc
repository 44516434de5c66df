#include "codec/protocol/explain.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "codec/protocol/frame.h"

namespace kwire {
namespace {

using Kind = PrintNode::Kind;
constexpr size_t kSizePrefix = 4;

// The size prefix as a `Frame` node with a `size` child. Returns true when the prefix
// matches the frame, so that the header and body can follow. (The frame-level rules and
// their error texts are frame.cc's: the explanation's status is the decoder's.)
bool PrintSizePrefix(Reader& r, PrintBuilder& b, size_t frame_size) {
  PathNode root{nullptr, "Frame.size", -1};
  r.set_path(&root);
  const size_t fr = b.Open(r, Kind::kFrame, "Frame", "", "Frame");
  b.node(fr).note = "length-delimited framing";
  const size_t s = b.Open(r, Kind::kField, "size", "int32", "Frame.size");
  const int32_t size = r.ReadInt32();
  b.Close(r, s);
  b.Close(r, fr);
  r.set_path(nullptr);
  if (!r.ok()) return false;
  b.node(s).value = PrintBuilder::Int(size);
  b.node(s).note = "number of bytes that follow";
  if (size >= 0 && static_cast<size_t>(size) == frame_size - kSizePrefix) return true;
  b.node(s).failed = true;
  return false;
}

// Notes of the header rows (the protocol guide's header fields).
void AnnotateHeader(std::vector<PrintNode>& nodes, size_t from, const ApiInfo* api, bool request) {
  for (size_t i = from; i < nodes.size(); ++i) {
    PrintNode& n = nodes[i];
    if (n.label == "request_api_key") {
      n.note = "numeric id of the API being invoked";
      if (api != nullptr) n.detail = absl::StrFormat("(%s)", api->name);
    } else if (n.label == "request_api_version") {
      n.note = "version of the API being invoked";
    } else if (n.label == "correlation_id") {
      n.note = request ? "echoed back by the broker in the response"
                       : "matches the correlation_id of the request";
    } else if (n.label == "client_id") {
      n.note = "always a non-flexible int16-prefixed string";
    }
  }
}

// Trailing bytes after the body: one failed node. Returns false if there are any.
bool PrintEnd(Reader& r, PrintBuilder& b, size_t frame_size) {
  if (!r.ok() || r.AtEnd()) return true;
  const size_t n = b.OpenAt(r.offset(), Kind::kField, "trailing", "bytes", "Trailing");
  b.node(n).value = absl::StrFormat("%d bytes", r.remaining());
  b.node(n).failed = true;
  b.CloseAt(n, frame_size);
  return false;
}

// The explain visitor's verdict: its reader's error where it read (header and body);
// where it stopped at a frame-level rule (size prefix, API key and version, trailing
// bytes), the decoder's.
absl::Status TreeStatus(const Reader& r, bool complete, const absl::Status& decoded) {
  if (!r.ok()) return r.error().ToStatus();
  return complete ? absl::OkStatus() : decoded;
}

void FinishRoot(PrintBuilder& b, const Reader& r, size_t root, const MessageSpec* spec,
                int16_t version, const char* fallback, bool ok) {
  PrintNode& n = b.node(root);
  n.label = spec != nullptr ? spec->name : fallback;
  n.path = n.label;
  n.type = spec != nullptr ? absl::StrFormat("message v%d", version) : "message";
  b.Close(r, root);
  if (!ok) {
    b.node(root).failed = true;
    b.node(root).size = b.bytes().size();  // the root always spans the whole input
  }
}

// A message with sensitive fields whose frame does not decode: the explain visitor
// redacts a secret only where it read it completely, so a secret after the failure, or
// the one that failed, would show in the byte layout. Hides everything from the body
// (or, without a body node, from the end of the size prefix) with one redacted node,
// unless secrets are asked for.
void HideUnlocatedSecrets(FrameExplanation& ex, const MessageSpec* spec,
                          const PrintOptions& options) {
  if (spec == nullptr || !spec->has_sensitive || options.show_secrets ||
      (ex.status.ok() && ex.tree_status.ok())) {
    return;
  }
  size_t from = std::min(kSizePrefix, ex.bytes.size());
  for (const PrintNode& n : ex.nodes) {
    if (n.kind == Kind::kBody) from = n.offset;
  }
  PrintNode hidden;
  hidden.kind = Kind::kField;
  hidden.depth = 1;
  hidden.offset = from;
  hidden.size = ex.bytes.size() - from;
  hidden.label = "hidden";
  hidden.type = "bytes";
  hidden.path = "Hidden";
  hidden.value = absl::StrFormat("<redacted, %d bytes>", hidden.size);
  hidden.note = absl::StrFormat(
      "%s has sensitive fields and this frame does not decode, so they cannot be located: "
      "these bytes are hidden (--show-secrets shows them)",
      spec->name);
  hidden.redacted = true;
  ex.nodes.push_back(std::move(hidden));
}

}  // namespace

FrameExplanation ExplainRequestFrame(std::span<const uint8_t> frame, const PrintOptions& options) {
  FrameExplanation ex;
  ex.bytes.assign(frame.begin(), frame.end());
  FrameOptions fo;
  fo.decode = options.decode;
  fo.records_mode = options.records_mode;
  ex.status = DecodeRequestFrame(frame, fo).status();

  const RecordsFieldValidator records(fo.records);
  Reader r(frame, 0, FrameDecodeOptions(fo, &records));
  PrintBuilder b(frame, options, ex.nodes);
  const size_t root = b.Open(r, Kind::kMessage, "", "", "");
  bool complete = false;
  const ApiInfo* keyed = nullptr;  // the API named by the key, whatever the version
  const ApiInfo* api = nullptr;    // the same when the version is valid
  int16_t version = 0;
  const bool size_ok = PrintSizePrefix(r, b, frame.size());
  if (const std::optional<RequestApi> ids = PeekRequestApi(frame)) {
    version = ids->api_version;
    keyed = FindApi(ids->api_key);
    if (keyed != nullptr && keyed->request_versions().Contains(version)) api = keyed;
  }
  if (api != nullptr && size_ok) {
    const int16_t hv = RequestHeaderVersion(api->api_key, version);
    RequestHeader header;
    const size_t from = ex.nodes.size();
    PrintBody(r, hv, b, header,
              PrintScope{Kind::kHeader, "RequestHeader", absl::StrFormat("v%d", hv),
                         "RequestHeader", "common request header", true});
    AnnotateHeader(ex.nodes, from, api, true);
    AnyMessage body(*api->request);
    PrintAnyBody(r, version, b, body);
    complete = PrintEnd(r, b, frame.size());
    ex.title = absl::StrFormat("%s v%d, request header v%d, %d bytes on the wire",
                               api->request->spec->name, version, hv, frame.size());
  } else if (api != nullptr) {
    ex.title = absl::StrFormat("%s v%d, %d bytes on the wire", api->request->spec->name, version,
                               frame.size());
  } else {
    ex.title = absl::StrFormat("request, %d bytes on the wire", frame.size());
  }
  ex.tree_status = TreeStatus(r, complete, ex.status);
  FinishRoot(b, r, root, api != nullptr ? api->request->spec : nullptr, version, "Request",
             ex.tree_status.ok());
  // By API key alone: an unsupported version's body is not explained but may hold secrets.
  HideUnlocatedSecrets(ex, keyed != nullptr ? keyed->request->spec : nullptr, options);
  return ex;
}

FrameExplanation ExplainResponseFrame(std::span<const uint8_t> frame, int16_t api_key,
                                      int16_t api_version, const PrintOptions& options) {
  FrameExplanation ex;
  ex.bytes.assign(frame.begin(), frame.end());
  FrameOptions fo;
  fo.decode = options.decode;
  fo.records_mode = options.records_mode;
  ex.status = DecodeResponseFrame(frame, api_key, api_version, fo).status();

  const RecordsFieldValidator records(fo.records);
  Reader r(frame, 0, FrameDecodeOptions(fo, &records));
  PrintBuilder b(frame, options, ex.nodes);
  const size_t root = b.Open(r, Kind::kMessage, "", "", "");
  bool complete = false;
  const ApiInfo* const keyed = FindApi(api_key);
  const ApiInfo* const api =
      keyed != nullptr && keyed->response_versions().Contains(api_version) ? keyed : nullptr;
  if (api != nullptr) {
    const int16_t hv = ResponseHeaderVersion(api_key, api_version);
    if (PrintSizePrefix(r, b, frame.size())) {
      ResponseHeader header;
      const size_t from = ex.nodes.size();
      PrintBody(r, hv, b, header,
                PrintScope{Kind::kHeader, "ResponseHeader", absl::StrFormat("v%d", hv),
                           "ResponseHeader", "common response header", true});
      AnnotateHeader(ex.nodes, from, api, false);
      AnyMessage body(*api->response);
      PrintAnyBody(r, api_version, b, body);
      complete = PrintEnd(r, b, frame.size());
    }
    ex.title = absl::StrFormat("%s v%d, response header v%d, %d bytes on the wire",
                               api->response->spec->name, api_version, hv, frame.size());
  } else {
    ex.title = absl::StrFormat("response, %d bytes on the wire", frame.size());
  }
  ex.tree_status = TreeStatus(r, complete, ex.status);
  FinishRoot(b, r, root, api != nullptr ? api->response->spec : nullptr, api_version, "Response",
             ex.tree_status.ok());
  HideUnlocatedSecrets(ex, keyed != nullptr ? keyed->response->spec : nullptr, options);
  return ex;
}

std::string RenderFrameExplanation(const FrameExplanation& ex) {
  std::string out = ex.title + "\n\n";
  out += RenderByteLayout(ex.bytes, ex.nodes);
  out += "\nobject tree\n";
  out += RenderObjectTree(ex.nodes);
  if (!ex.status.ok()) out += "\nerror: " + std::string(ex.status.message()) + "\n";
  return out;
}

}  // namespace kwire
