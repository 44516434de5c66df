#include "codec/protocol/correlator.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "codec/generated/produce_request.h"
#include "codec/wire/reader.h"

namespace kwire {

std::optional<RequestIds> PeekRequestIds(std::span<const uint8_t> frame) {
  Reader r(frame);
  r.ReadInt32();  // size
  RequestIds ids;
  ids.api_key = r.ReadInt16();
  ids.api_version = r.ReadInt16();
  ids.correlation_id = r.ReadInt32();
  if (!r.ok()) return std::nullopt;
  return ids;
}

std::optional<int32_t> PeekResponseCorrelationId(std::span<const uint8_t> frame) {
  Reader r(frame);
  r.ReadInt32();  // size
  const int32_t correlation_id = r.ReadInt32();
  if (!r.ok()) return std::nullopt;
  return correlation_id;
}

bool ExpectsResponse(const RequestFrame& request) {
  const ProduceRequest* produce = request.body.get<ProduceRequest>();
  return produce == nullptr || produce->acks != 0;
}

absl::Status Correlator::AddRequest(const RequestIds& request) {
  if (pending_.size() >= options_.max_pending) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%d requests already await a response (correlation id %d not recorded)",
        pending_.size(), request.correlation_id));
  }
  pending_.push_back(request);
  return absl::OkStatus();
}

absl::Status Correlator::AddRequestFrame(std::span<const uint8_t> frame) {
  const std::optional<RequestIds> ids = PeekRequestIds(frame);
  if (!ids) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a request frame of %d bytes is shorter than a request header (12)", frame.size()));
  }
  return AddRequest(*ids);
}

absl::StatusOr<Correlator::Match> Correlator::TakeResponse(int32_t correlation_id) {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const RequestIds& r) {
    return r.correlation_id == correlation_id;
  });
  if (it == pending_.end()) {
    return absl::NotFoundError(
        absl::StrFormat("no request with correlation id %d awaits a response", correlation_id));
  }
  Match m;
  m.request = *it;
  if (options_.in_order) {
    m.skipped = static_cast<size_t>(it - pending_.begin());
    pending_.erase(pending_.begin(), it + 1);
  } else {
    pending_.erase(it);
  }
  return m;
}

absl::StatusOr<Correlator::Match> Correlator::TakeResponseFrame(std::span<const uint8_t> frame) {
  const std::optional<int32_t> id = PeekResponseCorrelationId(frame);
  if (!id) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a response frame of %d bytes is shorter than a response header (8)", frame.size()));
  }
  return TakeResponse(*id);
}

}  // namespace kwire
