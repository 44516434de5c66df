// Hostile input (issue 3): each kind of malformed input is tested over every message it
// applies to (every API × direction × version), not on one hand-picked frame.
//
// How the loops find what to corrupt: the documented minimal instance of a message
// (conformance/README.md) holds every non-tagged field of its version, with empty
// strings and bytes, one-element arrays, non-null nullables and no tags. FindSlots()
// overwrites each candidate position of its frame with a hostile length and keeps the
// positions where the decoder rejects a length *read at exactly that byte*. Reads are
// sequential and the bytes before the position are unchanged, so an error at that byte
// can only come from a length read starting there: the slots are exactly the length
// prefixes, array counts and tagged-field counts of the frame, header included.
//
// Allocation is measured by replacing the global operator new/delete (for the whole
// codec_test binary; ASan still checks every block, the counters only add up sizes).
#include <malloc.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/generated/api_versions_response.h"
#include "codec/generated/describe_groups_request.h"
#include "codec/generated/find_coordinator_request.h"
#include "codec/generated/join_group_request.h"
#include "codec/generated/fetch_request.h"
#include "codec/generated/fetch_response.h"
#include "codec/generated/metadata_request.h"
#include "codec/generated/produce_response.h"
#include "codec/protocol/frame_test_util.h"

// ---- Heap accounting: live bytes and the peak since the last PeakHeap was opened.
namespace {
struct HeapCounter {
  int64_t live = 0;
  int64_t peak = 0;
};
HeapCounter g_heap;

void* CountedNew(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  g_heap.live += static_cast<int64_t>(malloc_usable_size(p));
  g_heap.peak = std::max(g_heap.peak, g_heap.live);
  return p;
}
void CountedDelete(void* p) noexcept {
  if (p == nullptr) return;
  g_heap.live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return CountedNew(n); }
void* operator new[](std::size_t n) { return CountedNew(n); }
void operator delete(void* p) noexcept { CountedDelete(p); }
void operator delete[](void* p) noexcept { CountedDelete(p); }
void operator delete(void* p, std::size_t) noexcept { CountedDelete(p); }
void operator delete[](void* p, std::size_t) noexcept { CountedDelete(p); }

namespace kwire {
namespace {

using frame_testing::AllCases;
using frame_testing::Case;
using frame_testing::CaseOf;
using frame_testing::Decoded;
using frame_testing::DecodeFrame;
using frame_testing::EncodeFrame;
using frame_testing::ErrorOf;
using frame_testing::Int16Bytes;
using frame_testing::Int32Bytes;
using frame_testing::Minimal;
using frame_testing::Rich;
using frame_testing::Splice;
using frame_testing::Uvarint;
using wire_testing::Hex;
using wire_testing::ToHex;
using Bytes = std::vector<uint8_t>;

constexpr auto kRequest = Direction::kRequest;
constexpr auto kResponse = Direction::kResponse;

/// Heap bytes allocated at the peak since construction, beyond what was live then.
class PeakHeap {
 public:
  PeakHeap() : base_(g_heap.live) { g_heap.peak = g_heap.live; }
  size_t bytes() const { return static_cast<size_t>(g_heap.peak - base_); }

 private:
  int64_t base_;
};

/// The allocation bound asserted for a hostile frame of n bytes.
constexpr size_t kBytesPerFrameByte = 64;
constexpr size_t kFixedAllocation = 16 * 1024;  // the message object, error text, Status
size_t AllocationBound(size_t frame_bytes) {
  return kBytesPerFrameByte * frame_bytes + kFixedAllocation;
}
/// Error text (path, detail, Status and its Error payload) on top of a clean decode: what
/// a rejected length or count may cost beyond decoding the unmodified frame. Nothing
/// proportional to it. The payload is an absl::Cord, which abseil's cordz profiler samples
/// at random (seen in 12 of 30 runs of HostileCount): a sampled Cord adds about 1 KiB of
/// CordzInfo (two 64-frame stack traces), hence 4 KiB rather than the ~1 KiB the error
/// itself takes.
constexpr size_t kErrorSlack = 4096;

struct Measured {
  Error error;      ///< kOk when the frame decoded.
  size_t peak = 0;  ///< Peak heap bytes while decoding.
};

/// Decodes a frame of `c` through the public API, measuring the heap.
Measured DecodeMeasured(const Case& c, std::span<const uint8_t> frame) {
  Measured m;
  PeakHeap heap;
  if (c.request()) {
    auto f = DecodeRequestFrame(frame);
    m.peak = heap.bytes();
    m.error = ErrorOf(f.status());
  } else {
    auto f = DecodeResponseFrame(frame, c.api->api_key, c.version);
    m.peak = heap.bytes();
    m.error = ErrorOf(f.status());
  }
  return m;
}

// ---- Slots: the length prefixes and counts of a minimal frame (see the file comment).

enum class SlotKind { kString, kBytes, kArray, kTagCount };

const char* SlotKindName(SlotKind k) {
  switch (k) {
    case SlotKind::kString: return "string";
    case SlotKind::kBytes: return "bytes";
    case SlotKind::kArray: return "array";
    case SlotKind::kTagCount: return "tag count";
  }
  return "?";
}

struct Slot {
  size_t at;         ///< Offset of the length / count in the frame.
  bool compact;      ///< uvarint (1 byte in a minimal frame) or int16/int32.
  SlotKind kind;
  std::string path;  ///< The field path the decoder reports for it.

  size_t width() const { return compact ? 1 : kind == SlotKind::kString ? 2 : 4; }
  std::string Describe() const {
    return absl::StrFormat("%s %s at byte %d (%s)", compact ? "compact" : "classic",
                           SlotKindName(kind), at, path);
  }
  friend bool operator==(const Slot&, const Slot&) = default;
};

std::vector<Slot> FindSlots(const Case& c, const Bytes& frame) {
  std::vector<Slot> slots;
  auto error_at = [&](size_t at, size_t width, const Bytes& with) {
    Error e = DecodeFrame(c, Splice(frame, at, width, with)).error;
    if (e.offset != at) e.kind = ErrorKind::kOk;  // not a read starting here
    return e;
  };
  for (size_t at = 4; at < frame.size(); ++at) {
    const size_t left = frame.size() - at;
    const uint8_t* b = &frame[at];
    if (left >= 2 && b[0] == 0) {  // a short classic string (ClientId "k", or empty)
      const Error e = error_at(at, 2, Int16Bytes(-2));
      if (e.kind == ErrorKind::kInvalidLength && absl::StartsWith(e.detail, "string length")) {
        slots.push_back({at, false, SlotKind::kString, e.path});
      }
    }
    // Empty classic bytes, a one-element array, the 61-byte empty record batch.
    if (left >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && (b[3] <= 1 || b[3] == 61)) {
      const Error e = error_at(at, 4, Int32Bytes(-2));
      if (e.kind == ErrorKind::kInvalidLength) {
        if (absl::StartsWith(e.detail, "bytes length")) {
          slots.push_back({at, false, SlotKind::kBytes, e.path});
        } else if (absl::StartsWith(e.detail, "array length")) {
          slots.push_back({at, false, SlotKind::kArray, e.path});
        }
      }
    }
    if (c.flexible() && b[0] < 0x80) {  // every compact length / count is one byte here
      const Error e = error_at(at, 1, Uvarint(0xffffffff));
      if (e.kind == ErrorKind::kInvalidLength && absl::StartsWith(e.detail, "string length")) {
        slots.push_back({at, true, SlotKind::kString, e.path});
      } else if (e.kind == ErrorKind::kInvalidLength &&
                 absl::StartsWith(e.detail, "bytes length")) {
        slots.push_back({at, true, SlotKind::kBytes, e.path});
      } else if (e.kind == ErrorKind::kInvalidLength &&
                 absl::StartsWith(e.detail, "array length")) {  // 2^32 - 2: beyond int32
        slots.push_back({at, true, SlotKind::kArray, e.path});
      } else if (e.kind == ErrorKind::kCountTooLarge &&
                 absl::StartsWith(e.detail, "tagged field count")) {
        slots.push_back({at, true, SlotKind::kTagCount, e.path});
      }
    }
  }
  return slots;
}

/// Per case: the minimal frame, the heap peak of decoding it, and its slots. Computed
/// once per case and shared by the tests below.
struct MinimalFrame {
  Bytes frame;
  size_t clean_peak = 0;
  std::vector<Slot> slots;
};

const MinimalFrame& MinimalOf(const Case& c) {
  static std::map<std::string, MinimalFrame> cache;
  auto [it, inserted] = cache.try_emplace(c.Name());
  MinimalFrame& m = it->second;
  if (inserted) {
    m.frame = EncodeFrame(c, Minimal(c));
    const Decoded clean = DecodeFrame(c, m.frame);
    EXPECT_TRUE(clean.ok()) << c.Name() << ": " << clean.error.ToString();
    EXPECT_EQ(clean.reencoded, m.frame) << c.Name();
    m.clean_peak = DecodeMeasured(c, m.frame).peak;
    m.slots = FindSlots(c, m.frame);
  }
  return m;
}

/// Runs `body` for every case (optionally only flexible ones), with the case name in
/// failure messages; stops at the first case with a failure.
template <class F>
void ForEachCase(F body, bool flexible_only = false) {
  for (const Case& c : AllCases()) {
    if (flexible_only && !c.flexible()) continue;
    SCOPED_TRACE(c.Name());
    body(c);
    if (::testing::Test::HasFailure()) return;
  }
}

/// Asserts kind, offset and path of a decode failure.
void ExpectError(const Error& e, ErrorKind kind, size_t at, const std::string& path) {
  EXPECT_EQ(e.kind, kind) << e.ToString();
  EXPECT_EQ(e.offset, at) << e.ToString();
  EXPECT_EQ(e.path, path) << e.ToString();
}

// ---- 1. Counts larger than the bytes left.

TEST(HostileCount, SlotsOfFetchV12RequestAreExactlyItsLengthsAndCounts) {
  // Hand-computed layout of the minimal FetchRequest v12 frame: size prefix 0-3,
  // header v2 (key, version, correlation id, ClientId "k" as an int16 string, tags)
  // 4-15, body from 16 (ReplicaId..SessionEpoch 16-40, then the arrays).
  const Case c = CaseOf("Fetch", kRequest, 12);
  const std::vector<Slot> want = {
      {12, false, SlotKind::kString, "RequestHeader.ClientId"},
      {15, true, SlotKind::kTagCount, "RequestHeader.tagged_fields"},
      {41, true, SlotKind::kArray, "FetchRequest.Topics"},
      {42, true, SlotKind::kString, "FetchRequest.Topics[0].Topic"},
      {43, true, SlotKind::kArray, "FetchRequest.Topics[0].Partitions"},
      {76, true, SlotKind::kTagCount, "FetchRequest.Topics[0].Partitions[0].tagged_fields"},
      {77, true, SlotKind::kTagCount, "FetchRequest.Topics[0].tagged_fields"},
      {78, true, SlotKind::kArray, "FetchRequest.ForgottenTopicsData"},
      {79, true, SlotKind::kString, "FetchRequest.ForgottenTopicsData[0].Topic"},
      {80, true, SlotKind::kArray, "FetchRequest.ForgottenTopicsData[0].Partitions"},
      {85, true, SlotKind::kTagCount, "FetchRequest.ForgottenTopicsData[0].tagged_fields"},
      {86, true, SlotKind::kString, "FetchRequest.RackId"},
      {87, true, SlotKind::kTagCount, "FetchRequest.tagged_fields"},
  };
  const MinimalFrame& m = MinimalOf(c);
  EXPECT_EQ(m.frame.size(), 88u);
  std::string got;
  for (const Slot& s : m.slots) got += s.Describe() + "\n";
  EXPECT_EQ(m.slots, want) << got;
}

TEST(HostileCount, TooLargeFailsAtTheCountBeforeAllocating) {
  size_t arrays = 0, tag_counts = 0;
  ForEachCase([&](const Case& c) {
    const MinimalFrame& m = MinimalOf(c);
    for (const Slot& s : m.slots) {
      if (s.kind != SlotKind::kArray && s.kind != SlotKind::kTagCount) continue;
      SCOPED_TRACE(s.Describe());
      (s.kind == SlotKind::kArray ? arrays : tag_counts)++;
      // The minimal frame has one element per array and no tags.
      const Bytes original(m.frame.begin() + s.at, m.frame.begin() + s.at + s.width());
      EXPECT_EQ(original, s.compact ? Bytes{s.kind == SlotKind::kArray ? uint8_t{2} : uint8_t{0}}
                                    : Int32Bytes(1));
      const size_t after = s.at + s.width();
      std::vector<Bytes> counts;
      if (s.compact) {
        counts = {Uvarint(0xffffffff), Uvarint(0x7fffffff), Uvarint(0x10000),
                  Uvarint(static_cast<uint32_t>(m.frame.size() - after + 2))};
      } else {
        counts = {Int32Bytes(INT32_MAX), Int32Bytes(0x10000),
                  Int32Bytes(static_cast<int32_t>(m.frame.size() - after + 1))};
      }
      for (const Bytes& count : counts) {
        // A compact array count beyond the int32 maximum (uvarint 0xffffffff: 2^32 - 2)
        // is an invalid length, checked before the bytes left (FORMAT.md "Lengths");
        // a tag count has no such cap.
        const ErrorKind want = s.kind == SlotKind::kArray && count == Uvarint(0xffffffff)
                                   ? ErrorKind::kInvalidLength
                                   : ErrorKind::kCountTooLarge;
        // With the element (and everything after it) still following.
        const Measured r = DecodeMeasured(c, Splice(m.frame, s.at, s.width(), count));
        ExpectError(r.error, want, s.at, s.path);
        EXPECT_LE(r.peak, m.clean_peak + kErrorSlack) << ToHex(count);
        // With the frame ending right after the count. An enclosing array's count, read
        // first, may then be the one that no longer fits.
        const Measured end = DecodeMeasured(c, Splice(m.frame, s.at, m.frame.size() - s.at, count));
        EXPECT_EQ(end.error.kind, end.error.offset == s.at ? want : ErrorKind::kCountTooLarge)
            << end.error.ToString();
        if (end.error.offset != s.at) {
          EXPECT_LT(end.error.offset, s.at) << end.error.ToString();
          EXPECT_TRUE(absl::StartsWith(s.path, end.error.path + "[")) << end.error.ToString();
        } else {
          EXPECT_EQ(end.error.path, s.path);
        }
        EXPECT_LE(end.peak, m.clean_peak + kErrorSlack) << ToHex(count);
      }
    }
  });
  EXPECT_GT(arrays, 1000u);
  EXPECT_GT(tag_counts, 1000u);
  std::printf("[ counts   ] %zu array counts, %zu tagged-field counts\n", arrays, tag_counts);
}

TEST(HostileCount, HugeTagCountInTheHeaderBeforeTheBodyIsKnown) {
  // Request header v2: size 0-3, key 4-5, version 6-7, correlation id 8-11, ClientId
  // "k" 12-14, tag count at 15. Response header v1: correlation id 4-7, tag count at 8.
  ForEachCase(
      [](const Case& c) {
        if (ResponseHeaderVersion(c.api->api_key, c.version) == 0 && !c.request()) return;
        const size_t at = c.request() ? 15 : 8;
        const MinimalFrame& m = MinimalOf(c);
        for (uint32_t count : {0xffffffffu, 0x0fffffffu, 1000u}) {
          const Measured r = DecodeMeasured(c, Splice(m.frame, at, 1, Uvarint(count)));
          ExpectError(r.error, ErrorKind::kCountTooLarge, at,
                      c.request() ? "RequestHeader.tagged_fields" : "ResponseHeader.tagged_fields");
          EXPECT_LE(r.peak, m.clean_peak + kErrorSlack);
        }
      },
      /*flexible_only=*/true);
}

// ---- 2 and 5. Lengths: negative, null, and past the end.

TEST(HostileLength, NegativeOtherThanMinusOneIsInvalidLength) {
  size_t seen = 0;
  ForEachCase([&](const Case& c) {
    const MinimalFrame& m = MinimalOf(c);
    for (const Slot& s : m.slots) {
      if (s.compact || s.kind == SlotKind::kTagCount) continue;  // uvarints are never < -1
      SCOPED_TRACE(s.Describe());
      ++seen;
      const std::vector<int32_t> values = {-2, -3, -256, s.kind == SlotKind::kString
                                                             ? int32_t{INT16_MIN}
                                                             : int32_t{INT32_MIN}};
      for (int32_t v : values) {
        const Bytes len = s.width() == 2 ? Int16Bytes(static_cast<int16_t>(v)) : Int32Bytes(v);
        ExpectError(DecodeFrame(c, Splice(m.frame, s.at, s.width(), len)).error,
                    ErrorKind::kInvalidLength, s.at, s.path);
      }
    }
  });
  EXPECT_GT(seen, 1000u);
}

TEST(HostileLength, NullIsUnexpectedUnlessNullableAndThenRoundTrips) {
  size_t rejected = 0, accepted = 0;
  ForEachCase([&](const Case& c) {
    const MinimalFrame& m = MinimalOf(c);
    for (const Slot& s : m.slots) {
      if (s.kind == SlotKind::kTagCount) continue;
      SCOPED_TRACE(s.Describe());
      const Bytes null = s.compact ? Bytes{0} : s.width() == 2 ? Int16Bytes(-1) : Int32Bytes(-1);
      const Bytes with_null = Splice(m.frame, s.at, s.width(), null);
      const Decoded d = DecodeFrame(c, with_null);
      if (d.error.offset == s.at) {
        ExpectError(d.error, ErrorKind::kUnexpectedNull, s.at, s.path);
        ++rejected;
        // The Java leniency admits negative lengths only where null is admitted.
        if (!s.compact) {
          const Bytes minus2 = s.width() == 2 ? Int16Bytes(-2) : Int32Bytes(-2);
          ExpectError(DecodeFrame(c, Splice(m.frame, s.at, s.width(), minus2),
                                  kQuirkAnyNegativeLengthIsNull)
                          .error,
                      ErrorKind::kInvalidLength, s.at, s.path);
        }
        continue;
      }
      ++accepted;  // null accepted: whatever fails next fails later
      // A null string / bytes takes the place of an empty one: the frame decodes and the
      // null re-encodes byte-identically. (After an array's or a record batch's null, its
      // bytes misparse.)
      const bool was_empty = s.compact ? m.frame[s.at] == 1
                                       : std::all_of(m.frame.begin() + s.at,
                                                     m.frame.begin() + s.at + s.width(),
                                                     [](uint8_t b) { return b == 0; });
      if (s.kind == SlotKind::kArray || !was_empty) continue;
      ASSERT_TRUE(d.ok()) << d.error.ToString();
      EXPECT_EQ(d.reencoded, with_null);
      if (!s.compact) {  // kQuirkAnyNegativeLengthIsNull: -2 reads as null, writes as -1
        const Bytes minus2 = s.width() == 2 ? Int16Bytes(-2) : Int32Bytes(-2);
        const Decoded q = DecodeFrame(c, Splice(m.frame, s.at, s.width(), minus2),
                                      kQuirkAnyNegativeLengthIsNull);
        ASSERT_TRUE(q.ok()) << q.error.ToString();
        EXPECT_EQ(q.reencoded, with_null);
      }
    }
  });
  EXPECT_GT(rejected, 1000u);
  EXPECT_GT(accepted, 100u);
  std::printf("[ nulls    ] %zu rejected (non-nullable), %zu accepted (nullable)\n", rejected,
              accepted);
}

TEST(HostileLength, NullSpotChecks) {
  // MetadataRequest.Topics is nullable from v1 (null = all topics), Name from v10.
  for (int16_t v = 0; v <= 13; ++v) {
    SCOPED_TRACE(v);
    const Case c = CaseOf("Metadata", kRequest, v);
    const MinimalFrame& m = MinimalOf(c);
    bool saw_topics = false, saw_name = false;
    for (const Slot& s : m.slots) {
      const Bytes null = s.compact ? Bytes{0} : s.width() == 2 ? Int16Bytes(-1) : Int32Bytes(-1);
      const Error e = DecodeFrame(c, Splice(m.frame, s.at, s.width(), null)).error;
      const bool rejected = e.kind == ErrorKind::kUnexpectedNull && e.offset == s.at;
      if (s.path == "MetadataRequest.Topics") {
        saw_topics = true;
        EXPECT_EQ(rejected, v == 0) << e.ToString();
      } else if (s.path == "MetadataRequest.Topics[0].Name") {
        saw_name = true;
        EXPECT_EQ(rejected, v < 10) << e.ToString();
      }
    }
    EXPECT_TRUE(saw_topics);
    EXPECT_TRUE(saw_name);
  }
}

TEST(HostileLength, PastTheEndFailsAtTheLengthWithoutAllocating) {
  // Lengths whose addition to the cursor would overflow a 32-bit position, or that
  // exceed what the type can hold: an error at the length, nothing allocated for it.
  size_t seen = 0;
  ForEachCase([&](const Case& c) {
    const MinimalFrame& m = MinimalOf(c);
    for (const Slot& s : m.slots) {
      if (s.kind != SlotKind::kString && s.kind != SlotKind::kBytes) continue;
      SCOPED_TRACE(s.Describe());
      ++seen;
      struct Hostile {
        Bytes length;
        ErrorKind kind;
      };
      std::vector<Hostile> cases;
      const bool str = s.kind == SlotKind::kString;
      if (!s.compact) {
        cases = {{str ? Int16Bytes(INT16_MAX) : Int32Bytes(INT32_MAX), ErrorKind::kTruncated}};
      } else {
        cases = {{Uvarint(0xffffffff), ErrorKind::kInvalidLength},  // 2^32 - 2 bytes
                 {Uvarint(0x80000000), str ? ErrorKind::kInvalidLength : ErrorKind::kTruncated},
                 {Uvarint(0x8000), ErrorKind::kTruncated},  // 32767: the longest string
                 {Uvarint(0x8001), str ? ErrorKind::kInvalidLength : ErrorKind::kTruncated}};
      }
      for (const Hostile& h : cases) {
        const Measured r = DecodeMeasured(c, Splice(m.frame, s.at, s.width(), h.length));
        ExpectError(r.error, h.kind, s.at, s.path);
        EXPECT_LE(r.peak, m.clean_peak + kErrorSlack) << ToHex(h.length);
      }
    }
  });
  EXPECT_GT(seen, 1000u);
}

// ---- 1 (allocation). Peak heap is O(frame bytes) for every hostile count.

TEST(HostileAllocation, PeakHeapIsLinearInFrameBytes) {
  struct Worst {
    double ratio = 0;
    size_t peak = 0, bytes = 0;
    std::string where;
  } worst;
  auto check = [&](const Case& c, const Bytes& frame, const std::string& what) {
    const Measured r = DecodeMeasured(c, frame);
    EXPECT_LE(r.peak, AllocationBound(frame.size())) << what << ": " << r.error.ToString();
    const double ratio = static_cast<double>(r.peak) / static_cast<double>(frame.size());
    if (ratio > worst.ratio) worst = {ratio, r.peak, frame.size(), c.Name() + " " + what};
    return r;
  };
  ForEachCase([&](const Case& c) {
    const MinimalFrame& m = MinimalOf(c);
    // (a) Every 4-byte window set to INT32_MAX and every byte replaced by a 5-byte
    // uvarint 2^32 - 1: whatever the decoder takes them for.
    for (size_t at = 4; at < m.frame.size(); ++at) {
      if (at + 4 <= m.frame.size()) check(c, Splice(m.frame, at, 4, Int32Bytes(INT32_MAX)), "window");
      check(c, Splice(m.frame, at, 1, Uvarint(0xffffffff)), "uvarint");
    }
    // (b) Each array count set to the largest value the bytes left admit, with 8 KiB of
    // zeros appended to decode elements from: the most a count can make the decoder
    // allocate (the elements are sized before they are read).
    Bytes padded = m.frame;
    padded.resize(padded.size() + 8192, 0);
    frame_testing::FixSizePrefix(padded);
    std::vector<std::pair<Slot, uint32_t>> maxed;
    for (const Slot& s : m.slots) {
      if (s.kind != SlotKind::kArray) continue;
      auto with_count = [&](uint32_t n) {
        return Splice(padded, s.at, s.width(),
                      s.compact ? Uvarint(n + 1) : Int32Bytes(static_cast<int32_t>(n)));
      };
      auto accepted = [&](uint32_t n) {
        const Error e = DecodeFrame(c, with_count(n)).error;
        return !(e.kind == ErrorKind::kCountTooLarge && e.offset == s.at);
      };
      uint32_t lo = 1, hi = INT32_MAX;  // accepted(lo), !accepted(hi)
      while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        (accepted(mid) ? lo : hi) = mid;
      }
      check(c, with_count(lo), absl::StrFormat("%s = %d", s.Describe(), lo));
      maxed.push_back({s, lo});
    }
    // (c) Every array count at its maximum at once: nested arrays are sized before
    // their enclosing element is complete.
    Bytes all = padded;
    for (auto it = maxed.rbegin(); it != maxed.rend(); ++it) {  // back to front: offsets hold
      const Slot& s = it->first;
      all = Splice(all, s.at, s.width(),
                   s.compact ? Uvarint(it->second + 1) : Int32Bytes(static_cast<int32_t>(it->second)));
    }
    if (!maxed.empty()) check(c, all, "all counts at their maximum");
  });
  std::printf("[ heap     ] worst: %zu bytes peak for a %zu-byte frame (%.1f x) in %s\n",
              worst.peak, worst.bytes, worst.ratio, worst.where.c_str());
}

// ---- 3. Truncation at every byte of a rich frame.

TEST(HostileTruncation, EveryPrefixOfARichFrameFails) {
  size_t prefixes = 0;
  ForEachCase([&](const Case& c) {
    const Bytes frame = EncodeFrame(c, Rich(c, 0x7472756e63ull));
    for (size_t len = 0; len < frame.size(); ++len) {
      SCOPED_TRACE(len);
      ++prefixes;
      const std::span<const uint8_t> prefix(frame.data(), len);
      // The original size prefix promises more than there is.
      ExpectError(DecodeFrame(c, prefix).error, ErrorKind::kTruncated, 0, "Frame.size");
      if (len < 4) continue;
      // A size prefix that matches: the body itself ends too early.
      Bytes corrected(prefix.begin(), prefix.end());
      frame_testing::FixSizePrefix(corrected);
      const Measured r = DecodeMeasured(c, corrected);
      ASSERT_FALSE(r.error.ok());
      EXPECT_TRUE(r.error.kind == ErrorKind::kTruncated ||
                  r.error.kind == ErrorKind::kCountTooLarge)
          << r.error.ToString();
      EXPECT_LE(r.error.offset, len) << r.error.ToString();
      EXPECT_LE(r.peak, AllocationBound(len));
    }
  });
  std::printf("[ truncate ] %zu prefixes\n", prefixes);
}

// ---- 4. Tagged fields.

/// A tagged-field section: count, then (tag, size, payload) in the given order.
Bytes Section(const std::vector<std::pair<uint32_t, Bytes>>& fields) {
  Bytes out = Uvarint(static_cast<uint32_t>(fields.size()));
  for (const auto& [tag, payload] : fields) {
    for (const Bytes& b : {Uvarint(tag), Uvarint(static_cast<uint32_t>(payload.size())), payload}) {
      out.insert(out.end(), b.begin(), b.end());
    }
  }
  return out;
}

TEST(HostileTags, OutOfOrderOrDuplicatedInEverySection) {
  // Tags far above every known one, in every tagged-field section of every flexible
  // minimal frame (headers included).
  constexpr uint32_t kA = 10000, kB = 10001;  // 2-byte uvarints
  size_t sections = 0;
  ForEachCase(
      [&](const Case& c) {
        const MinimalFrame& m = MinimalOf(c);
        for (const Slot& s : m.slots) {
          if (s.kind != SlotKind::kTagCount) continue;
          SCOPED_TRACE(s.Describe());
          ++sections;
          auto with = [&](const Bytes& section) { return Splice(m.frame, s.at, 1, section); };
          const Bytes ascending = with(Section({{kA, Hex("61")}, {kB, Hex("62")}}));
          const Bytes reversed = with(Section({{kB, Hex("62")}, {kA, Hex("61")}}));
          const Bytes twice = with(Section({{kA, Hex("61")}, {kA, Hex("62")}}));
          const size_t second = s.at + 1 + 4;  // count, then tag (2) + size (1) + payload (1)

          const Decoded a = DecodeFrame(c, ascending);
          ASSERT_TRUE(a.ok()) << a.error.ToString();
          EXPECT_EQ(a.reencoded, ascending);  // unknown tags preserved byte-exactly
          ExpectError(DecodeFrame(c, reversed).error, ErrorKind::kTagOutOfOrder, second, s.path);
          ExpectError(DecodeFrame(c, twice).error, ErrorKind::kTagDuplicate, second, s.path);
          // Java's leniency: any order (encoding writes ascending order, so the input is
          // not reproduced); a repeated unknown tag is kept twice, as Java appends it to
          // unknownTaggedFields(), and such a message does not encode: the encoder says
          // which tag repeats (kTagDuplicate), as Java's RawTaggedFieldWriter refuses it.
          const Decoded r = DecodeFrame(c, reversed, kQuirkUnorderedTags);
          ASSERT_TRUE(r.ok()) << r.error.ToString();
          EXPECT_EQ(r.reencoded, ascending);
          FrameOptions unordered;
          unordered.quirks = kQuirkUnorderedTags;
          absl::Status encoded;
          if (c.request()) {
            auto f = DecodeRequestFrame(twice, unordered);
            ASSERT_TRUE(f.ok()) << f.status();
            encoded = EncodeRequestFrame(f->header, f->body).status();
          } else {
            auto f = DecodeResponseFrame(twice, c.api->api_key, c.version, unordered);
            ASSERT_TRUE(f.ok()) << f.status();
            encoded = EncodeResponseFrame(f->header, c.api->api_key, f->body_version, f->body)
                          .status();
          }
          EXPECT_EQ(ErrorOf(encoded).kind, ErrorKind::kTagDuplicate) << encoded;
          EXPECT_NE(ErrorOf(encoded).detail.find("tag 10000 after tag 10000"), std::string::npos)
              << encoded;
        }
      },
      /*flexible_only=*/true);
  EXPECT_GT(sections, 1000u);
}

TEST(HostileTags, UnknownTagsAtTheTopOfTheUvarintRangeInEverySection) {
  // Tag numbers are uvarints up to 2^32 - 1 (KIP-482). Regression (kwire diff against
  // Apache Kafka 4.4.0, 2026-12-03): tag 0xffffffff read as int32 is -1, the "untagged"
  // mark of every untagged field, and --quirks java's check for a tag of another version
  // (kQuirkTagOfOtherVersionRejected) took it for one and rejected the frame; Java and
  // strict kwire keep it as an unknown tag. Every section, strict and with every Java
  // quirk, at the int32 boundary and the top of the range.
  size_t sections = 0;
  ForEachCase(
      [&](const Case& c) {
        const MinimalFrame& m = MinimalOf(c);
        for (const Slot& s : m.slots) {
          if (s.kind != SlotKind::kTagCount) continue;
          SCOPED_TRACE(s.Describe());
          ++sections;
          for (const uint32_t tag : {0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu}) {
            SCOPED_TRACE(tag);
            const Bytes frame = Splice(m.frame, s.at, 1, Section({{tag, Hex("61")}}));
            for (const uint32_t quirks : {0u, uint32_t{kQuirkTagOfOtherVersionRejected}, kQuirksJava}) {
              SCOPED_TRACE(quirks);
              const Decoded d = DecodeFrame(c, frame, quirks);
              ASSERT_TRUE(d.ok()) << d.error.ToString();
              EXPECT_EQ(d.reencoded, frame);
            }
          }
        }
      },
      /*flexible_only=*/true);
  EXPECT_GT(sections, 1000u);
}

TEST(HostileTags, KnownTagsUseExactlyTheirDeclaredSizeAndMergeWithUnknownOnes) {
  // Every tag number 0..kProbe in every section: an empty payload is accepted (and kept)
  // for an unknown tag, and fails kTagSizeMismatch at the tag header for a known one
  // (no value is 0 bytes long). For each known tag, a payload of k bytes of 00 or 01
  // that decodes is searched; k - 1 and k + 1 declared bytes must fail at the header.
  constexpr uint32_t kProbe = 24;
  std::map<std::string, std::vector<uint32_t>> known_by_section;
  size_t known_total = 0;
  ForEachCase(
      [&](const Case& c) {
        const MinimalFrame& m = MinimalOf(c);
        for (const Slot& s : m.slots) {
          if (s.kind != SlotKind::kTagCount) continue;
          SCOPED_TRACE(s.Describe());
          auto with = [&](const std::vector<std::pair<uint32_t, Bytes>>& fields) {
            return Splice(m.frame, s.at, 1, Section(fields));
          };
          const size_t header = s.at + 1;  // the first tag header
          std::vector<std::pair<uint32_t, Bytes>> valid;  // one valid field per probed tag
          std::vector<uint32_t> known;
          for (uint32_t tag = 0; tag <= kProbe; ++tag) {
            const Decoded empty = DecodeFrame(c, with({{tag, {}}}));
            if (empty.ok()) {
              EXPECT_EQ(empty.reencoded, with({{tag, {}}}));
              valid.push_back({tag, {}});
              continue;
            }
            known.push_back(tag);
            EXPECT_EQ(empty.error.kind, ErrorKind::kTagSizeMismatch) << empty.error.ToString();
            EXPECT_EQ(empty.error.offset, header) << empty.error.ToString();
            Bytes payload;
            for (uint8_t fill : {0x00, 0x01}) {
              for (size_t k = 1; k <= 64 && payload.empty(); ++k) {
                if (DecodeFrame(c, with({{tag, Bytes(k, fill)}})).ok()) payload = Bytes(k, fill);
              }
              if (!payload.empty()) break;
            }
            if (payload.empty()) {
              ADD_FAILURE() << "no payload of 00 or 01 bytes decodes for known tag " << tag;
              continue;
            }
            const Decoded exact = DecodeFrame(c, with({{tag, payload}}));
            EXPECT_EQ(exact.reencoded, with({{tag, payload}}));
            Bytes shorter(payload.begin(), payload.end() - 1), longer = payload;
            longer.push_back(payload[0]);
            const Error over = DecodeFrame(c, with({{tag, shorter}})).error;
            EXPECT_EQ(over.kind, ErrorKind::kTagSizeMismatch) << over.ToString();
            EXPECT_EQ(over.offset, header) << over.ToString();
            EXPECT_TRUE(absl::StartsWith(over.detail, "value runs past its declared size"))
                << over.ToString();
            const Error under = DecodeFrame(c, with({{tag, longer}})).error;
            EXPECT_EQ(under.kind, ErrorKind::kTagSizeMismatch) << under.ToString();
            EXPECT_EQ(under.offset, header) << under.ToString();
            EXPECT_EQ(under.detail,
                      absl::StrFormat("tag %d declares %d bytes, its value used %d", tag,
                                      longer.size(), payload.size()));
            valid.push_back({tag, payload});
          }
          known_total += known.size();
          known_by_section[c.Name() + " " + s.path] = known;
          // Known and unknown tags together, ascending: decoded and written back
          // byte-exactly (the encoder merges known and preserved unknown tags).
          valid.push_back({1000, Hex("ff")});
          const Bytes all = with(valid);
          const Decoded d = DecodeFrame(c, all);
          ASSERT_TRUE(d.ok()) << d.error.ToString();
          EXPECT_EQ(d.reencoded, all);
          std::reverse(valid.begin(), valid.end());
          const Decoded r = DecodeFrame(c, with(valid), kQuirkUnorderedTags);
          ASSERT_TRUE(r.ok()) << r.error.ToString();
          EXPECT_EQ(r.reencoded, all);
          EXPECT_EQ(DecodeFrame(c, with(valid)).error.kind, ErrorKind::kTagOutOfOrder);
        }
      },
      /*flexible_only=*/true);
  using Tags = std::vector<uint32_t>;
  EXPECT_EQ(known_by_section["Fetch_v12_request FetchRequest.tagged_fields"], Tags{0});
  EXPECT_EQ(known_by_section["Fetch_v15_request FetchRequest.tagged_fields"], (Tags{0, 1}));
  EXPECT_EQ(known_by_section["Fetch_v17_request FetchRequest.Topics[0].Partitions[0].tagged_fields"],
            Tags{0});
  EXPECT_EQ(known_by_section["ApiVersions_v3_response ApiVersionsResponse.tagged_fields"],
            (Tags{0, 1, 2, 3}));
  EXPECT_EQ(known_by_section
                ["Fetch_v12_response FetchResponse.Responses[0].Partitions[0].tagged_fields"],
            (Tags{0, 1, 2}));
  EXPECT_EQ(known_by_section["Fetch_v16_response FetchResponse.tagged_fields"], Tags{0});
  EXPECT_EQ(known_by_section["ApiVersions_v3_request ApiVersionsRequest.tagged_fields"], Tags{});
  EXPECT_GT(known_total, 50u);
  std::printf("[ tags     ] %zu sections, %zu known tags\n", known_by_section.size(),
              known_total);
}

TEST(HostileTags, SizeMismatchExamples) {
  // FetchRequest v12, ClusterId (tag 0, compact nullable string) "ab" = 03 61 62.
  const Case c = CaseOf("Fetch", kRequest, 12);
  const Bytes& frame = MinimalOf(c).frame;  // top-level tag count at 87
  auto with = [&](const char* section) { return Splice(frame, 87, 1, Hex(section)); };
  EXPECT_TRUE(DecodeFrame(c, with("01 00 03 03 61 62")).ok());
  EXPECT_EQ(DecodeFrame(c, with("01 00 04 03 61 62 00")).error.ToString(),
            "tag_size_mismatch at byte 88 in FetchRequest.ClusterId "
            "(tag 0 declares 4 bytes, its value used 3)");
  EXPECT_EQ(DecodeFrame(c, with("01 00 02 03 61 62")).error.ToString(),
            "tag_size_mismatch at byte 88 in FetchRequest.ClusterId (value runs past its "
            "declared size at byte 90: string of 2 bytes, have 1)");

  // FetchResponse v12 PartitionData.CurrentLeader (tag 1, struct LeaderIdAndEpoch:
  // int32, int32, tags = 9 bytes), typed, at the body level.
  FetchResponse m;
  m.responses.emplace_back().partitions.emplace_back().current_leader.emplace(
      FetchResponse::LeaderIdAndEpoch{7, 9, {}});
  auto body = EncodeMessage(m, 12);
  ASSERT_TRUE(body.ok()) << body.status();
  const Bytes tag = Hex("01 01 09 00 00 00 07 00 00 00 09 00");
  const auto it = std::search(body->begin(), body->end(), tag.begin(), tag.end());
  ASSERT_NE(it, body->end());
  const size_t at = static_cast<size_t>(it - body->begin()) + 1;
  auto resized = [&](uint8_t size, const Bytes& extra) {
    Bytes b = *body;
    b[at + 1] = size;
    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at + 2 + 9), extra.begin(), extra.end());
    return DecodeMessage<FetchResponse>(b, 12).status();
  };
  const std::string path = "FetchResponse.Responses[0].Partitions[0].CurrentLeader";
  ExpectError(ErrorOf(resized(10, Hex("00"))), ErrorKind::kTagSizeMismatch, at, path);
  ExpectError(ErrorOf(resized(8, {})), ErrorKind::kTagSizeMismatch, at, path + ".tagged_fields");
}

TEST(HostileTags, JavaQuirkRejectsATagOfAFieldNotTaggedAtThisVersion) {
  // kQuirkTagOfOtherVersionRejected (in kQuirksJava): ProduceResponse's NodeEndpoints is
  // top-level tag 0 from v10. At v9 (flexible) a tag 0 is unknown to the protocol, and
  // Java's generated read() throws "Tag 0 is not valid for version 9" (kafka-clients
  // 4.4.0 does; conformance/testees/apache-kafka/FAILURES.md).
  const Case c = CaseOf("Produce", kResponse, 9);
  const Bytes& frame = MinimalOf(c).frame;
  const size_t at = frame.size() - 1;  // the body's top-level tag count, its last byte
  ASSERT_EQ(frame[at], 0x00);
  const Bytes tagged = Splice(frame, at, 1, Hex("01 00 01 aa"));
  // Strict: an unknown tag, kept byte-exactly.
  const Decoded strict = DecodeFrame(c, tagged);
  ASSERT_TRUE(strict.ok()) << strict.error.ToString();
  EXPECT_EQ(strict.reencoded, tagged);
  for (uint32_t quirks : {uint32_t{kQuirkTagOfOtherVersionRejected}, kQuirksJava}) {
    SCOPED_TRACE(quirks);
    const Decoded java = DecodeFrame(c, tagged, quirks);
    EXPECT_EQ(java.error.kind, ErrorKind::kInvalidValue) << java.error.ToString();
    EXPECT_EQ(java.error.offset, at + 1);
    EXPECT_EQ(java.error.path, "ProduceResponse.tagged_fields");
    EXPECT_NE(java.error.ToString().find("tag 0 is NodeEndpoints's, which is not a tagged "
                                         "field at v9"),
              std::string::npos)
        << java.error.ToString();
    // Tag 1 belongs to no field of the struct: unknown under Java's rules too.
    const Bytes other = Splice(frame, at, 1, Hex("01 01 01 aa"));
    const Decoded unknown = DecodeFrame(c, other, quirks);
    ASSERT_TRUE(unknown.ok()) << unknown.error.ToString();
    EXPECT_EQ(unknown.reencoded, other);
  }
  // Nested: PartitionProduceResponse.CurrentLeader is tag 0 from v10 as well.
  ProduceResponse m;
  m.responses.emplace_back().partition_responses.emplace_back();
  auto body = EncodeMessage(m, 9);
  ASSERT_TRUE(body.ok()) << body.status();
  // The partition's tag section is its last byte before the topic's and the body's tail
  // (topic tags 00, ThrottleTimeMs 00000000, body tags 00).
  Bytes nested = *body;
  const size_t partition_tags = nested.size() - 7;
  ASSERT_EQ(nested[partition_tags], 0x00);
  nested.erase(nested.begin() + static_cast<std::ptrdiff_t>(partition_tags));
  const Bytes section = Hex("01 00 01 aa");
  nested.insert(nested.begin() + static_cast<std::ptrdiff_t>(partition_tags), section.begin(),
                section.end());
  EXPECT_TRUE(DecodeMessage<ProduceResponse>(nested, 9).ok());
  DecodeOptions java;
  java.quirks = kQuirksJava;
  const auto rejected = DecodeMessage<ProduceResponse>(nested, 9, java);
  EXPECT_EQ(ErrorOf(rejected.status()).kind, ErrorKind::kInvalidValue) << rejected.status();
  EXPECT_EQ(ErrorOf(rejected.status()).path,
            "ProduceResponse.Responses[0].PartitionResponses[0].tagged_fields");
}

TEST(HostileTags, JavaQuirkReadsKnownTagsByTypeWhateverTheirDeclaredSize) {
  // kQuirkKnownTagSizeIgnored (in kQuirksJava): Java's generated readers read a known
  // tag's value by its type and never look at the declared size; unknown tags are still
  // `size` bytes. FetchRequest v12, ClusterId (tag 0) "ab" = 03 61 62 at byte 90.
  const Case c = CaseOf("Fetch", kRequest, 12);
  const Bytes& frame = MinimalOf(c).frame;  // top-level tag count at 87
  auto with = [&](const char* section) { return Splice(frame, 87, 1, Hex(section)); };
  const Bytes canonical = with("01 00 03 03 61 62");
  for (uint32_t quirks : {uint32_t{kQuirkKnownTagSizeIgnored}, kQuirksJava}) {
    SCOPED_TRACE(quirks);
    // Declared 2 (too few) or 1: the value is read whole; re-encoding writes its size.
    for (const char* section : {"01 00 02 03 61 62", "01 00 01 03 61 62", "01 00 00 03 61 62"}) {
      const Decoded d = DecodeFrame(c, with(section), quirks);
      ASSERT_TRUE(d.ok()) << section << ": " << d.error.ToString();
      EXPECT_EQ(d.reencoded, canonical) << section;
    }
    // Declared 4 (too many): the value ends after 3 bytes, so the fourth is not part of
    // the section: trailing bytes after the body (as Java's frame check reports).
    const Decoded more = DecodeFrame(c, with("01 00 04 03 61 62 00"), quirks);
    EXPECT_EQ(more.error.kind, ErrorKind::kTrailingBytes) << more.error.ToString();
    EXPECT_EQ(more.error.offset, 93u) << more.error.ToString();
    // An unknown tag's payload is its declared size, kept byte-exactly.
    const Bytes unknown = with("02 00 03 03 61 62 05 02 aa bb");
    const Decoded u = DecodeFrame(c, unknown, quirks);
    ASSERT_TRUE(u.ok()) << u.error.ToString();
    EXPECT_EQ(u.reencoded, unknown);
    // A declared size past the end is still truncation for an unknown tag, at its header.
    ExpectError(DecodeFrame(c, with("01 05 09 aa bb"), quirks).error, ErrorKind::kTruncated, 88,
                "FetchRequest.tagged_fields");
    // A known tag's size past the end is never looked at (kwire diff against Apache
    // Kafka 4.4.0, 2026-12-03: the size was checked before the tag was known).
    const Decoded past = DecodeFrame(c, with("01 00 7f 03 61 62"), quirks);
    ASSERT_TRUE(past.ok()) << past.error.ToString();
    EXPECT_EQ(past.reencoded, canonical);
  }
  // Strict and every other quirk: the size is enforced.
  EXPECT_EQ(DecodeFrame(c, with("01 00 02 03 61 62"), kQuirksJava & ~kQuirkKnownTagSizeIgnored)
                .error.kind,
            ErrorKind::kTagSizeMismatch);
}

// ---- 9. Encode semantics.

template <KafkaMessage M>
Error EncodeError(const M& m, int16_t version) {
  return ErrorOf(EncodeMessage(m, version).status());
}

TEST(HostileEncode, NonDefaultValueInAnAbsentField) {
  MetadataRequest m;
  m.allow_auto_topic_creation = false;  // v4+, default true, not ignorable
  for (int16_t v = 0; v <= 13; ++v) {
    const Error e = EncodeError(m, v);
    if (v < 4) {
      EXPECT_EQ(e.kind, ErrorKind::kNonDefaultField) << v;
      EXPECT_EQ(e.path, "MetadataRequest.AllowAutoTopicCreation");
    } else {
      EXPECT_TRUE(e.ok()) << e.ToString();
    }
  }
  MetadataRequest cluster_ops;
  cluster_ops.include_cluster_authorized_operations = true;  // v8-10 only
  for (int16_t v = 0; v <= 13; ++v) {
    EXPECT_EQ(EncodeError(cluster_ops, v).kind,
              v >= 8 && v <= 10 ? ErrorKind::kOk : ErrorKind::kNonDefaultField)
        << v;
  }
  EXPECT_EQ(ErrorKindStatusCode(EncodeError(m, 0).kind), absl::StatusCode::kFailedPrecondition);

  // Nested, with the element index in the path: LastFetchedEpoch is v12+.
  FetchRequest f;
  f.topics.emplace_back().partitions.resize(2);
  f.topics[0].partitions[1].last_fetched_epoch = 5;
  EXPECT_EQ(EncodeError(f, 11).kind, ErrorKind::kNonDefaultField);
  EXPECT_EQ(EncodeError(f, 11).path, "FetchRequest.Topics[0].Partitions[1].LastFetchedEpoch");
  EXPECT_TRUE(EncodeError(f, 12).ok());

  // A tagged field (ReplicaState, tag 1, v15+, not ignorable) present before v15.
  FetchRequest rs;
  rs.replica_id = -1;
  rs.replica_state.emplace();
  EXPECT_EQ(EncodeError(rs, 14).path, "FetchRequest.ReplicaState");
  EXPECT_EQ(EncodeError(rs, 14).kind, ErrorKind::kNonDefaultField);
}

TEST(HostileEncode, IgnorableFieldsAreDroppedSilently) {
  MetadataRequest m;
  auto& topic = m.topics->emplace_back();
  topic.name = "t";
  topic.topic_id.bytes[0] = 1;  // TopicId: v10+, ignorable
  MetadataRequest without = m;
  without.topics->at(0).topic_id = Uuid{};
  for (int16_t v = 0; v < 10; ++v) {
    auto a = EncodeMessage(m, v), b = EncodeMessage(without, v);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(*a, *b) << v;
  }
  FetchRequest f;  // ClusterId: tag 0, v12+, ignorable
  f.cluster_id.emplace("c");
  EXPECT_EQ(*EncodeMessage(f, 11), *EncodeMessage(FetchRequest{}, 11));
}

TEST(HostileEncode, NullWhereNotNullable) {
  MetadataRequest m;
  m.topics.reset();  // nullable from v1
  ExpectError(EncodeError(m, 0), ErrorKind::kNullNotAllowed, 0, "MetadataRequest.Topics");
  EXPECT_TRUE(EncodeError(m, 1).ok());
  MetadataRequest name;
  name.topics->emplace_back().name.reset();  // nullable from v10
  for (int16_t v = 0; v <= 13; ++v) {
    const Error e = EncodeError(name, v);
    EXPECT_EQ(e.kind, v < 10 ? ErrorKind::kNullNotAllowed : ErrorKind::kOk) << v;
    if (v < 10) {
      EXPECT_EQ(e.path, "MetadataRequest.Topics[0].Name");
    }
  }
  EXPECT_EQ(ErrorKindStatusCode(ErrorKind::kNullNotAllowed), absl::StatusCode::kFailedPrecondition);
}

TEST(HostileEncode, StringsLongerThan32767Bytes) {
  for (int16_t v : {1, 9, 13}) {  // classic and compact
    MetadataRequest m;
    m.topics->emplace_back().name = std::string(32767, 'x');
    EXPECT_TRUE(EncodeError(m, v).ok()) << v;
    m.topics->at(0).name = std::string(32768, 'x');
    const Error e = EncodeError(m, v);
    EXPECT_EQ(e.kind, ErrorKind::kStringTooLong) << v;
    EXPECT_EQ(e.path, "MetadataRequest.Topics[0].Name");
  }
  // Inside a tagged field (encoded on its own to learn its size): the full path.
  ApiVersionsResponse a;
  a.supported_features.emplace().emplace_back().name = std::string(32768, 'x');
  const Error tagged = EncodeError(a, 3);
  EXPECT_EQ(tagged.kind, ErrorKind::kStringTooLong);
  EXPECT_EQ(tagged.path, "ApiVersionsResponse.SupportedFeatures[0].Name");
  RequestHeader h;  // the header's ClientId too
  h.request_api_key = 18;
  h.request_api_version = 3;
  h.client_id = std::string(40000, 'c');
  const Error e = ErrorOf(EncodeRequestFrame(h, AnyMessage(*FindApi(18)->request)).status());
  EXPECT_EQ(e.kind, ErrorKind::kStringTooLong);
  EXPECT_EQ(e.path, "RequestHeader.ClientId");
}

TEST(HostileEncode, UnknownTagsAscendingAndUnlikeEveryKnownTag) {
  // FetchRequest: ClusterId is tag 0 from v12, ReplicaState tag 1 from v15.
  auto with_unknown = [](std::initializer_list<uint32_t> tags) {
    FetchRequest f;
    for (uint32_t t : tags) f.unknown_tagged_fields.push_back({t, "x"});
    return f;
  };
  auto expect = [](const Error& e, ErrorKind kind) {
    EXPECT_EQ(e.kind, kind) << e.ToString();
    EXPECT_EQ(e.path, "FetchRequest.tagged_fields") << e.ToString();
  };
  expect(EncodeError(with_unknown({3, 2}), 12), ErrorKind::kTagOutOfOrder);
  expect(EncodeError(with_unknown({3, 3}), 12), ErrorKind::kTagDuplicate);
  // Tag 1 is unknown at v12-14 (kept and read back as unknown), ReplicaState's from v15:
  // refused there whether ReplicaState is present or not, since a decoder would read it
  // as that field.
  for (int16_t v = 12; v <= 17; ++v) {
    const FetchRequest one = with_unknown({1});
    const Error e = EncodeError(one, v);
    if (v < 15) {
      ASSERT_TRUE(e.ok()) << v << ": " << e.ToString();
      auto back = DecodeMessage<FetchRequest>(*EncodeMessage(one, v), v);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->unknown_tagged_fields, one.unknown_tagged_fields);
    } else {
      expect(e, ErrorKind::kTagDuplicate);
      EXPECT_NE(e.detail.find("ReplicaState"), std::string::npos) << e.detail;
    }
  }
  expect(EncodeError(with_unknown({0}), 12), ErrorKind::kTagDuplicate);
  FetchRequest both = with_unknown({0});
  both.cluster_id.emplace("c");
  EXPECT_EQ(EncodeError(both, 12).kind, ErrorKind::kTagDuplicate);
  // Not flexible: no unknown tags at all.
  EXPECT_EQ(EncodeError(with_unknown({7}), 11).kind, ErrorKind::kNonDefaultField);
}

TEST(HostileEncode, TaggedFieldsWrittenOnlyWhenPresentEvenIfDefault) {
  FetchRequest f;
  const Bytes absent = *EncodeMessage(f, 12);
  EXPECT_EQ(absent.back(), 0x00);  // no tags
  f.cluster_id.emplace(std::nullopt);  // present, holding the default (null)
  const Bytes present = *EncodeMessage(f, 12);
  EXPECT_EQ(Bytes(present.end() - 4, present.end()), Hex("01 00 01 00"));
  auto back = DecodeMessage<FetchRequest>(present, 12);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->cluster_id.has_value());
  EXPECT_EQ(*EncodeMessage(*back, 12), present);

  ApiVersionsResponse a;
  a.zk_migration_ready.emplace(false);  // tag 3, default false
  const Bytes bytes = *EncodeMessage(a, 3);
  EXPECT_EQ(Bytes(bytes.end() - 4, bytes.end()), Hex("01 03 01 00"));
  auto a2 = DecodeMessage<ApiVersionsResponse>(bytes, 3);
  ASSERT_TRUE(a2.ok()) << a2.status();
  EXPECT_EQ(*a2, a);
  EXPECT_EQ(*EncodeMessage(*a2, 3), bytes);
}

TEST(HostileEncode, EveryMessageFilledAtItsNewestVersionEncodesAtOlderOnesOrSaysWhy) {
  size_t encoded = 0, refused = 0;
  for (const ApiInfo& api : AllApis()) {
    for (Direction d : {kRequest, kResponse}) {
      const VersionRange valid = api.ops(d).spec->valid;
      const AnyMessage m = Rich({&api, d, valid.hi}, 0x646f776e);
      for (int16_t v = valid.lo; v < valid.hi; ++v) {
        const Case c{&api, d, v};
        SCOPED_TRACE(c.Name());
        Writer w;
        c.ops().encode(w, v, m.raw());
        if (!w.ok()) {
          ++refused;
          EXPECT_TRUE(w.error().kind == ErrorKind::kNonDefaultField ||
                      w.error().kind == ErrorKind::kNullNotAllowed)
              << w.error().ToString();
          EXPECT_TRUE(absl::StartsWith(w.error().path, absl::StrCat(api.ops(d).spec->name, ".")))
              << w.error().ToString();
          continue;
        }
        ++encoded;  // what was dropped was ignorable; the bytes decode and re-encode
        const Bytes bytes = w.Release();
        AnyMessage back(c.ops());
        Reader r(bytes);
        c.ops().decode(r, v, back.raw(), RecordsDecode{});
        ASSERT_TRUE(r.ok() && r.AtEnd()) << r.error().ToString();
        Writer again;
        c.ops().encode(again, v, back.raw());
        EXPECT_EQ(again.Release(), bytes);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(encoded, 50u);
  EXPECT_GT(refused, 50u);
}

// ---- 10. Quirks: accepted at the message level, re-encoded canonically.

TEST(HostileQuirks, EachQuirkAcceptsWhatStrictRejectsAndReencodesCanonically) {
  struct Probe {
    const char* name;
    Quirk quirk;
    ErrorKind strict;
    // Whether the probe applies at `at`; sets the hostile bytes replacing `width` bytes
    // there, and the canonical bytes the decoded value is written back as.
    std::function<bool(const Bytes& f, size_t at, size_t* width, Bytes* hostile, Bytes* canon)>
        apply;
  };
  const std::vector<Probe> probes = {
      {"non-canonical varint", kQuirkNonCanonicalVarint, ErrorKind::kVarintNonCanonical,
       [](const Bytes& f, size_t at, size_t* w, Bytes* h, Bytes* canon) {
         if (f[at] >= 0x80) return false;
         *w = 1, *h = {uint8_t(f[at] | 0x80), 0x00}, *canon = {f[at]};
         return true;
       }},
      {"varint extra bits", kQuirkVarintExtraBits, ErrorKind::kVarintOverflow,
       [](const Bytes& f, size_t at, size_t* w, Bytes* h, Bytes* canon) {
         if (f[at] >= 0x80) return false;  // bit 32 set in the 5th byte
         *w = 1, *h = {uint8_t(f[at] | 0x80), 0x80, 0x80, 0x80, 0x10}, *canon = {f[at]};
         return true;
       }},
      {"any non-zero bool", kQuirkAnyNonZeroBool, ErrorKind::kInvalidBool,
       [](const Bytes& f, size_t at, size_t* w, Bytes* h, Bytes* canon) {
         if (f[at] > 1) return false;
         *w = 1, *h = {0x80}, *canon = {0x01};
         return true;
       }},
      {"any struct marker", kQuirkAnyStructMarker, ErrorKind::kInvalidValue,
       [](const Bytes& f, size_t at, size_t* w, Bytes* h, Bytes* canon) {
         if (f[at] != 1) return false;
         *w = 1, *h = {0x05}, *canon = {0x01};
         return true;
       }},
  };
  std::map<std::string, size_t> found;
  ForEachCase([&](const Case& c) {
    const Bytes& frame = MinimalOf(c).frame;
    for (size_t at = 4; at < frame.size(); ++at) {
      for (const Probe& p : probes) {
        size_t width;
        Bytes hostile, canon;
        if (!p.apply(frame, at, &width, &hostile, &canon)) continue;
        const Bytes input = Splice(frame, at, width, hostile);
        const Error strict = DecodeFrame(c, input).error;
        if (strict.kind != p.strict || strict.offset != at) continue;  // not that kind of value
        SCOPED_TRACE(absl::StrFormat("%s at byte %d (%s)", p.name, at, strict.path));
        ++found[p.name];
        for (uint32_t quirks : {uint32_t{p.quirk}, kQuirksJava}) {
          const Decoded d = DecodeFrame(c, input, quirks);
          ASSERT_TRUE(d.ok()) << d.error.ToString();
          EXPECT_EQ(d.reencoded, Splice(frame, at, width, canon));
          EXPECT_NE(d.reencoded, input);
        }
      }
    }
  });
  for (const char* name :
       {"non-canonical varint", "varint extra bits", "any non-zero bool", "any struct marker"}) {
    EXPECT_GT(found[name], 5u) << name;
    std::printf("[ quirks   ] %s: %zu positions\n", name, found[name]);
  }
}

// ---- 10. Strings are UTF-8 (issue 13; protocol guide "Protocol Primitive Types",
// RFC 3629).

// The two inputs of the issue: DescribeDelegationToken v3 request, Owners[0].PrincipalType
// (compact string) = ff, and c0 af (overlong '/').
TEST(HostileUtf8, IssueInputs) {
  const struct {
    const char* hex;
    const char* detail;
  } inputs[] = {
      // The detail ends with the string's length, where it was read and where it ends.
      {"0000001100290003000000000000000202ff010000",
       "byte 0xff cannot start a sequence; string of length 1 read at byte 16 (compact, "
       "uvarint 2), ends at byte 18"},
      {"0000001200290003000000000000000203c0af010000",
       "overlong 2-byte encoding (c0 af); string of length 2 read at byte 16 (compact, "
       "uvarint 3), ends at byte 19"},
  };
  for (const auto& in : inputs) {
    const Bytes frame = Hex(in.hex);
    const auto strict = DecodeRequestFrame(frame);
    ASSERT_FALSE(strict.ok());
    EXPECT_EQ(strict.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(strict.status().message(),
              absl::StrCat("invalid_utf8 at byte 17 in "
                           "DescribeDelegationTokenRequest.Owners[0].PrincipalType (",
                           in.detail, ")"));
    for (uint32_t quirks : {uint32_t{kQuirkInvalidUtf8}, kQuirksJava}) {
      FrameOptions o;
      o.quirks = quirks;
      const auto lenient = DecodeRequestFrame(frame, o);
      ASSERT_TRUE(lenient.ok()) << lenient.status();
      // Re-encoding: refused strictly, byte-exact with the quirk.
      const auto refused = EncodeRequestFrame(lenient->header, lenient->body);
      ASSERT_FALSE(refused.ok());
      EXPECT_EQ(ErrorOf(refused.status()).kind, ErrorKind::kInvalidUtf8);
      EXPECT_EQ(ErrorOf(refused.status()).path,
                "DescribeDelegationTokenRequest.Owners[0].PrincipalType");
      const auto again = EncodeRequestFrame(lenient->header, lenient->body, EncodeOptions{quirks});
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(*again, frame);
    }
  }
}

// One hand-built body per string kind, with the absolute offset of the bad byte.
TEST(HostileUtf8, EveryStringKindHasItsOffsetAndPath) {
  const EncodeOptions keep{kQuirkInvalidUtf8};
  auto body_error = [&](const auto& m, int16_t v) {
    using M = std::decay_t<decltype(m)>;
    auto body = EncodeMessage(m, v, keep);
    EXPECT_TRUE(body.ok()) << body.status();
    const Error e = ErrorOf(DecodeMessage<M>(*body, v).status());
    // Accepted and byte-exact under the quirk.
    auto lenient = DecodeMessage<M>(*body, v, DecodeOptions{kQuirkInvalidUtf8});
    EXPECT_TRUE(lenient.ok()) << lenient.status();
    if (lenient.ok()) {
      EXPECT_TRUE(*lenient == m);
      EXPECT_EQ(*EncodeMessage(*lenient, v, keep), *body);
    }
    return e;
  };
  {  // STRING (classic): FindCoordinator v0 Key = "a\xffb": int16 length at 0.
    FindCoordinatorRequest m;
    m.key = "a\xff" "b";
    ExpectError(body_error(m, 0), ErrorKind::kInvalidUtf8, 3, "FindCoordinatorRequest.Key");
  }
  {  // NULLABLE_STRING (classic): JoinGroup v5 GroupInstanceId after 2+4+4+2 bytes.
    JoinGroupRequest m;
    m.group_instance_id = "\xed\xa0\x80";
    const Error e = body_error(m, 5);
    ExpectError(e, ErrorKind::kInvalidUtf8, 14, "JoinGroupRequest.GroupInstanceId");
    EXPECT_EQ(e.detail, "surrogate U+D800; string of length 3 read at byte 12, ends at byte 17");
  }
  {  // COMPACT_STRING: JoinGroup v6 GroupId "ab\xe2\x82" (truncated), prefix at 0.
    JoinGroupRequest m;
    m.group_id = "ab\xe2\x82";
    const Error e = body_error(m, 6);
    ExpectError(e, ErrorKind::kInvalidUtf8, 3, "JoinGroupRequest.GroupId");
    EXPECT_EQ(e.detail,
              "sequence truncated: lead byte 0xe2 needs 3 bytes, the string ends after 2; "
              "string of length 4 read at byte 0 (compact, uvarint 5), ends at byte 5");
  }
  {  // COMPACT_NULLABLE_STRING: JoinGroup v6 GroupInstanceId after 1+4+4+1 bytes.
    JoinGroupRequest m;
    m.group_instance_id = "\xf4\x90\x80\x80";
    const Error e = body_error(m, 6);
    ExpectError(e, ErrorKind::kInvalidUtf8, 11, "JoinGroupRequest.GroupInstanceId");
    EXPECT_EQ(e.detail,
              "above U+10FFFF (f4 90 80 80); string of length 4 read at byte 10 (compact, "
              "uvarint 5), ends at byte 15");
  }
  {  // Array element: DescribeGroups v0 Groups = {"ok", "x\x80"}: 4 + (2+2) + 2 + 1.
    DescribeGroupsRequest m;
    m.groups = {"ok", "x\x80"};
    const Error e = body_error(m, 0);
    ExpectError(e, ErrorKind::kInvalidUtf8, 11, "DescribeGroupsRequest.Groups[1]");
    EXPECT_EQ(e.detail,
              "continuation byte 0x80 without a lead byte; string of length 2 read at byte 8, "
              "ends at byte 12");
  }
  {  // Compact array element: DescribeGroups v5 Groups = {"\xc1\xbf"}: 1 + 1.
    DescribeGroupsRequest m;
    m.groups = {"\xc1\xbf"};
    ExpectError(body_error(m, 5), ErrorKind::kInvalidUtf8, 2, "DescribeGroupsRequest.Groups[0]");
  }
}

TEST(HostileUtf8, TaggedStringField) {
  // FetchRequest v12, ClusterId (tag 0, compact nullable string) = ff: 01 00 02 02 ff in
  // place of the top-level tag count at 87; the string's byte at 91.
  const Case c = CaseOf("Fetch", kRequest, 12);
  const Bytes input = Splice(MinimalOf(c).frame, 87, 1, Hex("01 00 02 02 ff"));
  ExpectError(DecodeFrame(c, input).error, ErrorKind::kInvalidUtf8, 91, "FetchRequest.ClusterId");
  const Decoded d = DecodeFrame(c, input, kQuirkInvalidUtf8);
  ASSERT_TRUE(d.ok()) << d.error.ToString();
  EXPECT_EQ(d.reencoded, input);
}

TEST(HostileUtf8, RequestHeaderClientId) {
  // FindCoordinator v0: header v1, ClientId int16 length at 12, "k\xc0\x80" from 14.
  const Case c = CaseOf("FindCoordinator", kRequest, 0);
  const Bytes frame = MinimalOf(c).frame;
  ASSERT_EQ(frame[13], 1);  // "k"
  const Bytes input = Splice(frame, 12, 3, Hex("00 03 6b c0 80"));
  const Error e = DecodeFrame(c, input).error;
  ExpectError(e, ErrorKind::kInvalidUtf8, 15, "RequestHeader.ClientId");
  EXPECT_EQ(e.detail,
            "overlong 2-byte encoding (c0 80); string of length 3 read at byte 12, ends at "
            "byte 17");
  const Decoded d = DecodeFrame(c, input, kQuirksJava);
  ASSERT_TRUE(d.ok()) << d.error.ToString();
  EXPECT_EQ(d.reencoded, input);
  // Flexible request (header v2): the client id stays a classic nullable string.
  const Case f = CaseOf("DescribeDelegationToken", kRequest, 3);
  const Bytes flex = Splice(MinimalOf(f).frame, 12, 3, Hex("00 02 ff 6b"));
  ExpectError(DecodeFrame(f, flex).error, ErrorKind::kInvalidUtf8, 14, "RequestHeader.ClientId");
}

// Every string of every message at every version (nullable or not, classic or compact,
// in arrays and in headers): a bad sequence in place of its value fails kInvalidUtf8 at
// the bad byte with the field's path, and decodes byte-exactly under the quirk.
TEST(HostileUtf8, EveryStringOfEveryMessage) {
  const struct {
    const char* value;
    size_t bad;  // index of the first bad byte
  } kBad[] = {{"a\xff" "b", 1}, {"\xc0\xaf", 0}, {"ab\xed\xa0\x80", 2},
              {"\xe2\x82", 0},  {"x\x80", 1},    {"\xf4\x90\x80\x80", 0}};
  size_t n = 0, classic = 0, compact = 0;
  ForEachCase([&](const Case& c) {
    const Bytes& frame = MinimalOf(c).frame;
    for (const Slot& slot : MinimalOf(c).slots) {
      if (slot.kind != SlotKind::kString) continue;
      const auto& bad = kBad[n % std::size(kBad)];
      const std::string value = bad.value;
      const size_t old_len =
          slot.compact ? frame[slot.at] - 1u : (size_t{frame[slot.at]} << 8 | frame[slot.at + 1]);
      Bytes with = slot.compact ? Uvarint(static_cast<uint32_t>(value.size() + 1))
                                : Int16Bytes(static_cast<int16_t>(value.size()));
      with.insert(with.end(), value.begin(), value.end());
      const Bytes input = Splice(frame, slot.at, slot.width() + old_len, with);
      SCOPED_TRACE(slot.Describe());
      ExpectError(DecodeFrame(c, input).error, ErrorKind::kInvalidUtf8,
                  slot.at + slot.width() + bad.bad, slot.path);
      const Decoded d = DecodeFrame(c, input, kQuirkInvalidUtf8);
      ASSERT_TRUE(d.ok()) << d.error.ToString();
      EXPECT_EQ(d.reencoded, input);
      ++n;
      ++(slot.compact ? compact : classic);
    }
  });
  EXPECT_GT(classic, 500u);
  EXPECT_GT(compact, 500u);
  std::printf("[ utf-8    ] %zu string slots (%zu classic, %zu compact)\n", n, classic, compact);
}

TEST(HostileUtf8, BytesFieldsStayBytes) {
  // SaslAuthenticate v0 AuthBytes (BYTES) = ff c0: not a string, decodes strictly.
  const Case c = CaseOf("SaslAuthenticate", kRequest, 0);
  const Bytes frame = MinimalOf(c).frame;
  const Bytes tail(frame.end() - 4, frame.end());
  ASSERT_EQ(tail, Hex("00 00 00 00"));  // the empty AuthBytes ends the frame
  const Bytes input = Splice(frame, frame.size() - 4, 4, Hex("00 00 00 02 ff c0"));
  const Decoded d = DecodeFrame(c, input);
  ASSERT_TRUE(d.ok()) << d.error.ToString();
  EXPECT_EQ(d.reencoded, input);
}

TEST(HostileEncode, StringsThatAreNotUtf8) {
  FindCoordinatorRequest m;
  m.key = "ok\xff";
  const Error e = EncodeError(m, 0);
  EXPECT_EQ(e.kind, ErrorKind::kInvalidUtf8);
  EXPECT_EQ(e.path, "FindCoordinatorRequest.Key");
  EXPECT_EQ(e.detail, "string of 3 bytes, byte 2 of it: byte 0xff cannot start a sequence");
  EXPECT_TRUE(EncodeMessage(m, 0, EncodeOptions{kQuirkInvalidUtf8}).ok());
  // Tagged (encoded through a scratch writer): FetchRequest v12 ClusterId.
  FetchRequest f;
  f.cluster_id.emplace(std::string("\xc0\xaf"));
  EXPECT_EQ(EncodeError(f, 12).kind, ErrorKind::kInvalidUtf8);
  EXPECT_EQ(EncodeError(f, 12).path, "FetchRequest.ClusterId");
  EXPECT_TRUE(EncodeMessage(f, 12, EncodeOptions{kQuirkInvalidUtf8}).ok());
  // The header's client id.
  auto frame = EncodeRequestFrame(0, 1, std::string("\xff"), m);
  EXPECT_FALSE(frame.ok());
  // Valid multi-byte text encodes strictly.
  m.key = "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_TRUE(EncodeError(m, 0).ok());
}

}  // namespace
}  // namespace kwire
