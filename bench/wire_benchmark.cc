// Wire hot paths: uvarint / varint / varlong decode and encode, compact string / bytes
// decode and encode, CRC-32C.
//
// Names: BM_<Op>/<case> is kwire. Reference implementations measured in the same run
// (so that every kwire figure has a same-run ratio) are BM_Ref<Impl>_<Op>/<case>:
//   RefPbCoded      protobuf 3.21 io::CodedInputStream / CodedOutputStream (checked)
//   RefPbUnchecked  protobuf internal::ReadVarint32/64 (parse_context.h): no bounds
//                   check, relies on slop bytes after the buffer
//   RefNaive        a bounds-checked byte-at-a-time loop, inlined
//   RefCopy         kwire's Reader plus a std::string copy (a copying decode)
//   RefMemcpy       memcpy of the same buffer (physical limit)
//   RefByteSum      a plain sum of the same buffer's bytes (physical limit)
// Compare a kwire figure with a reference in one file with
//   bench/compare filters out.json 'BM_DecodeUvarint/' 'BM_RefPbCoded_DecodeUvarint/'
//
// Every benchmark first checks its output (decoded sum, encoded bytes) and reports an
// error instead of a figure when it is wrong, so the ctest smoke run is also a test.
#include <benchmark/benchmark.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/parse_context.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_data.h"
#include "codec/records/crc32c.h"
#include "codec/wire/reader.h"
#include "codec/wire/varint.h"
#include "codec/wire/writer.h"

namespace kwire::bench {
namespace {

namespace pb = google::protobuf;
using pb::internal::WireFormatLite;

/// Values per varint buffer: 262,144 by default, KWIRE_BENCH_VALUES to override (at
/// least 32,768). See bench/README.md: at 32,768 values this machine's branch
/// predictor still memorises a random length pattern.
size_t ValueCount() {
  static const size_t n = [] {
    const char* env = std::getenv("KWIRE_BENCH_VALUES");
    const long v = env != nullptr ? std::atol(env) : 0;
    return v >= 32768 ? static_cast<size_t>(v) : size_t{262144};
  }();
  return n;
}

enum class Kind { kUvarint, kVarint, kVarlong };

/// One distribution encoded, with the values in each type's own domain.
struct VarData {
  Encoded enc;
  std::vector<uint32_t> u32;  ///< uvarint values
  std::vector<int32_t> s32;   ///< varint values (zigzag-decoded)
  std::vector<int64_t> s64;   ///< varlong values (zigzag-decoded)
  uint64_t sum_u32 = 0, sum_s32 = 0, sum_s64 = 0;
};

const VarData& Data(Dist d, bool wide) {
  static std::map<std::pair<int, bool>, std::unique_ptr<VarData>> cache;
  auto& slot = cache[{static_cast<int>(d), wide}];
  if (!slot) {
    slot = std::make_unique<VarData>();
    VarData& v = *slot;
    v.enc = EncodeAll(MakeValues(d, wide, ValueCount()));
    for (uint64_t x : v.enc.values) {
      v.u32.push_back(static_cast<uint32_t>(x));
      v.s32.push_back(ZigZagDecode32(static_cast<uint32_t>(x)));
      v.s64.push_back(ZigZagDecode64(x));
      v.sum_u32 += static_cast<uint32_t>(x);
      v.sum_s32 += static_cast<uint64_t>(static_cast<int64_t>(ZigZagDecode32(static_cast<uint32_t>(x))));
      v.sum_s64 += static_cast<uint64_t>(ZigZagDecode64(x));
    }
  }
  return *slot;
}

uint64_t ExpectedSum(const VarData& v, Kind k) {
  return k == Kind::kUvarint ? v.sum_u32 : k == Kind::kVarint ? v.sum_s32 : v.sum_s64;
}

// Runs `decode_all` (returns the sum of the decoded values, or a wrong sum on failure)
// once to check it, then times it.
template <class F>
void TimeDecode(benchmark::State& st, const VarData& v, Kind k, F&& decode_all) {
  if (decode_all() != ExpectedSum(v, k)) {
    st.SkipWithError("decoded values differ from the input");
    return;
  }
  for (auto _ : st) {
    uint64_t sum = decode_all();
    benchmark::DoNotOptimize(sum);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * v.enc.values.size()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * v.enc.size));
}

// ---- Decode: kwire Reader.
void BM_Decode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  const uint8_t* data = v.enc.bytes.data();
  const size_t size = v.enc.size;
  TimeDecode(st, v, k, [&] {
    Reader r(data, size);
    uint64_t sum = 0;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < n; ++i) sum += r.ReadUvarint();
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < n; ++i) sum += static_cast<uint64_t>(int64_t{r.ReadVarint()});
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < n; ++i) sum += static_cast<uint64_t>(r.ReadVarlong());
        break;
    }
    return r.ok() ? sum : ~sum;
  });
}

// ---- Decode: protobuf CodedInputStream (bounds-checked, 1-byte inline fast path,
// out-of-line fallback).
void BM_RefPbCoded_Decode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  const uint8_t* data = v.enc.bytes.data();
  const int size = static_cast<int>(v.enc.size);
  TimeDecode(st, v, k, [&] {
    pb::io::CodedInputStream in(data, size);
    uint64_t sum = 0;
    bool ok = true;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < n; ++i) {
          uint32_t x;
          ok &= in.ReadVarint32(&x);
          sum += x;
        }
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < n; ++i) {
          uint32_t x;
          ok &= in.ReadVarint32(&x);
          sum += static_cast<uint64_t>(int64_t{WireFormatLite::ZigZagDecode32(x)});
        }
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < n; ++i) {
          uint64_t x;
          ok &= in.ReadVarint64(&x);
          sum += static_cast<uint64_t>(WireFormatLite::ZigZagDecode64(x));
        }
        break;
    }
    return ok ? sum : ~sum;
  });
}

// ---- Decode: protobuf's unchecked parser (reads past the value; needs slop bytes).
void BM_RefPbUnchecked_Decode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  const char* data = reinterpret_cast<const char*>(v.enc.bytes.data());
  TimeDecode(st, v, k, [&] {
    const char* p = data;
    uint64_t sum = 0;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < n; ++i) sum += pb::internal::ReadVarint32(&p);
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < n; ++i)
          sum += static_cast<uint64_t>(int64_t{pb::internal::ReadVarintZigZag32(&p)});
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < n; ++i)
          sum += static_cast<uint64_t>(pb::internal::ReadVarintZigZag64(&p));
        break;
    }
    return sum;
  });
}

// ---- Decode: naive bounds-checked byte loop (no overlong/overflow checks).
template <size_t kMaxBytes>
inline bool NaiveLeb128(const uint8_t*& p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (size_t i = 0; i < kMaxBytes; ++i) {
    if (p == end) return false;
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *out = v;
      return true;
    }
  }
  return false;
}

void BM_RefNaive_Decode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  const uint8_t* data = v.enc.bytes.data();
  const uint8_t* end = data + v.enc.size;
  TimeDecode(st, v, k, [&] {
    const uint8_t* p = data;
    uint64_t sum = 0;
    bool ok = true;
    uint64_t x = 0;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < n; ++i) {
          ok &= NaiveLeb128<5>(p, end, &x);
          sum += static_cast<uint32_t>(x);
        }
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < n; ++i) {
          ok &= NaiveLeb128<5>(p, end, &x);
          sum += static_cast<uint64_t>(int64_t{ZigZagDecode32(static_cast<uint32_t>(x))});
        }
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < n; ++i) {
          ok &= NaiveLeb128<10>(p, end, &x);
          sum += static_cast<uint64_t>(ZigZagDecode64(x));
        }
        break;
    }
    return ok ? sum : ~sum;
  });
}

// ---- Physical limits over the same bytes (items = the values in the buffer).
void BM_RefMemcpy(benchmark::State& st, const uint8_t* data, size_t size, size_t items) {
  std::vector<uint8_t> dst(size + 64);
  for (auto _ : st) {
    std::memcpy(dst.data(), data, size);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * items));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * size));
}

void BM_RefByteSum(benchmark::State& st, const uint8_t* data, size_t size, size_t items) {
  for (auto _ : st) {
    uint64_t sum = 0;
    for (size_t i = 0; i < size; ++i) sum += data[i];
    benchmark::DoNotOptimize(sum);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * items));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * size));
}

// ---- Encode. Output buffers have room for the encoding plus 16 bytes.
// `encode_all(out)` encodes every value to `out` and returns the size.
/// The inputs of one encode pass as locals (count and data pointers). The encode
/// lambdas read them from here rather than through their by-reference captures: an
/// output byte store may alias any captured object, so the compiler would otherwise
/// reload the count and the vectors' data pointers after every value, which measured
/// the capture, not the encoder (kwire's out-of-line lambda paid it, the inlined naive
/// loop did not). Every encoder (kwire, protobuf, naive) uses it.
struct Inputs {
  Inputs(const VarData& v, size_t count)
      : n(count), u32(v.u32.data()), s32(v.s32.data()), s64(v.s64.data()) {}
  const size_t n;
  const uint32_t* const u32;
  const int32_t* const s32;
  const int64_t* const s64;
};

template <class F>
void TimeEncode(benchmark::State& st, const VarData& v, F&& encode_all) {
  std::vector<uint8_t> out(v.enc.size + 64);
  if (encode_all(out.data()) != v.enc.size ||
      std::memcmp(out.data(), v.enc.bytes.data(), v.enc.size) != 0) {
    st.SkipWithError("encoded bytes differ from the reference encoding");
    return;
  }
  for (auto _ : st) {
    size_t n = encode_all(out.data());
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * v.enc.values.size()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * v.enc.size));
}

// kwire: the raw encoders of varint.h (the caller guarantees room, as with protobuf's
// *ToArray functions).
void BM_Encode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  TimeEncode(st, v, [&](uint8_t* out) {
    const Inputs in(v, n);
    uint8_t* p = out;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < in.n; ++i) p += EncodeUvarint(p, in.u32[i]);
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < in.n; ++i) p += EncodeVarint(p, in.s32[i]);
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < in.n; ++i) p += EncodeVarlong(p, in.s64[i]);
        break;
    }
    return static_cast<size_t>(p - out);
  });
}

void BM_RefPbCoded_Encode(benchmark::State& st, Kind k, Dist d) {
  using Out = pb::io::CodedOutputStream;
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  TimeEncode(st, v, [&](uint8_t* out) {
    const Inputs in(v, n);
    uint8_t* p = out;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < in.n; ++i) p = Out::WriteVarint32ToArray(in.u32[i], p);
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < in.n; ++i)
          p = Out::WriteVarint32ToArray(WireFormatLite::ZigZagEncode32(in.s32[i]), p);
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < in.n; ++i)
          p = Out::WriteVarint64ToArray(WireFormatLite::ZigZagEncode64(in.s64[i]), p);
        break;
    }
    return static_cast<size_t>(p - out);
  });
}

// kwire Writer (capacity checks, growth): what the encoders call per field. The
// writer is reused across iterations.
void BM_Write(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  Writer w(v.enc.size + 64);
  auto write_all = [&] {
    ResetWriter(w, v.enc.size + 64);
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < n; ++i) w.WriteUvarint(v.u32[i]);
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < n; ++i) w.WriteVarint(v.s32[i]);
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < n; ++i) w.WriteVarlong(v.s64[i]);
        break;
    }
    return w.size();
  };
  if (write_all() != v.enc.size || std::memcmp(w.data(), v.enc.bytes.data(), v.enc.size) != 0) {
    st.SkipWithError("encoded bytes differ from the reference encoding");
    return;
  }
  for (auto _ : st) {
    size_t size = write_all();
    benchmark::DoNotOptimize(size);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * n));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * v.enc.size));
}

// Naive: one byte per loop iteration.
inline uint8_t* NaiveEncode(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

void BM_RefNaive_Encode(benchmark::State& st, Kind k, Dist d) {
  const VarData& v = Data(d, k == Kind::kVarlong);
  const size_t n = v.enc.values.size();
  TimeEncode(st, v, [&](uint8_t* out) {
    const Inputs in(v, n);
    uint8_t* p = out;
    switch (k) {
      case Kind::kUvarint:
        for (size_t i = 0; i < in.n; ++i) p = NaiveEncode(p, in.u32[i]);
        break;
      case Kind::kVarint:
        for (size_t i = 0; i < in.n; ++i) p = NaiveEncode(p, ZigZagEncode32(in.s32[i]));
        break;
      case Kind::kVarlong:
        for (size_t i = 0; i < in.n; ++i) p = NaiveEncode(p, ZigZagEncode64(in.s64[i]));
        break;
    }
    return static_cast<size_t>(p - out);
  });
}

// ---- Compact strings and bytes: uvarint length+1, then the bytes.
struct StringData {
  std::vector<std::string> strings;
  std::vector<uint8_t> bytes;  ///< encoded, plus kSlop zero bytes
  size_t size = 0;             ///< encoded size without the slop
  uint64_t sum_len = 0;
};

/// Well-formed UTF-8 text of exactly `l` bytes: about 25% ASCII letters, 35% 2-byte
/// (é ж), 30% 3-byte (€ 中) and 10% 4-byte (😀) characters (ASCII where one does not fit).
std::string MultiByteText(std::mt19937_64& rng, size_t l) {
  static const char* const kChars[] = {"\xc3\xa9", "\xd0\xb6", "\xe2\x82\xac", "\xe4\xb8\xad",
                                       "\xf0\x9f\x98\x80"};
  std::string str;
  while (str.size() < l) {
    const uint64_t r = rng() % 20;
    const char* ch = r < 5 ? nullptr : r < 12 ? kChars[r % 2] : r < 18 ? kChars[2 + r % 2] : kChars[4];
    const size_t n = ch == nullptr ? 1 : std::strlen(ch);
    if (ch == nullptr || str.size() + n > l) {
      str += static_cast<char>('a' + rng() % 26);
    } else {
      str += ch;
    }
  }
  return str;
}

/// `len` ≥ 0: every string has that length; −1: uniform 0..64. ASCII letters, or with
/// `text` multi-byte UTF-8 text (MultiByteText).
const StringData& Strings(int len, bool text = false) {
  static std::map<std::pair<int, bool>, std::unique_ptr<StringData>> cache;
  auto& slot = cache[{len, text}];
  if (!slot) {
    slot = std::make_unique<StringData>();
    StringData& s = *slot;
    // About 1 MiB of strings, at least 4,096 and at most 65,536 of them.
    const size_t count =
        std::min<size_t>(65536, std::max<size_t>(4096, (size_t{1} << 20) / (len < 0 ? 33 : len + 1)));
    std::mt19937_64 rng(0x737472 + static_cast<uint64_t>(len));
    for (uint32_t l : MakeLengths(len, count)) {
      std::string str(l, '\0');
      if (text) {
        str = MultiByteText(rng, l);
      } else {
        for (auto& c : str) c = static_cast<char>('a' + rng() % 26);
      }
      uint8_t prefix[kMaxUvarintBytes];
      const size_t pn = EncodeUvarint(prefix, l + 1);
      s.bytes.insert(s.bytes.end(), prefix, prefix + pn);
      s.bytes.insert(s.bytes.end(), str.begin(), str.end());
      s.sum_len += l;
      s.strings.push_back(std::move(str));
    }
    s.size = s.bytes.size();
    s.bytes.resize(s.size + kSlop);
  }
  return *slot;
}

template <class F>
void TimeStringDecode(benchmark::State& st, const StringData& s, F&& decode_all) {
  if (decode_all() != s.sum_len) {
    st.SkipWithError("decoded lengths differ from the input");
    return;
  }
  for (auto _ : st) {
    uint64_t sum = decode_all();
    benchmark::DoNotOptimize(sum);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * s.strings.size()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * s.size));
}

// kwire: ReadStringLength / ReadBytesLength (length, null and bounds checks) + ReadRaw
// (a view). No allocation.
void BM_DecodeCompact(benchmark::State& st, bool bytes, int len) {
  const StringData& s = Strings(len);
  const size_t n = s.strings.size();
  TimeStringDecode(st, s, [&] {
    Reader r(s.bytes.data(), s.size);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t l = bytes ? r.ReadBytesLength(true, false) : r.ReadStringLength(true, false);
      const std::string_view view = r.ReadRaw(static_cast<size_t>(l));
      benchmark::DoNotOptimize(view.data());
      sum += view.size();
    }
    return r.ok() ? sum : ~sum;
  });
}

// UTF-8 validation (issue 13), same run: compact strings read as the decoder reads them,
// ReadStringLength then ReadUtf8 (validated: what strict decoding does) or ReadRaw (not
// validated: BYTES, and strings before issue 13), over ASCII or multi-byte text; with
// `copy`, each value is also copied into a std::string, as DecodeBlob does for a
// message's string field.
void BM_DecodeCompactStringUtf8(benchmark::State& st, bool validate, bool copy, bool text,
                                int len) {
  const StringData& s = Strings(len, text);
  const size_t n = s.strings.size();
  TimeStringDecode(st, s, [&] {
    Reader r(s.bytes.data(), s.size);
    uint64_t sum = 0;
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      const int64_t l = r.ReadStringLength(true, false);
      const std::string_view view =
          validate ? r.ReadUtf8(static_cast<size_t>(l)) : r.ReadRaw(static_cast<size_t>(l));
      if (copy) {
        out.assign(view);
        benchmark::DoNotOptimize(out.data());
      } else {
        benchmark::DoNotOptimize(view.data());
      }
      sum += view.size();
    }
    return r.ok() ? sum : ~sum;
  });
}

// Copying decode: the same, plus a std::string built from the view (what decoding into
// a message's std::string field costs).
void BM_RefCopy_DecodeCompact(benchmark::State& st, bool bytes, int len) {
  const StringData& s = Strings(len);
  const size_t n = s.strings.size();
  TimeStringDecode(st, s, [&] {
    Reader r(s.bytes.data(), s.size);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t l = bytes ? r.ReadBytesLength(true, false) : r.ReadStringLength(true, false);
      std::string copy(r.ReadRaw(static_cast<size_t>(l)));
      benchmark::DoNotOptimize(copy.data());
      sum += copy.size();
    }
    return r.ok() ? sum : ~sum;
  });
}

// protobuf's zero-copy string read: ReadVarintSizeAsInt + GetDirectBufferPointer + Skip
// (the prefix is length+1 here, so one subtraction more).
void BM_RefPbCoded_DecodeCompact(benchmark::State& st, bool bytes, int len) {
  const StringData& s = Strings(len);
  const size_t n = s.strings.size();
  TimeStringDecode(st, s, [&] {
    pb::io::CodedInputStream in(s.bytes.data(), static_cast<int>(s.size));
    uint64_t sum = 0;
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      int size = 0;
      ok &= in.ReadVarintSizeAsInt(&size);
      const int l = size - 1;
      const void* data = nullptr;
      int avail = 0;
      in.GetDirectBufferPointer(&data, &avail);
      ok &= l >= 0 && l <= avail;
      benchmark::DoNotOptimize(data);
      ok &= in.Skip(l);
      sum += static_cast<uint64_t>(l);
    }
    return ok ? sum : ~sum;
  });
}

void BM_RefNaive_DecodeCompact(benchmark::State& st, bool bytes, int len) {
  const StringData& s = Strings(len);
  const size_t n = s.strings.size();
  TimeStringDecode(st, s, [&] {
    const uint8_t* p = s.bytes.data();
    const uint8_t* end = p + s.size;
    uint64_t sum = 0;
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      uint64_t x = 0;
      ok &= NaiveLeb128<5>(p, end, &x);
      const uint64_t l = x - 1;
      if (x == 0 || l > static_cast<uint64_t>(end - p)) {
        ok = false;
        break;
      }
      benchmark::DoNotOptimize(p);
      p += l;
      sum += l;
    }
    return ok ? sum : ~sum;
  });
}

template <class F>
void TimeStringEncode(benchmark::State& st, const StringData& s, F&& encode_all) {
  std::span<const uint8_t> got = encode_all();
  if (got.size() != s.size || std::memcmp(got.data(), s.bytes.data(), s.size) != 0) {
    st.SkipWithError("encoded bytes differ");
    return;
  }
  for (auto _ : st) {
    got = encode_all();
    benchmark::DoNotOptimize(got.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * s.strings.size()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * s.size));
}

// Encode, kwire: Writer::WriteStringLength / WriteBytesLength + WriteRaw (a reused
// writer, so no growth after the first call).
void BM_EncodeCompact(benchmark::State& st, bool bytes, int len) {
  const StringData& s = Strings(len);
  Writer w(s.size + 64);
  TimeStringEncode(st, s, [&] {
    ResetWriter(w, s.size + 64);
    for (const std::string& str : s.strings) {
      // What EncodeBlob (codec/schema/visitors.cc) calls for a non-null compact string
      // or bytes field; the prefix is the same for both.
      if constexpr (requires { w.WriteCompactString(str); }) {
        w.WriteCompactString(str);
      } else {  // an older commit's Writer (bench/compare --overlay-bench)
        w.WriteStringLength(true, static_cast<int64_t>(str.size()));
        w.WriteRaw(str);
      }
    }
    return w.bytes();
  });
}

// Encode, protobuf: WriteVarint32ToArray + WriteRawToArray into a large enough array.
void BM_RefPbCoded_EncodeCompact(benchmark::State& st, bool bytes, int len) {
  using Out = pb::io::CodedOutputStream;
  const StringData& s = Strings(len);
  std::vector<uint8_t> out(s.size + 64);
  TimeStringEncode(st, s, [&] {
    uint8_t* p = out.data();
    for (const std::string& str : s.strings) {
      p = Out::WriteVarint32ToArray(static_cast<uint32_t>(str.size() + 1), p);
      p = Out::WriteRawToArray(str.data(), static_cast<int>(str.size()), p);
    }
    return std::span<const uint8_t>(out.data(), static_cast<size_t>(p - out.data()));
  });
}

// ---- CRC-32C (ISA-L crc32_iscsi behind kwire::Crc32c).
const std::vector<uint8_t>& RandomBytes(size_t n) {
  static std::map<size_t, std::vector<uint8_t>> cache;
  auto& v = cache[n];
  if (v.empty()) {
    std::mt19937_64 rng(n);
    v.resize(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
  }
  return v;
}

void BM_Crc32c(benchmark::State& st, size_t n) {
  const std::vector<uint8_t>& data = RandomBytes(n);
  if (Crc32c("123456789", 9) != 0xe3069283u) {
    st.SkipWithError("Crc32c check value is wrong");
    return;
  }
  for (auto _ : st) {
    uint32_t crc = Crc32c(data.data(), n);
    benchmark::DoNotOptimize(crc);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * n));
}

// ---- Registration.
const char* KindName(Kind k) {
  return k == Kind::kUvarint ? "Uvarint" : k == Kind::kVarint ? "Varint" : "Varlong";
}

std::string LenName(int len) { return len < 0 ? "mix0to64" : std::to_string(len); }

void RegisterAll() {
  for (Kind k : {Kind::kUvarint, Kind::kVarint, Kind::kVarlong}) {
    const std::string op = KindName(k);
    for (const DistInfo& di : kDists) {
      if (di.wide_only && k != Kind::kVarlong) continue;
      const std::string c = std::string("/") + di.name;
      const Dist d = di.dist;
      Register("BM_Decode" + op + c, BM_Decode, k, d);
      Register("BM_RefPbCoded_Decode" + op + c, BM_RefPbCoded_Decode, k, d);
      Register("BM_RefPbUnchecked_Decode" + op + c, BM_RefPbUnchecked_Decode, k, d);
      Register("BM_RefNaive_Decode" + op + c, BM_RefNaive_Decode, k, d);
      Register("BM_Encode" + op + c, BM_Encode, k, d);
      Register("BM_RefPbCoded_Encode" + op + c, BM_RefPbCoded_Encode, k, d);
      Register("BM_RefNaive_Encode" + op + c, BM_RefNaive_Encode, k, d);
      Register("BM_Write" + op + c, BM_Write, k, d);
      if (k != Kind::kVarint) {  // varint buffers are the uvarint buffers
        auto limit = [k, d](auto fn) {
          return [fn, k, d](benchmark::State& st) {
            const VarData& v = Data(d, k == Kind::kVarlong);
            fn(st, v.enc.bytes.data(), v.enc.size, v.enc.values.size());
          };
        };
        Register("BM_RefMemcpy_Decode" + op + c, limit(BM_RefMemcpy));
        Register("BM_RefByteSum_Decode" + op + c, limit(BM_RefByteSum));
      }
    }
  }
  for (bool bytes : {false, true}) {
    const std::string op = bytes ? "CompactBytes" : "CompactString";
    for (int len : {0, 8, 64, 1024, -1}) {
      const std::string c = "/" + LenName(len);
      Register("BM_Decode" + op + c, BM_DecodeCompact, bytes, len);
      Register("BM_RefCopy_Decode" + op + c, BM_RefCopy_DecodeCompact, bytes, len);
      Register("BM_RefNaive_Decode" + op + c, BM_RefNaive_DecodeCompact, bytes, len);
      Register("BM_Encode" + op + c, BM_EncodeCompact, bytes, len);
      Register("BM_RefPbCoded_Encode" + op + c, BM_RefPbCoded_EncodeCompact, bytes, len);
      if (!bytes) {  // protobuf makes no difference between the two
        Register("BM_RefPbCoded_Decode" + op + c, BM_RefPbCoded_DecodeCompact, bytes, len);
      }
      auto limit = [len](auto fn) {
        return [fn, len](benchmark::State& st) {
          const StringData& s = Strings(len);
          fn(st, s.bytes.data(), s.size, s.strings.size());
        };
      };
      Register("BM_RefMemcpy_Decode" + op + c, limit(BM_RefMemcpy));
    }
  }
  // BM_DecodeCompactStringUtf8/<validate|raw>[copy]/<ascii|text>/<len>: validate / raw
  // is the cost of UTF-8 validation, on a view and with the copy the decoder makes.
  for (bool text : {false, true}) {
    for (int len : {8, -1, 1024}) {
      for (bool copy : {false, true}) {
        for (bool validate : {true, false}) {
          Register(std::string("BM_DecodeCompactStringUtf8/") + (validate ? "validate" : "raw") +
                       (copy ? "copy" : "") + (text ? "/text/" : "/ascii/") + LenName(len),
                   BM_DecodeCompactStringUtf8, validate, copy, text, len);
        }
      }
    }
  }
  for (size_t n : {64, 256, 1024, 4096, 16384, 65536, 1 << 20}) {
    const std::string c = "/" + std::to_string(n);
    Register("BM_Crc32c" + c, BM_Crc32c, n);
    auto limit = [n](auto fn) {
      return [fn, n](benchmark::State& st) { fn(st, RandomBytes(n).data(), n, 1); };
    };
    Register("BM_RefMemcpy_Crc32c" + c, limit(BM_RefMemcpy));
    Register("BM_RefByteSum_Crc32c" + c, limit(BM_RefByteSum));
  }
}

}  // namespace
}  // namespace kwire::bench

int main(int argc, char** argv) {
  return kwire::bench::BenchMain(argc, argv, &kwire::bench::RegisterAll);
}
