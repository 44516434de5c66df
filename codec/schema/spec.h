// Field and message specifications: the data every wire visitor interprets.
//
// Each generated struct (message body or nested struct) lists its fields exactly once,
// as a `static constexpr FieldSpec kFields[]`, and exposes
//   template <class V, class... S> static void VisitFields(V&& v, S&... s);
// which calls `v(kFields[i], s.member...)` for every field in declaration order (wire
// order). All wire logic (decode, encode, minimal instance, random fill, printing) is
// written once as visitors over that list (codec/schema/*.h); generated code holds no
// wire logic. Source of the facts: Apache Kafka's message definitions, imported into
// codec/defs/*.kdef by tools/kafka_import.py.
#ifndef KWIRE_CODEC_SCHEMA_SPEC_H_
#define KWIRE_CODEC_SCHEMA_SPEC_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "codec/wire/types.h"

namespace kwire {

/// Highest version number a range can name (open-ended ranges like "3+" end here).
inline constexpr int16_t kMaxVersion = 0x7fff;

/// Inclusive range of API versions [lo, hi]; empty when lo > hi ("none").
struct VersionRange {
  int16_t lo = 1;
  int16_t hi = 0;
  constexpr bool Contains(int16_t v) const { return v >= lo && v <= hi; }
  constexpr bool empty() const { return lo > hi; }
  friend constexpr bool operator==(VersionRange, VersionRange) = default;
};
/// The empty range ("none").
inline constexpr VersionRange kNoVersions{1, 0};
/// Every version ("0+").
inline constexpr VersionRange kAllVersions{0, kMaxVersion};

/// The wire kind of a field (Kafka's type names).
enum class FieldType : uint8_t {
  kInt8,
  kInt16,
  kUint16,
  kInt32,
  kInt64,
  kFloat64,
  kBool,
  kUuid,
  kString,
  kBytes,
  kRecords,
  kStruct,
  kArray,
};

/// Kafka's name for a scalar FieldType ("int32", "string", ...); "struct"/"array" else.
const char* FieldTypeName(FieldType t);

/// How the bytes of a `records` field are laid out (the records policy's layout).
enum class RecordsLayout : uint8_t {
  kNotRecords = 0,  ///< The field is not a records field.
  /// Complete batches back to back; a batch cut short is corrupt (Produce requests:
  /// the broker rejects a truncated batch).
  kWholeBatches,
  /// Complete batches, then possibly one batch cut short at the end (Fetch / ShareFetch
  /// responses stop at the partition's max bytes; clients drop the partial batch).
  kPartialTail,
  /// A raw byte range that need not start or end at a batch boundary (FetchSnapshot
  /// `UnalignedRecords`, KIP-630: a chunk of a snapshot file). Never parsed as batches.
  kUnaligned,
};

/// The records policy of one `records` field: what its bytes may hold, by version.
/// Declared once, with its sources, in tools/generate.py (RECORDS_POLICY) and carried
/// in FieldSpec::records; applied by records validation (codec/records/validate.h) in
/// frame decoding and by `kwire explain`. Table and sources: codec/records/README.md.
struct RecordsPolicy {
  RecordsLayout layout = RecordsLayout::kNotRecords;
  /// From this version on, the field holds exactly one batch and it is magic 2
  /// (Produce v3+: Java's ProduceRequest.validateRecords); kMaxVersion + 1 as int32:
  /// never. Kept as int32 so "never" is out of every version's range.
  int32_t one_v2_batch_from = 0x8000;
  /// Versions below this may not carry zstd batches (KIP-110: Produce v7); 0: any.
  int16_t zstd_from = 0;
  /// Where the rules come from (Java code paths, KIPs), for error texts and docs.
  const char* source = "";
};

/// What frame decoding (and `kwire explain`) does with the bytes of `records` fields.
enum class RecordsMode : uint8_t {
  /// Keep them verbatim and never look inside (a proxy forwarding batches it trusts).
  kOpaque,
  /// Walk every batch under the field's RecordsPolicy — header, CRC, record framing,
  /// counts, decompression within the caps — and fail the decode on the first fault
  /// (codec/records/validate.h). The bytes are still kept verbatim.
  kValidate,
};

/// Everything the visitors need to know about one field. All facts come from the
/// definition files; see codec/defs/README.md for their meaning. An aggregate: generated
/// rows name their members (C++20 designated initialisers) and leave out those that hold
/// the defaults below (present in every version, never nullable, never tagged, compact
/// wherever the message is flexible, not ignorable, not sensitive, not records).
struct FieldSpec {
  const char* name = "";           ///< Kafka field name, e.g. "ThrottleTimeMs".
  const char* type_name = "";      ///< Kafka type as written, e.g. "[]FetchTopic", "int32".
  FieldType type = FieldType::kInt8;  ///< Wire kind of the field.
  FieldType element = type;        ///< For kArray: wire kind of each element; else == type.
  VersionRange versions = kAllVersions;  ///< Versions in which the field exists.
  VersionRange nullable = kNoVersions;   ///< Versions in which it may be null (empty: never).
  VersionRange tagged = kNoVersions;     ///< Versions in which it is a tagged field (empty: never).
  int32_t tag = -1;                ///< Tag number (KIP-482), or −1.
  VersionRange flexible = kAllVersions;  ///< Versions in which it may use compact encodings
                                         ///< (kAllVersions unless the definition overrides
                                         ///< it, e.g. RequestHeader.ClientId: never).
  bool ignorable = false;          ///< Dropped silently when the target version lacks it.
  bool sensitive = false;          ///< Redacted by printers (credentials, HMACs, SASL bytes).
  RecordsPolicy records = {};      ///< For kRecords fields: layout and rules by version.

  constexpr bool IsTagged() const { return tag >= 0; }
  /// True when this field carries tag number `t` as read from the wire (a uvarint, so up
  /// to 2^32 − 1). An untagged field (tag −1) never matches, not even t = 0xffffffff.
  constexpr bool HasTag(uint32_t t) const { return tag >= 0 && static_cast<uint32_t>(tag) == t; }
};

/// The payload of a `records` field (Produce, Fetch, ShareFetch, FetchSnapshot, …):
/// record batches back to back, kept verbatim so it re-encodes byte-identically
/// (codec/records/ decodes the batches; frame decoding validates them by default).
///
/// Owned or borrowed. A default decode copies the payload (the Records owns it), and so
/// do encoders, fillers and user code (`Records(std::string)`). A decode with
/// `RecordsDecode::borrow` (`FrameOptions::borrow_records`) copies
/// nothing: the payload stays inside the caller's frame buffer and `borrowed()` is true.
/// Both forms are read through `data()` only and changed through `mutable_bytes()`
/// only, so no reader can see the empty storage of the other form (issue 37: `Batches`
/// once read the owned storage of a borrowed Records and saw no batch).
/// **Lifetime**: a borrowed Records — and every message or copy holding it — is valid
/// only while that buffer lives unchanged; reading it afterwards is a use after free
/// (AddressSanitizer reports it; codec/protocol/records_frame_test.cc). `Own()`
/// detaches it.
class Records {
 public:
  Records() = default;
  /// An owned payload.
  explicit Records(std::string payload) : bytes_(std::move(payload)) {}
  /// A borrowed Records over `payload` (not copied; the caller keeps it alive).
  static Records Borrow(std::string_view payload ABSL_ATTRIBUTE_LIFETIME_BOUND) {
    Records r;
    r.view_ = payload;
    r.borrowed_ = true;
    return r;
  }
  /// The payload, owned or borrowed.
  std::string_view data() const ABSL_ATTRIBUTE_LIFETIME_BOUND {
    return borrowed_ ? view_ : std::string_view(bytes_);
  }
  /// Payload size in bytes.
  size_t size() const { return data().size(); }
  bool empty() const { return data().empty(); }
  /// True when the payload is a view into a decoded buffer (RecordsDecode::borrow).
  bool borrowed() const { return borrowed_; }
  /// Copies a borrowed payload into storage of its own, so it no longer depends on the
  /// buffer. Nothing happens to an owned payload.
  void Own() {
    if (!borrowed_) return;
    bytes_.assign(view_);
    view_ = {};
    borrowed_ = false;
  }
  /// The owned payload, to change in place (a borrowed one is copied first: Own()).
  std::string& mutable_bytes() ABSL_ATTRIBUTE_LIFETIME_BOUND {
    Own();
    return bytes_;
  }
  /// Replaces the payload with an owned copy of `payload`, reusing this Records' storage
  /// (a decode into a reused message allocates nothing once it is large enough).
  void AssignCopy(std::string_view payload) {
    bytes_.assign(payload);
    view_ = {};
    borrowed_ = false;
  }
  /// Equal payload bytes (owned and borrowed forms compare equal).
  friend bool operator==(const Records& a, const Records& b) { return a.data() == b.data(); }

 private:
  std::string bytes_;       // The payload when owned (borrowed_ == false).
  std::string_view view_;   // The payload in the decoded buffer when borrowed.
  bool borrowed_ = false;
};

/// Present/absent wrapper of a known tagged field (KIP-482). Absent fields are not
/// written; a present field is written even when it holds its default value, so that
/// decode→encode is byte-identical. For a nullable tagged field the inner type is itself
/// std::optional (present-and-null is distinct from absent).
template <class T>
struct Tagged : std::optional<T> {
  using std::optional<T>::optional;
  using std::optional<T>::operator=;
  friend bool operator==(const Tagged& a, const Tagged& b) {
    return static_cast<const std::optional<T>&>(a) == static_cast<const std::optional<T>&>(b);
  }
};

/// True for Tagged<T> member types.
template <class T>
inline constexpr bool kIsTagged = false;
template <class T>
inline constexpr bool kIsTagged<Tagged<T>> = true;

/// True for generated struct types (they carry kFields and VisitFields).
template <class T>
concept KafkaStruct = requires { T::kFields; T::kStructName; };

/// What a top-level definition describes.
enum class MessageKind : uint8_t { kRequest, kResponse, kHeader, kData };

/// Metadata of a top-level message type (request or response body, header, data). An
/// aggregate, initialised by name in generated headers (omitted members: defaults).
struct MessageSpec {
  const char* name = "";      ///< e.g. "FetchRequest".
  int16_t api_key = -1;       ///< −1 for headers and non-API data.
  MessageKind kind = MessageKind::kData;
  VersionRange valid;         ///< Every valid version, removed ones included.
  VersionRange current = valid;  ///< Versions valid in Kafka 4.x (KIP-896 removed the rest).
  VersionRange flexible = kNoVersions;  ///< Flexible versions (KIP-482).
  bool latest_unstable = false;  ///< The highest version is marked unstable upstream.
  bool has_sensitive = false;    ///< Some field (at any depth) is FieldSpec::sensitive.
};

/// The version rule (protocol guide, "Protocol Primitive Types"; KIP-482, flexible
/// versions and tagged fields): how the fields of one message are laid out at one of its
/// versions. The one place kwire answers "does this field exist, is it tagged, compact,
/// nullable here"; every walker (decode, encode, minimum size, fill, print, the JSON
/// mapping, the fuzz mutator) asks it rather than its own copy of the rule.
struct VersionRule {
  int16_t version;
  bool flexible;  ///< The message is flexible at `version` (MessageSpec::flexible).

  /// The rule of message `m` at `version`.
  static constexpr VersionRule Of(const MessageSpec& m, int16_t version) {
    return {version, m.flexible.Contains(version)};
  }
  /// The field exists at this version (in the fixed part or as a tagged field).
  constexpr bool Present(const FieldSpec& f) const { return f.versions.Contains(version); }
  /// The field is written in the tagged-fields section at this version: a flexible
  /// version within its taggedVersions.
  constexpr bool Tagged(const FieldSpec& f) const {
    return flexible && f.tagged.Contains(version);
  }
  /// Its strings, bytes, arrays and records carry compact (uvarint, length + 1) lengths:
  /// a flexible version within the field's flexibleVersions.
  constexpr bool Compact(const FieldSpec& f) const {
    return flexible && f.flexible.Contains(version);
  }
  /// Null (length −1, compact 0, struct marker −1) is allowed at this version.
  constexpr bool Nullable(const FieldSpec& f) const { return f.nullable.Contains(version); }
  /// Tag `t`, as read from the wire, is field `f`'s at this version.
  constexpr bool TagNames(const FieldSpec& f, uint32_t t) const {
    return f.HasTag(t) && Present(f) && Tagged(f);
  }
};

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_SPEC_H_
