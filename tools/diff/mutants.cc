// Mutants of `kwire diff` (mutants.h).
#include "tools/diff/mutants.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "codec/harness/explain.h"
#include "codec/wire/port.h"
#include "fuzz/frame_mutator.h"

namespace kwire::diff {
namespace {

using Rng = std::mt19937_64;

// A mixer of (campaign seed, index): each mutant's random source is its own.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

size_t Below(Rng& r, size_t n) { return n == 0 ? 0 : static_cast<size_t>(r() % n); }
bool Chance(Rng& r, int percent) { return static_cast<int>(r() % 100) < percent; }

// ---- Byte-level changes.

// The random source of ByteMutator below, set before each structure step (the mutator
// takes a plain function pointer).
thread_local Rng t_byte_rng;

constexpr uint8_t kInterestingBytes[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff};

// One byte-level change of data[0, size) in a buffer of max_size; returns the new size.
size_t ByteChange(Rng& r, uint8_t* data, size_t size, size_t max_size, std::string* what) {
  const size_t op = size == 0 ? 2 : Below(r, 6);
  auto say = [&](std::string s) {
    if (what) *what = std::move(s);
  };
  switch (op) {
    case 0: {
      const size_t at = Below(r, size);
      data[at] ^= static_cast<uint8_t>(1u << Below(r, 8));
      say(absl::StrCat("flip@", at));
      return size;
    }
    case 1: {
      const size_t at = Below(r, size);
      data[at] = kInterestingBytes[Below(r, std::size(kInterestingBytes))];
      say(absl::StrCat("set@", at));
      return size;
    }
    case 2: {  // insert 1-8 bytes
      const size_t n = std::min<size_t>(1 + Below(r, 8), max_size - size);
      const size_t at = Below(r, size + 1);
      std::copy_backward(data + at, data + size, data + size + n);
      for (size_t i = 0; i < n; ++i) {
        data[at + i] = Chance(r, 50) ? kInterestingBytes[Below(r, std::size(kInterestingBytes))]
                                     : static_cast<uint8_t>(r());
      }
      say(absl::StrCat("insert", n, "@", at));
      return size + n;
    }
    case 3: {  // delete 1-8 bytes
      const size_t n = std::min<size_t>(1 + Below(r, 8), size);
      const size_t at = Below(r, size - n + 1);
      std::copy(data + at + n, data + size, data + at);
      say(absl::StrCat("delete", n, "@", at));
      return size - n;
    }
    case 4: {  // duplicate a chunk in place
      const size_t n = std::min<size_t>(1 + Below(r, 16), std::min(size, max_size - size));
      if (n == 0) return size;
      const size_t from = Below(r, size - n + 1);
      const size_t at = Below(r, size + 1);
      std::vector<uint8_t> chunk(data + from, data + from + n);
      std::copy_backward(data + at, data + size, data + size + n);
      std::copy(chunk.begin(), chunk.end(), data + at);
      say(absl::StrCat("duplicate", n, "@", at));
      return size + n;
    }
    default: {  // cut the end
      const size_t n = std::min<size_t>(1 + Below(r, 8), size);
      say(absl::StrCat("cut", n));
      return size - n;
    }
  }
}

size_t ByteMutator(uint8_t* data, size_t size, size_t max_size) {
  return ByteChange(t_byte_rng, data, size, max_size, nullptr);
}

// ---- Lengths and counts, found in the frame's explanation.

enum class Enc { kInt8, kInt16, kInt32, kUvarint };

struct Site {
  size_t offset;
  size_t size;
  Enc enc;
  std::string path;
};

size_t UvarintLength(const std::vector<uint8_t>& b, size_t at) {
  size_t n = 0;
  while (at + n < b.size() && n < 10) {
    if ((b[at + n++] & 0x80) == 0) break;
  }
  return n;
}

std::vector<Site> Sites(const std::vector<uint8_t>& frame, bool response, int16_t key, int16_t v) {
  std::vector<Site> out;
  if (frame.size() >= 4) out.push_back({0, 4, Enc::kInt32, "Frame.size"});
  PrintOptions po;
  po.decode.quirks = kQuirksJava;  // read as far as anything does
  po.records_mode = RecordsMode::kOpaque;
  po.max_array_elements = 64;
  po.max_nodes = 4000;
  const FrameExplanation ex =
      response ? ExplainResponseFrame(frame, key, v, po) : ExplainRequestFrame(frame, po);
  for (const PrintNode& n : ex.nodes) {
    if (n.offset >= frame.size() || n.size == 0) continue;
    using K = PrintNode::Kind;
    switch (n.kind) {
      case K::kLength:
        out.push_back({n.offset, n.type == "int32" ? 4u : UvarintLength(frame, n.offset),
                       n.type == "int32" ? Enc::kInt32 : Enc::kUvarint, n.path});
        break;
      case K::kTaggedCount:
      case K::kTagHeader:
        out.push_back({n.offset, UvarintLength(frame, n.offset), Enc::kUvarint, n.path});
        break;
      case K::kTaggedFields:
        if (n.size == 1) out.push_back({n.offset, 1, Enc::kUvarint, n.path});
        break;
      case K::kPresence:
        out.push_back({n.offset, 1, Enc::kInt8, n.path});
        break;
      case K::kField:
        if (n.detail.rfind("(compact", 0) == 0) {
          out.push_back({n.offset, UvarintLength(frame, n.offset), Enc::kUvarint, n.path + ".length"});
        } else if (n.detail.rfind("(int16 len=", 0) == 0) {
          out.push_back({n.offset, 2, Enc::kInt16, n.path + ".length"});
        } else if (n.detail.rfind("(int32 len=", 0) == 0) {
          out.push_back({n.offset, 4, Enc::kInt32, n.path + ".length"});
        }
        break;
      default:
        break;
    }
  }
  std::erase_if(out, [&](const Site& s) { return s.size == 0 || s.offset + s.size > frame.size(); });
  return out;
}

std::vector<uint8_t> Uvarint(uint64_t v) {
  std::vector<uint8_t> out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    out.push_back(b);
  } while (v != 0);
  return out;
}

// A new encoding for the site, and a description of it.
std::vector<uint8_t> NewValue(Rng& r, const std::vector<uint8_t>& frame, const Site& s, std::string& what) {
  int64_t cur = 0;
  for (size_t i = 0; i < s.size && s.enc != Enc::kUvarint; ++i) cur = cur << 8 | frame[s.offset + i];
  if (s.enc == Enc::kInt8) cur = static_cast<int8_t>(cur);
  if (s.enc == Enc::kInt16) cur = static_cast<int16_t>(cur);
  if (s.enc == Enc::kInt32) cur = static_cast<int32_t>(cur);
  if (s.enc == Enc::kUvarint) {
    for (size_t i = 0; i < s.size; ++i) cur |= static_cast<int64_t>(frame[s.offset + i] & 0x7f) << (7 * i);
  }
  if (s.enc == Enc::kUvarint) {
    switch (Below(r, 5)) {
      case 0: {  // over-long: the same value with a zero continuation group
        std::vector<uint8_t> b = Uvarint(static_cast<uint64_t>(cur));
        b.back() |= 0x80;
        b.push_back(0);
        what = absl::StrCat("=", cur, " non-canonical");
        return b;
      }
      case 1:
        what = "=too-long";
        return {0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
      case 2:
        what = "=overflow";
        return {0xff, 0xff, 0xff, 0xff, 0x7f};
      default: {
        static constexpr int64_t kValues[] = {0, 1, 2, 0x7f, 0x80, 0x3fff, 0x4000, 0x7fffffff,
                                              0x80000000, 0xffffffff};
        int64_t v = Chance(r, 50) ? kValues[Below(r, std::size(kValues))]
                                  : cur + (Chance(r, 50) ? 1 : -1) * static_cast<int64_t>(1 + Below(r, 2));
        if (v < 0) v = 0;
        what = absl::StrCat("=", v);
        return Uvarint(static_cast<uint64_t>(v));
      }
    }
  }
  static constexpr int64_t kValues[] = {-2, -1, 0, 1, 2, 0x7f, 0x80, 0x7fff, -0x8000, 0x7fffffff,
                                        INT32_MIN, 0xffff};
  int64_t v = Chance(r, 50) ? kValues[Below(r, std::size(kValues))]
                            : cur + (Chance(r, 50) ? 1 : -1) * static_cast<int64_t>(1 + Below(r, 2));
  std::vector<uint8_t> b(s.size);
  for (size_t i = 0; i < s.size; ++i) b[i] = static_cast<uint8_t>(v >> (8 * (s.size - 1 - i)));
  // What the bytes now say, in the site's type.
  int64_t now = 0;
  for (uint8_t x : b) now = now << 8 | x;
  if (s.enc == Enc::kInt8) now = static_cast<int8_t>(now);
  if (s.enc == Enc::kInt16) now = static_cast<int16_t>(now);
  if (s.enc == Enc::kInt32) now = static_cast<int32_t>(now);
  what = absl::StrCat("=", now);
  return b;
}

// Changes one length or count; false when the frame has none.
bool LengthStep(Rng& r, Mutant& m) {
  const std::vector<Site> sites = Sites(m.frame, m.response, m.api_key, m.version);
  if (sites.empty()) return false;
  const Site& s = sites[Below(r, sites.size())];
  std::string what;
  const std::vector<uint8_t> b = NewValue(r, m.frame, s, what);
  m.frame.erase(m.frame.begin() + static_cast<ptrdiff_t>(s.offset),
                m.frame.begin() + static_cast<ptrdiff_t>(s.offset + s.size));
  m.frame.insert(m.frame.begin() + static_cast<ptrdiff_t>(s.offset), b.begin(), b.end());
  std::string step = absl::StrCat("length ", s.path, what);
  if (s.offset != 0 && Chance(r, 85)) FixSizePrefix(m.frame);
  m.steps.push_back(std::move(step));
  return true;
}

void BytesStep(Rng& r, Mutant& m) {
  std::string what;
  const size_t size = m.frame.size();
  if (Chance(r, 15)) {  // trailing bytes
    const size_t n = 1 + Below(r, 8);
    for (size_t i = 0; i < n; ++i) m.frame.push_back(Chance(r, 50) ? 0 : static_cast<uint8_t>(r()));
    what = absl::StrCat("append", n);
  } else {
    m.frame.resize(size + 32);
    m.frame.resize(ByteChange(r, m.frame.data(), size, m.frame.size(), &what));
  }
  if (Chance(r, 80)) FixSizePrefix(m.frame);
  m.steps.push_back("bytes " + what);
}

void StructureStep(Rng& r, Mutant& m) {
  // Sized first, then filled (an insert into an empty vector draws a false
  // -Wstringop-overread from g++ 12 at -O2).
  const size_t head = m.response ? 4 : 0;
  std::vector<uint8_t> buf(head + m.frame.size());
  if (m.response) {
    buf[0] = static_cast<uint8_t>(m.api_key >> 8);
    buf[1] = static_cast<uint8_t>(m.api_key);
    buf[2] = static_cast<uint8_t>(m.version >> 8);
    buf[3] = static_cast<uint8_t>(m.version);
  }
  std::copy(m.frame.begin(), m.frame.end(), buf.begin() + static_cast<ptrdiff_t>(head));
  const size_t size = buf.size();
  const size_t max_size = std::min<size_t>(std::max<size_t>(4096, size * 2), size_t{1} << 20);
  buf.resize(std::max(max_size, size));
  t_byte_rng.seed(r());
  const size_t n = fuzz::MutateFrameInput(
      m.response ? fuzz::InputKind::kResponseInput : fuzz::InputKind::kRequestFrame, buf.data(), size,
      max_size, static_cast<unsigned>(r()), &ByteMutator);
  buf.resize(n);
  if (m.response) {
    if (n < fuzz::kResponsePrefixSize) return;  // nothing left to send: keep the frame as it was
    m.api_key = static_cast<int16_t>(buf[0] << 8 | buf[1]);
    m.version = static_cast<int16_t>(buf[2] << 8 | buf[3]);
    m.frame.assign(buf.begin() + fuzz::kResponsePrefixSize, buf.end());
  } else {
    m.frame = std::move(buf);
  }
  m.steps.push_back("structure");
}

}  // namespace

void FixSizePrefix(std::vector<uint8_t>& frame, int64_t delta) {
  if (frame.size() < 4) return;
  const auto v = static_cast<uint32_t>(static_cast<int64_t>(frame.size()) - 4 + delta);
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

int64_t SizePrefixDelta(const std::vector<uint8_t>& frame) {
  if (frame.size() < 4) return 0;
  const auto v = kwire::LoadBigEndian<int32_t>(frame.data());
  return static_cast<int64_t>(v) - (static_cast<int64_t>(frame.size()) - 4);
}

void TakeRequestIds(Mutant& m) {
  if (m.response || m.frame.size() < 8) return;
  m.api_key = static_cast<int16_t>(m.frame[4] << 8 | m.frame[5]);
  m.version = static_cast<int16_t>(m.frame[6] << 8 | m.frame[7]);
}

Mutant MakeMutant(const std::vector<Seed>& seeds, uint64_t campaign_seed, uint64_t index) {
  Rng r(Mix(Mix(campaign_seed) ^ index));
  Mutant m;
  m.index = index;
  m.seed = Below(r, seeds.size());
  const Seed& s = seeds[m.seed];
  m.response = s.response;
  m.api_key = s.api_key;
  m.version = s.version;
  m.frame = s.frame;
  const size_t steps = Chance(r, 60) ? 1 : 2 + Below(r, 3);
  for (size_t i = 0; i < steps; ++i) {
    const size_t pick = Below(r, 100);
    if (pick < 55) {
      StructureStep(r, m);
    } else if (pick < 78 && LengthStep(r, m)) {
      // done
    } else {
      BytesStep(r, m);
    }
    TakeRequestIds(m);
  }
  return m;
}

}  // namespace kwire::diff
