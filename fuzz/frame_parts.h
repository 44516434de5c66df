// FrameParts: one frame taken apart into what the fuzz harness mutates and compares — its
// direction, the API key and version its header names, the header and the body. The
// frame mutator's decoded input (fuzz/frame_mutator.cc) and message_encode_fuzzer's made
// message are both one, so decoding, encoding and comparing frames is written once here.
#ifndef KWIRE_FUZZ_FRAME_PARTS_H_
#define KWIRE_FUZZ_FRAME_PARTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "fuzz/mutate.h"

namespace kwire::fuzz {

/// A request or response frame as parts. `body` is a message of API `api_key` (except
/// where message_encode_fuzzer encodes it under another key, which the encoder refuses);
/// of the two headers only the direction's is used.
struct FrameParts {
  bool response = false;
  int16_t api_key = 0;
  int16_t version = 0;
  RequestHeader request_header;
  ResponseHeader response_header;
  std::optional<AnyMessage> body;

  /// The MutateOps of the direction's header type.
  const MutateOps& header_ops() const;
  /// The direction's header (a RequestHeader or a ResponseHeader).
  void* header() {
    return response ? static_cast<void*>(&response_header) : static_cast<void*>(&request_header);
  }
  const void* header() const { return const_cast<FrameParts*>(this)->header(); }
  /// The header version of `api_key` at `version` (protocol guide, "Headers";
  /// ApiVersions responses are always v0).
  int16_t header_version() const {
    return response ? ResponseHeaderVersion(api_key, version)
                    : RequestHeaderVersion(api_key, version);
  }
  /// The MutateOps of the body's message type.
  const MutateOps& body_ops() const { return *FindMutateOps(&body->spec()); }
  /// The versions of `api_key` in this direction (the registry's).
  VersionRange versions() const;

  /// Encodes the frame (size prefix included; a response frame without the API key and
  /// version a response_frame_fuzzer input starts with) with its header naming `key` at
  /// `v`: a request's header gets request_api_key/request_api_version = key/v. Errors:
  /// those of EncodeRequestFrame / EncodeResponseFrame (e.g. kUnknownApiKey, a body of
  /// another API, kUnsupportedVersion, the field refusals).
  absl::StatusOr<std::vector<uint8_t>> EncodeAs(int16_t key, int16_t v, const EncodeOptions& eo);
  /// EncodeAs(api_key, version, eo).
  absl::StatusOr<std::vector<uint8_t>> Encode(const EncodeOptions& eo) {
    return EncodeAs(api_key, version, eo);
  }

  /// Decodes one frame (size prefix included). A request's API key and version are read
  /// from its header, a response's are `key` and `v` (`version` is 0 for an ApiVersions
  /// response read as the KIP-511 v0 fallback: the body's version). Errors: those of
  /// DecodeRequestFrame / DecodeResponseFrame.
  static absl::StatusOr<FrameParts> Decode(bool response, std::span<const uint8_t> frame,
                                           int16_t key, int16_t v, const FrameOptions& o);

  /// Whether the direction's headers and the bodies are equal (same message type; float64
  /// compared bit for bit, so NaN equals itself).
  bool BitwiseEquals(const FrameParts& other) const;
};

}  // namespace kwire::fuzz

#endif  // KWIRE_FUZZ_FRAME_PARTS_H_
