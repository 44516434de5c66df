#include "codec/harness/explain.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "codec/harness/diagnose.h"
#include "codec/protocol/frame.h"

namespace kwire {
namespace {

using Kind = PrintNode::Kind;
constexpr size_t kSizePrefix = 4;

void AnnotateHeader(std::vector<PrintNode>& nodes, size_t from, const ApiInfo* api, bool request);
void AddTrailing(PrintBuilder& b, const absl::Status& s, size_t frame_size);

// The frame walk of frame.cc, observed: the size prefix as a `Frame` node with a `size`
// child, the header and the body through the explain visitor (print.h). Frame-level
// rules (size prefix, API key and version, trailing bytes) are frame.cc's own.
class TreeWalk final : public frame_internal::FrameObserver {
 public:
  TreeWalk(PrintBuilder& b, const ApiInfo* api, std::optional<AnyMessage>* body)
      : b_(b), api_(api), body_(body) {}

  void BeginSizePrefix(const Reader& r) override {
    frame_ = b_.Open(r, Kind::kFrame, "Frame", "", "Frame");
    b_.node(frame_).note = "length-delimited framing";
    size_ = b_.Open(r, Kind::kField, "size", "int32", "Frame.size");
  }
  void EndSizePrefix(const Reader& r, int32_t size) override {
    b_.Close(r, size_);
    b_.Close(r, frame_);
    if (!r.ok()) return;
    b_.node(size_).value = PrintBuilder::Int(size);
    b_.node(size_).note = "number of bytes that follow";
  }
  void ReadRequestHeader(Reader& r, int16_t hv, RequestHeader& h) override {
    const size_t from = b_.nodes().size();
    PrintBody(r, hv, b_, h,
              PrintScope{Kind::kHeader, "RequestHeader", absl::StrFormat("v%d", hv),
                         "RequestHeader", "common request header", true});
    AnnotateHeader(b_.nodes(), from, api_, true);
  }
  void ReadResponseHeader(Reader& r, int16_t hv, ResponseHeader& h) override {
    const size_t from = b_.nodes().size();
    PrintBody(r, hv, b_, h,
              PrintScope{Kind::kHeader, "ResponseHeader", absl::StrFormat("v%d", hv),
                         "ResponseHeader", "common response header", true});
    AnnotateHeader(b_.nodes(), from, api_, false);
  }
  // `body` is the message the walk created in `body_` (the explanation's own).
  void ReadBody(Reader& r, const MessageOps&, int16_t version, void*,
                const RecordsDecode& records) override {
    b_.set_records(records);
    PrintAnyBody(r, version, b_, **body_);
  }
  // After the walk (ex.status set): the verdict is the tree's too; a size-prefix rule
  // that failed marks the size node, trailing bytes get a node of their own.
  void Finish(FrameExplanation& ex) {
    ex.tree_status = ex.status;
    const std::optional<Error> e = ErrorFromStatus(ex.status);
    if (size_ != SIZE_MAX && e && e->path == "Frame.size") b_.node(size_).failed = true;
    AddTrailing(b_, ex.status, ex.bytes.size());
  }

 private:
  PrintBuilder& b_;
  const ApiInfo* api_;
  std::optional<AnyMessage>* body_;
  size_t frame_ = SIZE_MAX, size_ = SIZE_MAX;
};

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

// Trailing bytes after the body (the walk failed kTrailingBytes where the body ended):
// one failed node up to the end of the frame.
void AddTrailing(PrintBuilder& b, const absl::Status& s, size_t frame_size) {
  const std::optional<Error> e = ErrorFromStatus(s);
  if (!e || e->kind != ErrorKind::kTrailingBytes || e->path == "Frame.size") return;
  const size_t n = b.OpenAt(e->offset, Kind::kField, "trailing", "bytes", "Trailing");
  b.node(n).value = absl::StrFormat("%d bytes", frame_size - e->offset);
  b.node(n).failed = true;
  b.CloseAt(n, frame_size);
}

// The root spans the whole input (the walk reads every byte of a frame it accepts).
void FinishRoot(PrintBuilder& b, const absl::Status& status, size_t root,
                const MessageSpec* spec, int16_t version, const char* fallback) {
  PrintNode& n = b.node(root);
  n.label = spec != nullptr ? spec->name : fallback;
  n.path = n.label;
  n.type = spec != nullptr ? absl::StrFormat("message v%d", version) : "message";
  b.CloseAt(root, b.bytes().size());
  if (!status.ok()) b.node(root).failed = true;
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

// The frame decode an explanation observes: the print options' quirks, budget and records
// handling.
FrameOptions FrameOptionsOf(const PrintOptions& options) {
  FrameOptions fo;
  fo.quirks = options.decode.quirks;
  fo.max_alloc_bytes = options.decode.max_alloc_bytes;
  fo.records_mode = options.records_mode;
  fo.borrow_records = options.borrow_records;
  return fo;
}

}  // namespace

FrameExplanation ExplainRequestFrame(std::span<const uint8_t> frame, const PrintOptions& options) {
  FrameExplanation ex;
  ex.bytes.assign(frame.begin(), frame.end());
  const FrameOptions fo = FrameOptionsOf(options);
  const ApiInfo* keyed = nullptr;  // the API named by the key, whatever the version
  const ApiInfo* api = nullptr;    // the same when the version is valid
  int16_t version = 0;
  if (const std::optional<RequestApi> ids = PeekRequestApi(frame)) {
    version = ids->api_version;
    keyed = FindApi(ids->api_key);
    if (keyed != nullptr && keyed->request_versions().Contains(version)) api = keyed;
  }
  PrintBuilder b(frame, options, ex.nodes);
  const Reader start(frame);
  const size_t root = b.Open(start, Kind::kMessage, "", "", "");
  std::optional<AnyMessage> body;
  TreeWalk walk(b, api, &body);
  int16_t hv = 1;
  RequestHeader header;
  ex.status = frame_internal::DecodeRequestFrameInto(
      frame, fo, &hv, &header, [&](const MessageOps& ops) { return body.emplace(ops).raw(); },
      &walk);
  walk.Finish(ex);
  if (api != nullptr && body.has_value()) {
    ex.title = absl::StrFormat("%s v%d, request header v%d, %d bytes on the wire",
                               api->request->spec->name, version, hv, frame.size());
  } else if (api != nullptr) {
    ex.title = absl::StrFormat("%s v%d, %d bytes on the wire", api->request->spec->name, version,
                               frame.size());
  } else {
    ex.title = absl::StrFormat("request, %d bytes on the wire", frame.size());
  }
  FinishRoot(b, ex.status, root, api != nullptr ? api->request->spec : nullptr, version,
             "Request");
  // By API key alone: an unsupported version's body is not explained but may hold secrets.
  HideUnlocatedSecrets(ex, keyed != nullptr ? keyed->request->spec : nullptr, options);
  AddValueLengthRows(ex, false);  // the failed string or bytes value's length (diagnose.h)
  MarkCrcFailure(ex);
  return ex;
}

FrameExplanation ExplainResponseFrame(std::span<const uint8_t> frame, int16_t api_key,
                                      int16_t api_version, const PrintOptions& options) {
  FrameExplanation ex;
  ex.bytes.assign(frame.begin(), frame.end());
  const FrameOptions fo = FrameOptionsOf(options);
  const ApiInfo* const keyed = FindApi(api_key);
  // An ApiVersions version above kwire's newest is read as KIP-511's v0 fallback.
  const bool newer_api_versions = keyed != nullptr && api_key == 18 &&
                                  api_version > keyed->response_versions().hi;
  const ApiInfo* const api =
      keyed != nullptr && (keyed->response_versions().Contains(api_version) || newer_api_versions)
          ? keyed
          : nullptr;
  PrintBuilder b(frame, options, ex.nodes);
  const Reader start(frame);
  const size_t root = b.Open(start, Kind::kMessage, "", "", "");
  std::optional<AnyMessage> body;
  TreeWalk walk(b, api, &body);
  int16_t hv = 0;
  int16_t body_version = api_version;
  ResponseHeader header;
  ex.status = frame_internal::DecodeResponseFrameInto(
      frame, api_key, api_version, fo, &hv, &header, &body_version,
      [&](const MessageOps& ops) { return body.emplace(ops).raw(); }, &walk);
  walk.Finish(ex);
  if (api != nullptr && ApiVersionsFallback(api_key, api_version, body_version)) {
    ex.title = absl::StrFormat(
        "%s v%d (ApiVersions v0 fallback, KIP-511: the request was v%d), response header "
        "v%d, %d bytes on the wire",
        api->response->spec->name, body_version, api_version,
        ResponseHeaderVersion(api_key, api_version), frame.size());
  } else if (api != nullptr) {
    ex.title = absl::StrFormat("%s v%d, response header v%d, %d bytes on the wire",
                               api->response->spec->name, api_version,
                               ResponseHeaderVersion(api_key, api_version), frame.size());
  } else {
    ex.title = absl::StrFormat("response, %d bytes on the wire", frame.size());
  }
  FinishRoot(b, ex.status, root, api != nullptr ? api->response->spec : nullptr, body_version,
             "Response");
  HideUnlocatedSecrets(ex, keyed != nullptr ? keyed->response->spec : nullptr, options);
  AddValueLengthRows(ex, false);
  MarkCrcFailure(ex);
  return ex;
}

std::string RenderFrameExplanation(const FrameExplanation& ex) {
  std::string out = ex.title + "\n\n";
  out += RenderMarkedByteLayout(ex);
  out += "\nobject tree\n";
  out += RenderObjectTree(ex.nodes);
  if (!ex.status.ok()) out += "\nerror: " + RenderErrorInContext(ex) + "\n";
  return out;
}

}  // namespace kwire
