// Typed and type-erased access to message bodies.
//
// Typed: DecodeMessage<M>(bytes, version) / EncodeMessage<M>(m, version) for any
// generated message type M (codec/generated/*.h).
// Type-erased: MessageOps is a table of functions instantiated once per message type
// (generated api_<key>.cc files), and AnyMessage owns one message of a type chosen at
// run time (by API key and direction, see codec/protocol/registry.h).
// The core holds decode, encode, equality and copy only: the explain visitor
// (codec/harness/print.h, library kwire::explain) and the fillers (codec/harness/fill.h,
// kwire::fill) keep their own per-message tables outside it.
// Threads: as codec/protocol/frame.h says — any number of threads may decode and encode
// at once; a Reader, Writer or message object belongs to one thread at a time.
#ifndef KWIRE_CODEC_SCHEMA_MESSAGE_H_
#define KWIRE_CODEC_SCHEMA_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "codec/schema/decode.h"
#include "codec/schema/encode.h"
#include "codec/schema/spec.h"
#include "codec/wire/reader.h"
#include "codec/wire/types.h"
#include "codec/wire/writer.h"

namespace kwire {

/// A generated top-level message type (has kMessage).
template <class M>
concept KafkaMessage = KafkaStruct<M> && requires { M::kMessage; };

/// Decodes the body of message M at `version` from `r` (which may hold more after the
/// body: the caller checks). Fails kUnsupportedVersion outside M's valid versions.
/// The error path starts with the message name. `records`: what to do with records
/// fields (RecordsDecode, decode.h; default: opaque copies).
template <KafkaMessage M>
void DecodeBody(Reader& r, int16_t version, M& out, const RecordsDecode& records = {}) {
  PathNode root{r.path(), M::kMessage.name, -1};
  r.set_path(&root);
  if (!M::kMessage.valid.Contains(version)) {
    r.Fail(ErrorKind::kUnsupportedVersion,
           absl::StrFormat("version %d, valid versions are %d-%d", version,
                           M::kMessage.valid.lo, M::kMessage.valid.hi));
  } else {
    const VersionRule at = VersionRule::Of(M::kMessage, version);
    DecodeStruct(r, at.version, at.flexible, out, records);
  }
  r.set_path(root.parent);
}

/// Encodes the body of message M at `version` into `w`. Fails kUnsupportedVersion
/// outside M's valid versions, plus the encode errors of encode.h.
template <KafkaMessage M>
void EncodeBody(Writer& w, int16_t version, const M& m) {
  PathNode root{w.path(), M::kMessage.name, -1};
  w.set_path(&root);
  if (!M::kMessage.valid.Contains(version)) {
    w.Fail(ErrorKind::kUnsupportedVersion,
           absl::StrFormat("version %d, valid versions are %d-%d", version,
                           M::kMessage.valid.lo, M::kMessage.valid.hi));
  } else {
    const VersionRule at = VersionRule::Of(M::kMessage, version);
    EncodeStruct(w, at.version, at.flexible, m);
  }
  w.set_path(root.parent);
}

/// Decodes exactly `bytes` as the body of M at `version` (no frame, no header).
/// `options`: the wire reader's (quirks, allocation budget); `records`: what to do with
/// records fields (default: opaque copies; frame decoding validates them, frame.h).
/// Errors: any ErrorKind of the reader; kTrailingBytes when bytes are left over.
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<M> DecodeMessage(std::span<const uint8_t> bytes, int16_t version,
                                DecodeOptions options = {},
                                const RecordsDecode& records = {}) {
  Reader r(bytes, 0, options);
  M m{};
  DecodeBody(r, version, m, records);
  if (r.ok() && !r.AtEnd()) {
    r.Fail(ErrorKind::kTrailingBytes, absl::StrFormat("%d bytes after the body", r.remaining()));
  }
  if (!r.ok()) return r.error().ToStatus();
  return m;
}

/// DecodeMessage of a body held as text (std::string, std::string_view).
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<M> DecodeMessage(std::string_view bytes, int16_t version,
                                              DecodeOptions options = {},
                                              const RecordsDecode& records = {}) {
  return DecodeMessage<M>(AsBytes(bytes), version, options, records);
}

/// Encodes `m` as the body of M at `version` (no frame, no header). `options`: strict
/// by default (a string that is not UTF-8 fails kInvalidUtf8).
template <KafkaMessage M>
[[nodiscard]] absl::StatusOr<std::vector<uint8_t>> EncodeMessage(const M& m, int16_t version,
                                                   EncodeOptions options = {}) {
  Writer w;
  w.set_options(options);
  EncodeBody(w, version, m);
  if (!w.ok()) return w.error().ToStatus();
  return w.Release();
}

/// Functions of one message type, for run-time dispatch. Pointers are `M*`.
struct MessageOps {
  const MessageSpec* spec;
  void* (*create)();
  void (*destroy)(void*);
  void* (*clone)(const void*);
  void (*decode)(Reader&, int16_t version, void* m, const RecordsDecode& records);
  void (*encode)(Writer&, int16_t version, const void* m);
  bool (*equal)(const void* a, const void* b);
};

/// The MessageOps of M (used by the generated api_<key>.cc files).
template <KafkaMessage M>
constexpr MessageOps MakeMessageOps() {
  return MessageOps{
      &M::kMessage,
      []() -> void* { return new M(); },
      [](void* p) { delete static_cast<M*>(p); },
      [](const void* p) -> void* { return new M(*static_cast<const M*>(p)); },
      [](Reader& r, int16_t v, void* m, const RecordsDecode& records) {
        DecodeBody(r, v, *static_cast<M*>(m), records);
      },
      [](Writer& w, int16_t v, const void* m) { EncodeBody(w, v, *static_cast<const M*>(m)); },
      [](const void* a, const void* b) {
        return *static_cast<const M*>(a) == *static_cast<const M*>(b);
      },
  };
}

/// Owns one message body whose type is chosen at run time. Copyable; equality compares
/// type and every field.
class AnyMessage {
 public:
  /// A default-constructed message of the type described by `ops`.
  explicit AnyMessage(const MessageOps& ops) : ops_(&ops), p_(ops.create()) {}
  AnyMessage(const AnyMessage& o) : ops_(o.ops_), p_(o.ops_->clone(o.p_)) {}
  AnyMessage(AnyMessage&& o) noexcept : ops_(o.ops_), p_(o.p_) { o.p_ = nullptr; }
  AnyMessage& operator=(AnyMessage o) noexcept {
    std::swap(ops_, o.ops_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~AnyMessage() {
    if (p_ != nullptr) ops_->destroy(p_);
  }

  const MessageOps& ops() const { return *ops_; }
  const MessageSpec& spec() const { return *ops_->spec; }

  /// The message as its concrete type; nullptr if it is not an M.
  template <KafkaMessage M>
  M* get() {
    return ops_->spec == &M::kMessage ? static_cast<M*>(p_) : nullptr;
  }
  template <KafkaMessage M>
  const M* get() const {
    return ops_->spec == &M::kMessage ? static_cast<const M*>(p_) : nullptr;
  }
  void* raw() { return p_; }
  const void* raw() const { return p_; }

  friend bool operator==(const AnyMessage& a, const AnyMessage& b) {
    return a.ops_ == b.ops_ && a.ops_->equal(a.p_, b.p_);
  }

 private:
  const MessageOps* ops_;
  void* p_;
};

}  // namespace kwire

#endif  // KWIRE_CODEC_SCHEMA_MESSAGE_H_
