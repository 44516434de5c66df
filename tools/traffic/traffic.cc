#include "tools/traffic/traffic.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "codec/generated/sasl_handshake_response.h"
#include "codec/protocol/registry.h"
#include "codec/wire/byte_diff.h"

namespace kwire::traffic {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kOk: return "ok";
    case Verdict::kRefused: return "refused";
    case Verdict::kRejected: return "rejected";
    case Verdict::kNotCanonical: return "not_canonical";
    case Verdict::kUncorrelated: return "uncorrelated";
    case Verdict::kOpaque: return "opaque";
    case Verdict::kUnchecked: return "unchecked";
  }
  return "?";
}

bool Conforms(Verdict v) {
  return v == Verdict::kOk || v == Verdict::kRefused || v == Verdict::kOpaque ||
         v == Verdict::kUnchecked;
}

namespace {

void Reject(FrameReport& r, const absl::Status& status) {
  r.verdict = Verdict::kRejected;
  r.error = ErrorFromStatus(status);
  r.message = std::string(status.message());
}

// The re-encoding of a decoded frame against its bytes.
void Compare(FrameReport& r, const absl::StatusOr<std::vector<uint8_t>>& again,
             std::span<const uint8_t> frame) {
  if (!again.ok()) {
    r.verdict = Verdict::kNotCanonical;
    r.message = absl::StrFormat("decodes, but re-encoding fails: %s", again.status().message());
    return;
  }
  if (!std::equal(again->begin(), again->end(), frame.begin(), frame.end())) {
    r.verdict = Verdict::kNotCanonical;
    r.first_difference = FirstDifference(*again, frame);
    r.message = absl::StrFormat("decodes, but re-encodes differently (%s)",
                                DescribeFrameDifference(frame, *again, "re-encoded"));
  }
}

}  // namespace

ConnectionCheck::ConnectionCheck(uint64_t connection, const CheckOptions& options)
    : connection_(connection),
      options_(options),
      correlator_(Correlator::Options{.max_pending = options.max_pending, .in_order = true}) {
  frame_options_.max_frame_size = options.max_frame_size;
  frame_options_.quirks = options.quirks;
  frame_options_.records_mode = options.records;
}

FrameReport ConnectionCheck::OnRequest(std::span<const uint8_t> frame,
                                       std::optional<RequestFrame>* decoded) {
  FrameReport r;
  r.connection = connection_;
  r.way = Way::kRequest;
  r.size = frame.size();
  const std::optional<RequestIds> ids = PeekRequestIds(frame);
  if (ids) {
    r.api_key = ids->api_key;
    r.api_version = ids->api_version;
    r.correlation_id = ids->correlation_id;
    r.correlation_id_read = true;
  }
  absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(frame, frame_options_);
  if (raw_sasl_) {
    if (!read.ok()) {  // a raw SASL token after SaslHandshake v0, answered by one token
      r = FrameReport();
      r.connection = connection_;
      r.size = frame.size();
      r.verdict = Verdict::kOpaque;
      r.message = "a SASL token (after SaslHandshake v0)";
      ++raw_tokens_unanswered_;
      return r;
    }
    raw_sasl_ = false;  // authenticated: Kafka requests again
  }
  if (!read.ok()) {
    Reject(r, read.status());
    // The broker closes such a connection (RequestContext.parseRequest); if it answers
    // anyway, the response is typed by what the header says.
    if (ids) (void)correlator_.AddRequest(*ids);
    return r;
  }
  const RequestFrame& request = read->frame;
  Compare(r, EncodeRequestFrame(request.header, request.body, EncodeOptions{options_.quirks}),
          frame);
  if (r.verdict == Verdict::kOk && read->refused()) {
    r.verdict = Verdict::kRefused;
    r.refusals = std::move(read->refusals);
  }
  if (ExpectsResponse(request)) {
    if (absl::Status added = correlator_.AddRequest(*ids); !added.ok()) {
      r.message = absl::StrFormat("its response will not be typed: %s", added.message());
    }
  }
  if (r.api_key == 17 && r.api_version == 0) sasl_v0_handshake_ = r.correlation_id;
  if (decoded != nullptr) decoded->emplace(std::move(read->frame));
  return r;
}

FrameReport ConnectionCheck::OnResponse(std::span<const uint8_t> frame,
                                        std::optional<ResponseFrame>* decoded) {
  FrameReport r;
  r.connection = connection_;
  r.way = Way::kResponse;
  r.size = frame.size();
  if (raw_sasl_ && raw_tokens_unanswered_ > 0) {
    --raw_tokens_unanswered_;
    r.verdict = Verdict::kOpaque;
    r.message = "a SASL token (after SaslHandshake v0)";
    return r;
  }
  if (const std::optional<int32_t> id = PeekResponseCorrelationId(frame)) {
    r.correlation_id = *id;
    r.correlation_id_read = true;
  }
  absl::StatusOr<Correlator::Match> match = correlator_.TakeResponseFrame(frame);
  if (!match.ok()) {
    r.verdict = Verdict::kUncorrelated;
    r.message = std::string(match.status().message());
    return r;
  }
  r.api_key = match->request.api_key;
  r.api_version = match->request.api_version;
  r.skipped = match->skipped;
  absl::StatusOr<ResponseFrame> response =
      DecodeResponseFrame(frame, r.api_key, r.api_version, frame_options_);
  if (!response.ok()) {
    Reject(r, response.status());
    return r;
  }
  r.body_version = response->body_version;
  Compare(r,
          EncodeResponseFrame(response->header, r.api_key, response->body_version,
                              response->body, EncodeOptions{options_.quirks}),
          frame);
  if (r.api_key == 17 && sasl_v0_handshake_ == r.correlation_id) {
    sasl_v0_handshake_.reset();
    const SaslHandshakeResponse* h = response->body.get<SaslHandshakeResponse>();
    raw_sasl_ = h != nullptr && h->error_code == 0;
  }
  if (decoded != nullptr) decoded->emplace(std::move(*response));
  return r;
}

Json ReportJson(const FrameReport& r) {
  Json j;
  j["connection"] = r.connection;
  j["direction"] = r.way == Way::kRequest ? "request" : "response";
  if (r.api_key >= 0) {
    j["api_key"] = r.api_key;
    if (const ApiInfo* api = FindApi(r.api_key)) j["api"] = api->name;
    j["version"] = r.api_version;
  }
  if (r.body_version >= 0 && r.body_version != r.api_version) j["body_version"] = r.body_version;
  if (r.correlation_id_read) j["correlation_id"] = r.correlation_id;
  j["size"] = r.size;
  j["verdict"] = VerdictName(r.verdict);
  if (r.error) {
    j["error"] = Json{{"kind", ErrorKindName(r.error->kind)},
                      {"offset", r.error->offset},
                      {"path", r.error->path},
                      {"message", r.message}};
  } else if (!r.message.empty()) {
    j["message"] = r.message;
  }
  if (r.verdict == Verdict::kNotCanonical) j["first_difference"] = r.first_difference;
  if (!r.refusals.empty()) {
    Json refusals = Json::array();
    for (const Refusal& refusal : r.refusals) refusals.push_back(RefusalJson(refusal));
    j["refusals"] = std::move(refusals);
  }
  if (r.skipped > 0) j["unanswered"] = r.skipped;
  return j;
}

void Summary::Add(const FrameReport& r) {
  ++counts_[Key{r.api_key, r.api_version, r.way}][r.verdict];
  ++frames_;
  failures_ += !Conforms(r.verdict);
}

std::string Summary::Table() const {
  std::string s = absl::StrFormat("%-4s %-36s %-8s %-9s %8s %8s  %s\n", "key", "api", "version",
                                  "direction", "frames", "conform", "other verdicts");
  for (const auto& [key, verdicts] : counts_) {
    size_t total = 0, good = 0;
    std::string other;
    for (const auto& [v, n] : verdicts) {
      total += n;
      if (Conforms(v) && v != Verdict::kUnchecked) {  // "unchecked" is listed, not counted
        good += n;
      } else {
        other += absl::StrFormat("%s%s %d", other.empty() ? "" : ", ", VerdictName(v), n);
      }
    }
    const ApiInfo* api = key.api_key >= 0 ? FindApi(key.api_key) : nullptr;
    s += absl::StrFormat(
        "%-4s %-36s %-8s %-9s %8d %8d  %s\n",
        key.api_key >= 0 ? std::to_string(key.api_key) : "-",
        api != nullptr ? api->name : (key.api_key >= 0 ? "(unknown)" : "(untyped)"),
        key.version >= 0 ? "v" + std::to_string(key.version) : "-",
        key.way == Way::kRequest ? "request" : "response", total, good, other);
  }
  s += absl::StrFormat("%d frames, %d not conforming\n", frames_, failures_);
  return s;
}

Json Summary::ToJson() const {
  Json apis = Json::array();
  for (const auto& [key, verdicts] : counts_) {
    Json v = Json::object();
    size_t total = 0;
    for (const auto& [verdict, n] : verdicts) {
      v[VerdictName(verdict)] = n;
      total += n;
    }
    const ApiInfo* api = key.api_key >= 0 ? FindApi(key.api_key) : nullptr;
    apis.push_back(Json{{"api_key", key.api_key},
                        {"api", api != nullptr ? api->name : ""},
                        {"version", key.version},
                        {"direction", key.way == Way::kRequest ? "request" : "response"},
                        {"frames", total},
                        {"verdicts", std::move(v)}});
  }
  return Json{{"frames", frames_}, {"failures", failures_}, {"apis", std::move(apis)}};
}

}  // namespace kwire::traffic
