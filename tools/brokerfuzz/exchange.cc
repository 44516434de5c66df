// One mutated request against a live broker (exchange.h).
#include "tools/brokerfuzz/exchange.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codec/generated/add_partitions_to_txn_request.h"
#include "codec/generated/alter_configs_request.h"
#include "codec/generated/api_versions_request.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/elect_leaders_request.h"
#include "codec/generated/fetch_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/produce_request.h"
#include "codec/generated/share_fetch_request.h"
#include "codec/generated/write_txn_markers_request.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "codec/wire/error.h"
#include "codec/wire/hex.h"
#include "codec/wire/port.h"
#include "tools/json/json.h"

namespace kwire::brokerfuzz {
namespace {

constexpr int32_t kProbeId = 0x6b776972;  // "kwir"
constexpr size_t kKeptAnswerBytes = 64 * 1024;

int32_t ReadInt32(const std::vector<uint8_t>& b) {
  return kwire::LoadBigEndian<int32_t>(b.data());
}

std::string ApiName(int16_t key) {
  const ApiInfo* api = FindApi(key);
  return api != nullptr ? std::string(api->name) : absl::StrCat("api ", key);
}

// "<kind> @ <normalized path>" of a decode error (the kind alone without a path).
std::string ErrorWhere(const absl::Status& s, size_t* offset, std::string* path) {
  const std::optional<Error> e = ErrorFromStatus(s);
  if (!e) return "error";
  *offset = e->offset;
  *path = e->path;
  std::string where = ErrorKindName(e->kind);
  if (!e->path.empty()) absl::StrAppend(&where, " @ ", diff::NormalizePath(e->path));
  return where;
}

// The path of the first error code field of `j` that holds -1 (UNKNOWN_SERVER_ERROR), or "".
std::string FindUnknownServerError(const Json& j, const std::string& path) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string at = path.empty() ? it.key() : absl::StrCat(path, ".", it.key());
      if (absl::EndsWith(it.key(), "ErrorCode") && it.value().is_number_integer() && it.value().get<int64_t>() == -1) {
        return at;
      }
      if (std::string found = FindUnknownServerError(it.value(), at); !found.empty()) return found;
    }
  } else if (j.is_array()) {
    for (const Json& e : j) {
      if (std::string found = FindUnknownServerError(e, path + "[]"); !found.empty()) return found;
    }
  }
  return "";
}

std::string ViewText(const diff::LocalView& v) {
  std::string s = v.kind;
  if (!v.path.empty()) absl::StrAppend(&s, " @ ", diff::NormalizePath(v.path));
  return s;
}

}  // namespace

const char* FramingName(Framing f) {
  switch (f) {
    case Framing::kWhole: return "whole";
    case Framing::kShort: return "short";
    case Framing::kBadSize: return "bad size";
    case Framing::kNoPrefix: return "no prefix";
  }
  return "?";
}

const char* FindingKindName(FindingKind k) {
  switch (k) {
    case FindingKind::kUndecodable: return "undecodable";
    case FindingKind::kNotCanonical: return "not_canonical";
    case FindingKind::kCorrelation: return "correlation";
    case FindingKind::kStall: return "stall";
    case FindingKind::kUnexpectedAnswer: return "unexpected_answer";
    case FindingKind::kUnanswered: return "unanswered";
    case FindingKind::kTruncatedAnswer: return "truncated_answer";
    case FindingKind::kApiVersions: return "apiversions";
    case FindingKind::kBrokerDown: return "broker_down";
    case FindingKind::kRss: return "rss";
    case FindingKind::kUnregistered: return "unregistered";
  }
  return "?";
}

std::vector<uint8_t> ApiVersionsRequestFrame(int32_t correlation_id) {
  ApiVersionsRequest body;
  body.client_software_name = "kwire-broker-fuzz";
  body.client_software_version = "1";
  absl::StatusOr<std::vector<uint8_t>> f =
      EncodeRequestFrame<ApiVersionsRequest>(3, correlation_id, std::string("kwire-broker-fuzz"), body);
  return f.ok() ? *std::move(f) : std::vector<uint8_t>();
}

std::string KnownShape(const RequestFrame& request) {
  if (const ProduceRequest* p = request.body.get<ProduceRequest>()) {
    for (const auto& t : p->topic_data) {
      for (const auto& part : t.partition_data) {
        if (!part.records) return "null records";
      }
    }
  } else if (const AddPartitionsToTxnRequest* a = request.body.get<AddPartitionsToTxnRequest>()) {
    if (request.api_version() >= 4 && a->transactions.empty()) return "no transactions";
  } else if (const AlterConfigsRequest* c = request.body.get<AlterConfigsRequest>()) {
    // ConfigResource.Type.forId: the types Kafka does not know are all UNKNOWN (0).
    std::set<std::pair<int, std::string>> seen;
    for (const auto& r : c->resources) {
      const int8_t t = r.resource_type;
      const int type = t == 2 || t == 4 || t == 8 || t == 16 || t == 32 ? t : 0;
      if (!seen.emplace(type, r.resource_name).second) return "duplicate resource";
    }
  } else if (const WriteTxnMarkersRequest* w = request.body.get<WriteTxnMarkersRequest>()) {
    for (const auto& marker : w->markers) {
      std::set<std::pair<std::string, int32_t>> seen;
      for (const auto& t : marker.topics) {
        for (int32_t i : t.partition_indexes) {
          if (!seen.emplace(t.name, i).second) return "duplicate partition";
        }
      }
    }
  }
  return "";
}

Plan MakePlan(diff::Mutant m) {
  Plan p;
  p.bytes = m.frame;
  p.mutant = std::move(m);
  if (p.bytes.size() < 4) {
    p.framing = Framing::kNoPrefix;
  } else {
    const int64_t prefix = ReadInt32(p.bytes);
    const int64_t after = static_cast<int64_t>(p.bytes.size()) - 4;
    if (prefix < 0 || prefix > kBrokerMaxRequestSize) {
      p.framing = Framing::kBadSize;
    } else if (prefix > after) {
      p.framing = Framing::kShort;
    } else if (prefix < after) {
      p.bytes.resize(static_cast<size_t>(4 + prefix));
      p.trimmed = true;
    }
  }
  if (p.framing != Framing::kWhole) {
    p.strict.kind = FramingName(p.framing);
    return p;
  }
  p.ids = PeekRequestIds(p.bytes);
  diff::Mutant seen = p.mutant;
  seen.frame = p.bytes;
  p.strict = diff::KwireView(seen);
  FrameOptions java;
  java.quirks = kQuirksJava;
  java.records_mode = RecordsMode::kOpaque;
  absl::StatusOr<BrokerRead> read = ReadRequestAsBroker(p.bytes, java);
  if (const std::optional<Error> e = read.ok() ? std::nullopt : ErrorFromStatus(read.status());
      e && e->kind == ErrorKind::kTrailingBytes && e->offset >= 12 && e->offset < p.bytes.size()) {
    // A broker does not look past the request body (RequestContext.parseRequest): the
    // bytes after it are ignored, so the request is what comes before them.
    std::vector<uint8_t> body(p.bytes.begin(), p.bytes.begin() + static_cast<ptrdiff_t>(e->offset));
    diff::FixSizePrefix(body);
    read = ReadRequestAsBroker(body, java);
  }
  p.java_reads = read.ok();
  if (p.java_reads) p.shape = KnownShape(read->frame);
  if (!p.ids) return p;
  const int16_t key = p.ids->api_key;
  if (key == 0) {  // Produce: acks = 0 is not answered; the probe tells
    p.probe = true;
    p.probe_id = p.ids->correlation_id == kProbeId ? kProbeId + 1 : kProbeId;
    if (p.java_reads) {
      p.expects_answer = ExpectsResponse(read->frame);
    } else {
      p.answer_uncertain = true;
    }
  }
  constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  switch (key) {
    case 1:  // Fetch: up to MaxWaitMs while fewer than MinBytes are there
      if (const FetchRequest* f = p.java_reads ? read->frame.body.get<FetchRequest>() : nullptr) {
        p.hold_ms = f->max_wait_ms;
      } else {
        p.hold_ms = kUnbounded;
      }
      break;
    case 78:  // ShareFetch: the same
      if (const ShareFetchRequest* f = p.java_reads ? read->frame.body.get<ShareFetchRequest>() : nullptr) {
        p.hold_ms = f->max_wait_ms;
      } else {
        p.hold_ms = kUnbounded;
      }
      break;
    case 43:  // ElectLeaders: up to TimeoutMs for the election
      if (const ElectLeadersRequest* e = p.java_reads ? read->frame.body.get<ElectLeadersRequest>() : nullptr) {
        p.hold_ms = e->timeout_ms;
      } else {
        p.hold_ms = kUnbounded;
      }
      break;
    case 11:  // JoinGroup: until the rebalance completes (the group's largest rebalance timeout)
    case 14:  // SyncGroup: until the leader's assignment
      p.hold_ms = kUnbounded;
      break;
    default:
      break;
  }
  return p;
}

Outcome Exchange(Connection& c, const Plan& p, const ExchangeOptions& o) {
  Outcome out;
  const Clock::time_point start = Clock::now();
  std::vector<uint8_t> bytes = p.bytes;
  if (p.probe) {
    const std::vector<uint8_t> probe = ApiVersionsRequestFrame(p.probe_id);
    bytes.insert(bytes.end(), probe.begin(), probe.end());
  }
  const Connection::Io sent = c.Send(bytes, Deadline(o.timeout_seconds));
  if (p.framing == Framing::kShort || p.framing == Framing::kNoPrefix) c.ShutdownWrite();
  const Clock::time_point deadline = Deadline(o.timeout_seconds);
  bool mutant_answered = false, probe_answered = false, unusable = false;
  std::vector<std::string> said;

  auto hit = [&](FindingKind k, std::string where, std::string detail) {
    out.hits.push_back(Hit{k, std::move(where), std::move(detail)});
  };
  auto judge = [&](const std::vector<uint8_t>& f) {
    out.answers.emplace_back(f.begin(), f.begin() + static_cast<ptrdiff_t>(std::min(f.size(), kKeptAnswerBytes)));
    const std::optional<int32_t> cid = PeekResponseCorrelationId(f);
    if (!cid) {
      hit(FindingKind::kUndecodable, "truncated @ ResponseHeader",
          absl::StrFormat("an answer of %d bytes, too short for a response header", f.size()));
      unusable = true;
      return;
    }
    if (p.probe && *cid == p.probe_id && !probe_answered) {
      probe_answered = true;
      absl::StatusOr<ResponseFrame> r = DecodeResponseFrame(f, 18, 3);
      if (!r.ok()) {
        size_t at = 0;
        std::string path;
        const std::string where = ErrorWhere(r.status(), &at, &path);
        hit(FindingKind::kUndecodable, "probe " + where,
            absl::StrFormat("the ApiVersions v3 answer after it does not decode: %s", r.status().message()));
      }
      return;
    }
    if (p.framing != Framing::kWhole || !p.ids) {
      hit(FindingKind::kUnexpectedAnswer, p.framing != Framing::kWhole ? FramingName(p.framing) : "no header",
          absl::StrFormat("an answer (correlation id %d, %d bytes) to a frame the broker cannot have read whole (%s)",
                          *cid, f.size(), p.framing != Framing::kWhole ? FramingName(p.framing)
                                                                       : "fewer than 12 bytes: no request header"));
      unusable = true;
      return;
    }
    if (*cid != p.ids->correlation_id || mutant_answered) {
      hit(FindingKind::kCorrelation, "",
          absl::StrFormat("an answer with correlation id %d (%d bytes); the request's is %d%s", *cid, f.size(),
                          p.ids->correlation_id, mutant_answered ? ", already answered" : ""));
      unusable = true;
      return;
    }
    mutant_answered = true;
    const int16_t key = p.ids->api_key, version = p.ids->api_version;
    if (p.probe && !p.expects_answer && !p.answer_uncertain) {
      hit(FindingKind::kUnexpectedAnswer, "acks=0",
          "an answer to a Produce request with acks = 0 (the protocol says none is sent)");
    }
    absl::StatusOr<ResponseFrame> r = DecodeResponseFrame(f, key, version);
    if (!r.ok() && key == 18 && !FindApi(18)->response_versions().Contains(version)) {
      // KIP-511: ApiVersions at a version the broker does not know is answered by a v0 body
      // (response header v0) with UNSUPPORTED_VERSION. DecodeResponseFrame takes that
      // fallback for versions kwire knows and those above its newest; a negative version,
      // which no client sends but Kafka answers the same way, is unsupported there.
      absl::StatusOr<ResponseFrame> v0 = DecodeResponseFrame(f, 18, 0);
      const ApiVersionsResponse* b = v0.ok() ? v0->body.get<ApiVersionsResponse>() : nullptr;
      if (b != nullptr && b->error_code == 35) r = std::move(v0);
    }
    if (!r.ok()) {
      out.answered_bad = true;
      size_t at = 0;
      std::string path;
      const std::string where = ErrorWhere(r.status(), &at, &path);
      FrameOptions java;
      java.quirks = kQuirksJava;
      const bool java_reads = DecodeResponseFrame(f, key, version, java).ok();
      hit(FindingKind::kUndecodable, where,
          absl::StrFormat("the answer (%d bytes) does not decode as %sResponse v%d: %s (at byte %d%s%s); with every "
                          "Java quirk it %s",
                          f.size(), ApiName(key), version, r.status().message(), at, path.empty() ? "" : ", ", path,
                          java_reads ? "decodes" : "does not decode either"));
      said.push_back(absl::StrFormat("answered (%d bytes, does not decode)", f.size()));
      return;
    }
    out.answered = true;
    said.push_back(absl::StrFormat("answered (%sResponse v%d%s, %d bytes)", ApiName(key), r->body_version,
                                   r->body_version != version ? " fallback" : "", f.size()));
    if (absl::StatusOr<Json> j = MessageToJson(r->body, r->body_version); j.ok()) {
      out.unknown_server_error = FindUnknownServerError(*j, "");
    }
    absl::StatusOr<std::vector<uint8_t>> again =
        EncodeResponseFrame(r->header, key, r->body_version, r->body);
    if (!again.ok() || *again != f) {
      size_t at = 0;
      if (again.ok()) {
        at = static_cast<size_t>(std::mismatch(again->begin(), again->end(), f.begin(), f.end()).first -
                                 again->begin());
      }
      hit(FindingKind::kNotCanonical, "",
          again.ok() ? absl::StrFormat("the answer decodes but re-encodes differently (%d bytes in, %d out; first "
                                       "difference at byte %d)",
                                       f.size(), again->size(), at)
                     : absl::StrCat("the answer decodes but does not encode again: ", again.status().message()));
    }
  };

  bool closed = sent == Connection::Io::kClosed, timed_out = sent == Connection::Io::kTimeout;
  if (timed_out) {
    said.push_back("the request was not read");
  } else {
    for (;;) {
      Connection::Read r = c.ReadFrame(deadline, o.max_answer_bytes);
      if (r.what == Connection::Read::kFrame) {
        judge(r.frame);
        if (unusable || !p.probe || probe_answered || out.answers.size() >= 3) break;
        continue;
      }
      switch (r.what) {
        case Connection::Read::kClosed:
          closed = true;
          break;
        case Connection::Read::kTimeout:
          timed_out = true;
          if (r.received > 0) said.push_back(absl::StrFormat("%d bytes of an answer came", r.received));
          break;
        case Connection::Read::kTruncated:
          closed = true;
          hit(FindingKind::kTruncatedAnswer, "",
              absl::StrFormat("the connection closed inside an answer: %d of %d bytes came", r.received,
                              r.size + 4));
          break;
        case Connection::Read::kBadSize:
          unusable = true;
          hit(FindingKind::kUndecodable, "invalid_frame_size @ Frame.size",
              absl::StrFormat("an answer whose size prefix is %d", r.size));
          break;
        case Connection::Read::kOversized:
          unusable = true;
          out.oversized = true;
          said.push_back(absl::StrFormat("an answer of %d bytes, above --max-answer (not read)", r.size + 4));
          break;
        case Connection::Read::kFrame:
          break;
      }
      break;
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out.closed = closed;
  out.timed_out = timed_out;
  const int64_t timeout_ms = static_cast<int64_t>(o.timeout_seconds * 1000);
  if (timed_out) {
    if (!mutant_answered && p.hold_ms && *p.hold_ms > timeout_ms - 1000) {
      out.held = true;
      said.push_back(*p.hold_ms == std::numeric_limits<int64_t>::max()
                         ? std::string("held (the broker may park this request without a bound)")
                         : absl::StrFormat("held (the request lets the broker wait %d ms)", *p.hold_ms));
    } else {
      std::string what;
      if (p.framing == Framing::kShort || p.framing == Framing::kNoPrefix) {
        what = absl::StrFormat("the broker neither closed the connection nor answered within %.1f s after EOF "
                               "inside a frame (%s)",
                               o.timeout_seconds, FramingName(p.framing));
      } else if (p.framing == Framing::kBadSize) {
        what = absl::StrFormat("the broker did not close the connection within %.1f s after a size prefix of %d",
                               o.timeout_seconds, ReadInt32(p.bytes));
      } else if (mutant_answered) {
        what = absl::StrFormat("answered, but the ApiVersions request after it got no answer within %.1f s",
                               o.timeout_seconds);
      } else if (sent == Connection::Io::kTimeout) {
        what = absl::StrFormat("the broker did not read the request (%d bytes) within %.1f s", bytes.size(),
                               o.timeout_seconds);
      } else {
        what = absl::StrFormat("no answer and no close within %.1f s", o.timeout_seconds);
      }
      hit(FindingKind::kStall, p.shape.empty() ? ViewText(p.strict) : absl::StrCat(ViewText(p.strict), "; ", p.shape),
          what);
    }
  }
  if (p.probe && probe_answered && !mutant_answered) {
    if (p.expects_answer && !p.answer_uncertain) {
      hit(FindingKind::kUnanswered, ViewText(p.strict),
          "no answer to the Produce request (acks != 0 as kwire reads it); the ApiVersions request after it was "
          "answered");
    } else {
      out.no_answer = true;
      said.push_back("no answer (acks = 0), the ApiVersions after it answered");
    }
  }
  if (closed) said.push_back("closed");
  if (timed_out && !out.held) said.push_back(absl::StrFormat("timeout (%.1f s)", o.timeout_seconds));
  out.happened = absl::StrJoin(said, ", ");
  if (out.happened.empty()) out.happened = "nothing";
  out.reusable = !closed && !timed_out && !unusable && out.hits.empty() && p.framing == Framing::kWhole &&
                 (p.probe ? probe_answered : mutant_answered);
  return out;
}

ApiVersionsCheck CheckApiVersions(const proxy::Endpoint& broker, int32_t correlation_id, const ExchangeOptions& o) {
  ApiVersionsCheck ch;
  const Clock::time_point start = Clock::now();
  auto done = [&](std::string reason, std::string detail) {
    ch.reason = std::move(reason);
    ch.detail = std::move(detail);
    ch.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return ch;
  };
  absl::StatusOr<Connection> c = Connection::Open(broker, o.timeout_seconds);
  if (!c.ok()) {
    ch.refused = absl::IsUnavailable(c.status());
    return done("connect", std::string(c.status().message()));
  }
  const std::vector<uint8_t> frame = ApiVersionsRequestFrame(correlation_id);
  const Clock::time_point deadline = Deadline(o.timeout_seconds);
  const Connection::Io sent = c->Send(frame, deadline);
  if (sent == Connection::Io::kTimeout) return done("timeout", "the ApiVersions request was not read");
  const Connection::Read r = c->ReadFrame(deadline, o.max_answer_bytes);
  switch (r.what) {
    case Connection::Read::kFrame:
      break;
    case Connection::Read::kTimeout:
      return done("timeout", absl::StrFormat("no answer to ApiVersions v3 within %.1f s", o.timeout_seconds));
    case Connection::Read::kClosed:
      return done("closed", "the broker closed the connection instead of answering ApiVersions v3");
    case Connection::Read::kTruncated:
      return done("truncated", absl::StrFormat("the connection closed inside the answer (%d bytes came)", r.received));
    case Connection::Read::kBadSize:
    case Connection::Read::kOversized:
      return done("undecodable", absl::StrFormat("an answer whose size prefix is %d", r.size));
  }
  absl::StatusOr<ResponseFrame> resp = DecodeResponseFrame(r.frame, 18, 3);
  if (!resp.ok()) return done("undecodable", std::string(resp.status().message()));
  if (resp->header.correlation_id != correlation_id) {
    return done("correlation", absl::StrFormat("answered with correlation id %d, asked with %d",
                                               resp->header.correlation_id, correlation_id));
  }
  const ApiVersionsResponse* body = resp->body.get<ApiVersionsResponse>();
  if (body == nullptr) return done("undecodable", "not an ApiVersions response");
  if (body->error_code != 0) return done(absl::StrCat("error ", body->error_code), "ApiVersions answered an error");
  for (const auto& k : body->api_keys) ch.ranges[k.api_key] = {k.min_version, k.max_version};
  ch.ok = true;
  return done("", absl::StrFormat("answered in %.3f s, %d APIs", std::chrono::duration<double>(Clock::now() - start).count(),
                                  ch.ranges.size()));
}

MetadataCheck CheckMetadata(const proxy::Endpoint& broker, int32_t correlation_id, const ExchangeOptions& o) {
  MetadataCheck ch;
  absl::StatusOr<Connection> c = Connection::Open(broker, o.timeout_seconds);
  if (!c.ok()) {
    ch.detail = std::string(c.status().message());
    return ch;
  }
  MetadataRequest body;  // Topics: [] (none), no auto-creation
  body.allow_auto_topic_creation = false;
  absl::StatusOr<std::vector<uint8_t>> frame =
      EncodeRequestFrame<MetadataRequest>(12, correlation_id, std::string("kwire-broker-fuzz"), body);
  if (!frame.ok()) {
    ch.detail = std::string(frame.status().message());
    return ch;
  }
  const Clock::time_point deadline = Deadline(o.timeout_seconds);
  if (c->Send(*frame, deadline) != Connection::Io::kOk) {
    ch.detail = "the Metadata request could not be sent";
    return ch;
  }
  const Connection::Read r = c->ReadFrame(deadline, o.max_answer_bytes);
  if (r.what != Connection::Read::kFrame) {
    ch.detail = r.what == Connection::Read::kTimeout ? "no answer to Metadata v12 within the timeout"
                                                     : "no answer to Metadata v12 (closed)";
    return ch;
  }
  absl::StatusOr<ResponseFrame> resp = DecodeResponseFrame(r.frame, 3, 12);
  const MetadataResponse* m = resp.ok() ? resp->body.get<MetadataResponse>() : nullptr;
  if (m == nullptr) {
    ch.detail = resp.ok() ? "not a Metadata response" : std::string(resp.status().message());
    return ch;
  }
  ch.answered = true;
  ch.brokers = m->brokers.size();
  ch.detail = absl::StrFormat("Metadata v12 lists %d broker%s", ch.brokers, ch.brokers == 1 ? "" : "s");
  return ch;
}

}  // namespace kwire::brokerfuzz
