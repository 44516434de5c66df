// Quirks: the opt-in leniencies of Apache Kafka's Java implementation, as bit flags
// (DecodeOptions::quirks in reader.h; EncodeOptions::quirks in writer.h takes
// kQuirkInvalidUtf8). Strict, no quirk, is the default everywhere. Each flag names the
// Java behaviour it matches and the class that has it.
#ifndef KWIRE_CODEC_WIRE_QUIRKS_H_
#define KWIRE_CODEC_WIRE_QUIRKS_H_

#include <cstdint>

namespace kwire {

/// Opt-in leniencies, bit flags for DecodeOptions::quirks. Each matches what Apache
/// Kafka's Java implementation accepts and each breaks byte-exact re-encoding (except
/// kQuirkApiVersionsAnyFallback, which only widens which frames decode, and
/// kQuirkTagOfOtherVersionRejected, which narrows them as Java does).
enum Quirk : uint32_t {
  /// Accept overlong varints (e.g. `80 00` for 0). Java: accepted.
  kQuirkNonCanonicalVarint = 1u << 0,
  /// Ignore bits beyond 32 in the 5th byte of a uvarint/varint (and beyond 64 in the
  /// 10th byte of a varlong). Java: silently dropped.
  kQuirkVarintExtraBits = 1u << 1,
  /// Any non-zero bool byte reads as true. Java: `readByte() != 0`.
  kQuirkAnyNonZeroBool = 1u << 2,
  /// Any negative length/count reads as null in nullable fields. Java: `length < 0`.
  kQuirkAnyNegativeLengthIsNull = 1u << 3,
  /// Tagged fields in any order and repeated. A repeated known tag: the last value wins; a
  /// repeated unknown tag is kept twice (in ascending tag order, a stable sort), and such a
  /// message then does not re-encode (kTagDuplicate). Java: accepted; the generated read()
  /// overwrites a known field and appends an unknown tag to unknownTaggedFields(), whose
  /// writer (RawTaggedFieldWriter) refuses a tag not above the one before it.
  kQuirkUnorderedTags = 1u << 4,
  /// Nullable struct presence marker: any negative byte is null, any other is present.
  kQuirkAnyStructMarker = 1u << 5,
  /// Strings (STRING / COMPACT_STRING, nullable or not, and record header keys) that are
  /// not well-formed UTF-8 (RFC 3629) are accepted and their bytes kept, so the round
  /// trip stays byte-exact (the encoder writes them back only with this quirk in its
  /// EncodeOptions, see writer.h). Java: accepted, each bad sequence decoded as U+FFFD.
  kQuirkInvalidUtf8 = 1u << 6,
  /// A known tagged field's value is read by its type, whatever size its header
  /// declares (more or fewer bytes); an unknown tag's payload is still `size` bytes.
  /// Java: the generated readers ignore the size of the tags they know.
  kQuirkKnownTagSizeIgnored = 1u << 7,
  /// ApiVersions responses (KIP-511): a body that does not decode at the version asked
  /// for is read as v0 whatever its error code. Strict takes that fallback only when the
  /// v0 body carries 35 UNSUPPORTED_VERSION, what a broker sends (codec/protocol/frame.h,
  /// ResponseFrame::body_version). Java: ApiVersionsResponse.parse retries at v0 on any
  /// parse failure. The body re-encodes byte-exactly at v0 either way.
  kQuirkApiVersionsAnyFallback = 1u << 8,
  /// The one quirk that rejects more: a tag that belongs to a tagged field of the struct
  /// which is not tagged at this version (it is tagged only in others) fails
  /// kInvalidValue at the tag header instead of being kept as an unknown tag. Java: the
  /// generated read()'s `case N:` throws "Tag N is not valid for version V"
  /// (MessageDataGenerator); kafka-clients 4.4.0 rejects such frames.
  kQuirkTagOfOtherVersionRejected = 1u << 9,
  /// Records of a request version below the one from which its records policy checks
  /// batches (RecordsPolicy::one_v2_batch_from: Produce v0–v2) are not held to the
  /// policy's codec rule either: a zstd batch there reads. Strict refuses it
  /// (kRecordsNotAllowed: KIP-110 allows zstd from Produce v7). Java:
  /// ProduceRequest.validateRecords checks the codec only inside `if (version >= 3)` ("we
  /// do not do similar validation for older versions to ensure compatibility"), and
  /// Kafka 3.9, the last release with Produce v0–v2, appends such a batch.
  kQuirkOldProduceCodecUnchecked = 1u << 10,
};

/// All quirks: decode what the Java implementation decodes.
inline constexpr uint32_t kQuirksJava =
    kQuirkNonCanonicalVarint | kQuirkVarintExtraBits | kQuirkAnyNonZeroBool |
    kQuirkAnyNegativeLengthIsNull | kQuirkUnorderedTags | kQuirkAnyStructMarker |
    kQuirkInvalidUtf8 | kQuirkKnownTagSizeIgnored | kQuirkApiVersionsAnyFallback |
    kQuirkTagOfOtherVersionRejected | kQuirkOldProduceCodecUnchecked;

/// A quirk's name on the command line and in reports (`kwire --quirks NAME,...`).
struct QuirkName {
  const char* name;
  uint32_t quirks;
};
/// Every quirk by name, then the profiles: "java" (kQuirksJava) and "none".
inline constexpr QuirkName kQuirkNames[] = {
    {"non-canonical-varint", kQuirkNonCanonicalVarint},
    {"varint-extra-bits", kQuirkVarintExtraBits},
    {"any-nonzero-bool", kQuirkAnyNonZeroBool},
    {"any-negative-length-is-null", kQuirkAnyNegativeLengthIsNull},
    {"unordered-tags", kQuirkUnorderedTags},
    {"any-struct-marker", kQuirkAnyStructMarker},
    {"invalid-utf8", kQuirkInvalidUtf8},
    {"known-tag-size-ignored", kQuirkKnownTagSizeIgnored},
    {"apiversions-any-fallback", kQuirkApiVersionsAnyFallback},
    {"tag-of-other-version-rejected", kQuirkTagOfOtherVersionRejected},
    {"old-produce-codec-unchecked", kQuirkOldProduceCodecUnchecked},
    {"java", kQuirksJava},
    {"none", 0},
};

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_QUIRKS_H_
