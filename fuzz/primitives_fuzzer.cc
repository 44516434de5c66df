// primitives_fuzzer: the wire primitives of codec/wire (Reader, Writer, varint.h).
//
// Input: byte 0 = DecodeOptions::quirks (low 7 bits); the rest is read by one Reader as
// a program: an op byte, then the value that op reads, again and again until the input
// ends or a read fails. Ops: uvarint, varint, varlong, compact and classic
// (nullable) strings and bytes, array counts (with a minimum element size), a
// tagged-field section, bool, struct presence marker, fixed-width integers / float64 /
// uuid, and a nested limit (PushLimit/PopLimit) around further ops.
//
// Invariants (a violation aborts):
//   * varints agree with an independent byte-at-a-time LEB128 decoder written here
//     (value, length, and which error) — the oracle for the reader's fast paths;
//   * every value read re-encodes with Writer to a canonical encoding that reads back
//     strictly to the same value; without quirks it is byte-identical to what was read
//     (decode → encode identity for canonical encodings); Uvarint/Varint/VarlongSize
//     match the encoded lengths;
//   * strings are read with ReadUtf8: invalid UTF-8 fails kInvalidUtf8 at its first bad
//     byte unless kQuirkInvalidUtf8, which keeps the bytes;
//   * lengths and counts are bounded by the bytes left (strings ≤ 32767, array counts ≤
//     remaining / min element size, tagged counts ≤ remaining / 2), tags ascend;
//   * a failure is sticky: the reader is drained, later reads return zero values and
//     the first error (kind, offset ≤ input size) is kept.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/wire/reader.h"
#include "codec/wire/varint.h"
#include "codec/wire/writer.h"
#include "fuzz/fuzz_check.h"

namespace kwire::fuzz {
namespace {

// Independent strict/quirk-aware LEB128 decoder (protocol guide: unsigned LEB128;
// kwire's strict rules in reader.h).
struct RefVarint {
  ErrorKind kind = ErrorKind::kOk;
  uint64_t value = 0;
  size_t length = 0;
};
RefVarint RefLeb128(std::span<const uint8_t> in, size_t max_bytes, unsigned last_bits,
                    uint32_t quirks) {
  RefVarint r;
  for (size_t i = 0; i < max_bytes; ++i) {
    if (i == in.size()) return {ErrorKind::kTruncated, 0, 0};
    const uint8_t b = in[i];
    const unsigned shift = static_cast<unsigned>(7 * i);
    r.value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) != 0) continue;
    if (i + 1 == max_bytes && (b >> last_bits) != 0 && !(quirks & kQuirkVarintExtraBits)) {
      return {ErrorKind::kVarintOverflow, 0, 0};
    }
    if (b == 0 && i > 0 && !(quirks & kQuirkNonCanonicalVarint)) {
      return {ErrorKind::kVarintNonCanonical, 0, 0};
    }
    r.length = i + 1;
    return r;
  }
  return {ErrorKind::kVarintTooLong, 0, 0};
}

class Interpreter {
 public:
  Interpreter(std::span<const uint8_t> input, uint32_t quirks)
      : in_(input), quirks_(quirks), r_(input.data() + 1, input.size() - 1, 1, {quirks}) {}

  void Run(int depth) {
    while (r_.ok() && !r_.AtEnd()) {
      const uint8_t op = r_.ReadUint8();
      Step(op, depth);
      if (depth > 0 && op % 16 == 15) return;  // ends a nested block
    }
  }

  void CheckFinal() {
    if (r_.ok()) return;
    const Error e = r_.error();
    KWIRE_FUZZ_CHECK(r_.remaining() == 0 && r_.AtEnd(), "failed reader not drained");
    KWIRE_FUZZ_CHECK(e.offset <= in_.size(), "error offset %d beyond the input (%d bytes)",
                     e.offset, in_.size());
    KWIRE_FUZZ_CHECK(!e.ToString().empty(), "empty error text");
    // Sticky: later reads yield zero values and keep the first error.
    KWIRE_FUZZ_CHECK(r_.ReadInt64() == 0 && r_.ReadUvarint() == 0 && r_.ReadRaw(1).empty(),
                     "a drained reader returned data");
    KWIRE_FUZZ_CHECK(r_.ReadArrayCount(true, false, 1) == 0 && r_.ReadTaggedFieldCount() == 0,
                     "a drained reader returned a count");
    KWIRE_FUZZ_CHECK(r_.error().kind == e.kind && r_.error().offset == e.offset,
                     "the first error was replaced");
  }

 private:
  bool Strict() const { return quirks_ == 0; }
  // The bytes consumed since absolute offset `at`.
  std::span<const uint8_t> Since(size_t at) const { return in_.subspan(at, r_.offset() - at); }
  // The bytes left before the current limit.
  std::span<const uint8_t> Rest() const { return in_.subspan(r_.offset(), r_.remaining()); }

  // Checks the canonical re-encoding `enc` of a value read from `read` (bytes): strictly
  // readable by `reread` to the same value; identical to `read` without quirks.
  template <class F>
  void CheckReencoding(const char* what, std::span<const uint8_t> read,
                       std::span<const uint8_t> enc, F&& reread) {
    if (Strict()) {
      KWIRE_FUZZ_CHECK(std::equal(read.begin(), read.end(), enc.begin(), enc.end()),
                       "%s: strict read of %s re-encodes as %s", what, Hex(read), Hex(enc));
    }
    Reader back(enc);
    reread(back);
    KWIRE_FUZZ_CHECK(back.ok() && back.AtEnd(), "%s: canonical %s does not read back (%s)", what,
                     Hex(enc), back.error().ToString());
  }

  void Varint(int kind) {
    static constexpr size_t kMax[] = {5, 5, 10};
    static constexpr unsigned kLast[] = {4, 4, 1};
    static constexpr const char* kName[] = {"uvarint", "varint", "varlong"};
    const size_t at = r_.offset();
    const RefVarint ref = RefLeb128(Rest(), kMax[kind], kLast[kind], quirks_);
    uint64_t got = 0;
    if (kind == 0) got = r_.ReadUvarint();
    if (kind == 1) got = static_cast<uint32_t>(r_.ReadVarint());
    if (kind == 2) got = static_cast<uint64_t>(r_.ReadVarlong());
    KWIRE_FUZZ_CHECK(r_.error().kind == ref.kind, "%s %s: reader says %s, reference says %s",
                     kName[kind], Hex(Rest().first(std::min<size_t>(Rest().size(), 11))),
                     ErrorKindName(r_.error().kind), ErrorKindName(ref.kind));
    if (!r_.ok()) {
      KWIRE_FUZZ_CHECK(r_.error().offset == at, "%s error at %d, the value starts at %d",
                       kName[kind], r_.error().offset, at);
      return;
    }
    KWIRE_FUZZ_CHECK(r_.offset() - at == ref.length, "%s read %d bytes, reference %d",
                     kName[kind], r_.offset() - at, ref.length);
    Writer w;
    if (kind == 0) {
      const uint32_t u = static_cast<uint32_t>(ref.value);
      KWIRE_FUZZ_CHECK(got == u, "uvarint %d vs reference %d", got, u);
      w.WriteUvarint(u);
      KWIRE_FUZZ_CHECK(w.size() == UvarintSize(u), "UvarintSize(%d) = %d, encoded %d", u,
                       UvarintSize(u), w.size());
      CheckReencoding("uvarint", Since(at), w.bytes(), [&](Reader& b) {
        KWIRE_FUZZ_CHECK(b.ReadUvarint() == u, "uvarint %d reads back differently", u);
      });
    } else if (kind == 1) {
      const int32_t v = ZigZagDecode32(static_cast<uint32_t>(ref.value));
      KWIRE_FUZZ_CHECK(static_cast<int32_t>(got) == v, "varint %d vs reference %d",
                       static_cast<int32_t>(got), v);
      w.WriteVarint(v);
      KWIRE_FUZZ_CHECK(w.size() == VarintSize(v), "VarintSize(%d) = %d, encoded %d", v,
                       VarintSize(v), w.size());
      KWIRE_FUZZ_CHECK(ZigZagEncode32(v) == static_cast<uint32_t>(ref.value), "zigzag32");
      CheckReencoding("varint", Since(at), w.bytes(), [&](Reader& b) {
        KWIRE_FUZZ_CHECK(b.ReadVarint() == v, "varint %d reads back differently", v);
      });
    } else {
      const int64_t v = ZigZagDecode64(ref.value);
      KWIRE_FUZZ_CHECK(static_cast<int64_t>(got) == v, "varlong %d vs reference %d",
                       static_cast<int64_t>(got), v);
      w.WriteVarlong(v);
      KWIRE_FUZZ_CHECK(w.size() == VarlongSize(v), "VarlongSize(%d) = %d, encoded %d", v,
                       VarlongSize(v), w.size());
      KWIRE_FUZZ_CHECK(ZigZagEncode64(v) == ref.value, "zigzag64");
      CheckReencoding("varlong", Since(at), w.bytes(), [&](Reader& b) {
        KWIRE_FUZZ_CHECK(b.ReadVarlong() == v, "varlong %d reads back differently", v);
      });
    }
  }

  // String (is_string) or bytes, compact or classic, nullable or not.
  void Blob(bool is_string, bool compact, bool nullable) {
    const size_t at = r_.offset();
    const size_t before = r_.remaining();
    const int64_t len = is_string ? r_.ReadStringLength(compact, nullable)
                                  : r_.ReadBytesLength(compact, nullable);
    if (!r_.ok()) return;
    KWIRE_FUZZ_CHECK(len >= -1, "length %d", len);
    KWIRE_FUZZ_CHECK(len != -1 || nullable, "null accepted in a non-nullable field");
    if (is_string) KWIRE_FUZZ_CHECK(len <= 0x7fff, "string length %d above 32767", len);
    KWIRE_FUZZ_CHECK(len < 0 || static_cast<size_t>(len) <= r_.remaining(),
                     "length %d exceeds the %d bytes left", len, r_.remaining());
    KWIRE_FUZZ_CHECK(r_.remaining() < before, "a length prefix consumed nothing");
    std::string_view raw;
    if (len > 0 && is_string) {
      // Strings are UTF-8: kInvalidUtf8 at the first bad byte unless kQuirkInvalidUtf8
      // (utf8_test.cc checks FindInvalidUtf8 against an independent decoder).
      const size_t payload_at = r_.offset();
      const std::span<const uint8_t> bytes = r_.Unread().first(static_cast<size_t>(len));
      const size_t bad = FindInvalidUtf8(bytes.data(), bytes.size());
      raw = r_.ReadUtf8(static_cast<size_t>(len));
      if (bad != bytes.size() && !(quirks_ & kQuirkInvalidUtf8)) {
        KWIRE_FUZZ_CHECK(!r_.ok() && r_.error().kind == ErrorKind::kInvalidUtf8 &&
                             r_.error().offset == payload_at + bad,
                         "invalid UTF-8 at byte %d read as %s", payload_at + bad,
                         r_.error().ToString());
        return;
      }
      KWIRE_FUZZ_CHECK(r_.ok() && raw.size() == static_cast<size_t>(len),
                       "ReadUtf8(%d) failed on %s: %s", len,
                       bad == bytes.size() ? "UTF-8" : "kept bytes", r_.error().ToString());
    } else if (len > 0) {
      raw = r_.ReadRaw(static_cast<size_t>(len));
      KWIRE_FUZZ_CHECK(r_.ok() && raw.size() == static_cast<size_t>(len),
                       "ReadRaw(%d) failed after the length was checked", len);
    }
    Writer w;
    if (is_string) {
      w.WriteStringLength(compact, len);
    } else {
      w.WriteBytesLength(compact, len);
    }
    w.WriteRaw(raw);
    CheckReencoding(is_string ? "string" : "bytes", Since(at), w.bytes(), [&](Reader& b) {
      const int64_t l2 = is_string ? b.ReadStringLength(compact, nullable)
                                   : b.ReadBytesLength(compact, nullable);
      KWIRE_FUZZ_CHECK(l2 == len, "length %d reads back as %d", len, l2);
      if (l2 > 0) {
        KWIRE_FUZZ_CHECK(b.ReadRaw(static_cast<size_t>(l2)) == raw, "payload differs");
      }
    });
  }

  void ArrayCount(bool compact, bool nullable, size_t min_element) {
    const size_t at = r_.offset();
    const int64_t n = r_.ReadArrayCount(compact, nullable, min_element);
    if (!r_.ok()) return;
    KWIRE_FUZZ_CHECK(n >= -1 && (n != -1 || nullable), "count %d", n);
    KWIRE_FUZZ_CHECK(n <= 0 || static_cast<uint64_t>(n) <= r_.remaining() / std::max<size_t>(min_element, 1),
                     "count %d of >= %d-byte elements, %d bytes left", n, min_element,
                     r_.remaining());
    Writer w;
    w.WriteArrayCount(compact, n);
    CheckReencoding("array count", Since(at), w.bytes(), [&](Reader& b) {
      const int64_t n2 = compact ? static_cast<int64_t>(b.ReadUvarint()) - 1 : b.ReadInt32();
      KWIRE_FUZZ_CHECK(n2 == n, "count %d reads back as %d", n, n2);
    });
  }

  void TaggedSection() {
    const size_t at = r_.offset();
    const uint32_t count = r_.ReadTaggedFieldCount();
    if (!r_.ok()) return;
    KWIRE_FUZZ_CHECK(count <= (r_.remaining()) / 2, "tagged count %d, %d bytes left", count,
                     r_.remaining());
    struct Field {
      uint32_t tag;
      std::string_view data;
    };
    std::vector<Field> fields;
    int64_t previous = -1;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t tag = 1, size = 1;
      const size_t header_at = r_.offset();
      if (!r_.ReadTagHeader(previous, &tag, &size)) {
        KWIRE_FUZZ_CHECK(!r_.ok() && tag == 0 && size == 0, "failed tag header left outputs");
        return;
      }
      // Under kQuirkKnownTagSizeIgnored the size is checked only for an unknown tag, by
      // the caller; every tag is unknown here.
      if ((quirks_ & kQuirkKnownTagSizeIgnored) && !r_.CheckTagSize(header_at, tag, size)) {
        KWIRE_FUZZ_CHECK(r_.error().kind == ErrorKind::kTruncated &&
                             r_.error().offset == header_at,
                         "tag size past the end failed %s", r_.error().ToString());
        return;
      }
      if (!(quirks_ & kQuirkUnorderedTags)) {
        KWIRE_FUZZ_CHECK(static_cast<int64_t>(tag) > previous, "tag %d after %d", tag, previous);
      }
      KWIRE_FUZZ_CHECK(size <= r_.remaining(), "tag size %d, %d bytes left", size, r_.remaining());
      previous = tag;
      fields.push_back({tag, r_.ReadRaw(size)});
      if (!r_.ok()) return;
    }
    Writer w;
    w.WriteUvarint(count);
    for (const Field& f : fields) {
      w.WriteUvarint(f.tag);
      w.WriteUvarint(static_cast<uint32_t>(f.data.size()));
      w.WriteRaw(f.data);
    }
    if (quirks_ & kQuirkUnorderedTags) return;  // canonical form would need sorting
    CheckReencoding("tagged fields", Since(at), w.bytes(), [&](Reader& b) {
      const uint32_t c2 = b.ReadTaggedFieldCount();
      KWIRE_FUZZ_CHECK(c2 == count, "tagged count %d reads back as %d", count, c2);
      int64_t prev = -1;
      for (const Field& f : fields) {
        uint32_t t = 0, s = 0;
        KWIRE_FUZZ_CHECK(b.ReadTagHeader(prev, &t, &s) && t == f.tag && s == f.data.size(),
                         "tag header %d/%d reads back differently", f.tag, f.data.size());
        prev = t;
        KWIRE_FUZZ_CHECK(b.ReadRaw(s) == f.data, "tag payload differs");
      }
    });
  }

  template <class T, class ReadFn, class WriteFn>
  void Fixed(const char* what, ReadFn read, WriteFn write) {
    const size_t at = r_.offset();
    const T v = read(r_);
    if (!r_.ok()) {
      KWIRE_FUZZ_CHECK(v == T{}, "%s: a failed read returned a value", what);
      return;
    }
    Writer w;
    write(w, v);
    KWIRE_FUZZ_CHECK(std::equal(w.bytes().begin(), w.bytes().end(), Since(at).begin(),
                                Since(at).end()),
                     "%s re-encodes differently", what);
  }

  void Step(uint8_t op, int depth) {
    const bool compact = (op & 0x10) != 0;
    const bool nullable = (op & 0x20) != 0;
    switch (op % 16) {
      case 0: Varint(0); break;
      case 1: Varint(1); break;
      case 2: Varint(2); break;
      case 3: Blob(true, compact, nullable); break;
      case 4: Blob(false, compact, nullable); break;
      case 5: ArrayCount(compact, nullable, (op >> 6) == 3 ? 61 : (op >> 6) * 4); break;
      case 6: TaggedSection(); break;
      case 7: {
        const size_t at = r_.offset();
        const bool b = r_.ReadBool();
        if (r_.ok() && Strict()) {
          KWIRE_FUZZ_CHECK(in_[at] == (b ? 1 : 0), "bool byte 0x%02x read as %d", in_[at], b);
        }
        break;
      }
      case 8: {
        const size_t at = r_.offset();
        const bool present = r_.ReadStructPresence(nullable);
        if (r_.ok()) {
          KWIRE_FUZZ_CHECK(present || nullable, "null struct accepted as non-nullable");
          if (Strict()) KWIRE_FUZZ_CHECK(in_[at] == (present ? 1 : 0xff), "marker");
        }
        break;
      }
      case 9:
        Fixed<int16_t>("int16", [](Reader& r) { return r.ReadInt16(); },
                       [](Writer& w, int16_t v) { w.WriteInt16(v); });
        break;
      case 10:
        Fixed<int32_t>("int32", [](Reader& r) { return r.ReadInt32(); },
                       [](Writer& w, int32_t v) { w.WriteInt32(v); });
        break;
      case 11:
        Fixed<int64_t>("int64", [](Reader& r) { return r.ReadInt64(); },
                       [](Writer& w, int64_t v) { w.WriteInt64(v); });
        break;
      case 12:
        Fixed<uint64_t>("float64",
                        [](Reader& r) {
                          const double d = r.ReadFloat64();
                          uint64_t bits;
                          std::memcpy(&bits, &d, 8);
                          return bits;
                        },
                        [](Writer& w, uint64_t bits) {
                          double d;
                          std::memcpy(&d, &bits, 8);
                          w.WriteFloat64(d);
                        });
        break;
      case 13:
        Fixed<Uuid>("uuid", [](Reader& r) { return r.ReadUuid(); },
                    [](Writer& w, const Uuid& u) { w.WriteUuid(u); });
        break;
      case 14: {  // nested limit around further ops
        if (depth >= 8) break;
        const size_t n = r_.ReadUint8();
        const size_t outside = r_.remaining() >= n ? r_.remaining() - n : 0;
        const size_t token = r_.PushLimit(n);
        if (!r_.ok()) break;
        KWIRE_FUZZ_CHECK(r_.remaining() == n, "PushLimit(%d) left %d bytes", n, r_.remaining());
        Run(depth + 1);
        const size_t inside_left = r_.remaining();
        r_.PopLimit(token);
        if (r_.ok()) {
          KWIRE_FUZZ_CHECK(r_.remaining() == outside + inside_left,
                           "PopLimit restored %d bytes, expected %d", r_.remaining(),
                           outside + inside_left);
        }
        break;
      }
      default:
        break;  // 15: end of a nested block (see Run)
    }
  }

  std::span<const uint8_t> in_;
  uint32_t quirks_;
  Reader r_;
};

}  // namespace
}  // namespace kwire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  kwire::fuzz::Interpreter interp({data, size}, data[0] & 0x7fu);
  interp.Run(0);
  interp.CheckFinal();
  return 0;
}
