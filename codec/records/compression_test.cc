// Compression codecs: round trips in Kafka's framings, hostile streams, output caps and
// decompression bombs with bounded memory (global operator new is counted here).
#include "codec/records/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <sys/resource.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "codec/wire/heap_test_util.h"
#include "codec/wire/test_util.h"
#include "gtest/gtest.h"

// Allocation accounting for the whole test binary (codec/wire/heap_test_util.h): live
// and peak bytes allocated through operator new (std::vector buffers, among others).
// Library-internal malloc (zlib/zstd state) is bounded separately (zstd window limit)
// and by peak RSS.

KWIRE_COUNT_GLOBAL_NEW()

namespace kwire {
namespace {

using wire_testing::Hex;

using heap_testing::PeakAllocated;

long MaxRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

std::vector<uint8_t> Sample(size_t n, unsigned seed = 1) {
  // Compressible but not trivial: words from a small vocabulary plus some noise.
  static const char* kWords[] = {"kafka ", "record ", "batch ", "offset ", "zstd ", "{\"k\":", "42,"};
  std::mt19937 rng(seed);
  std::vector<uint8_t> out;
  out.reserve(n);
  while (out.size() < n) {
    if (rng() % 8 == 0) {
      out.push_back(static_cast<uint8_t>(rng()));
    } else {
      const char* w = kWords[rng() % 7];
      out.insert(out.end(), w, w + std::strlen(w));
    }
  }
  out.resize(n);
  return out;
}

constexpr Compression kCodecs[] = {Compression::kGzip, Compression::kSnappy, Compression::kLz4,
                                   Compression::kZstd};

std::string Name(Compression c) { return CompressionName(c); }

TEST(Compression, Names) {
  EXPECT_EQ(Name(Compression::kNone), "none");
  EXPECT_EQ(Name(Compression::kGzip), "gzip");
  EXPECT_EQ(Name(Compression::kSnappy), "snappy");
  EXPECT_EQ(Name(Compression::kLz4), "lz4");
  EXPECT_EQ(Name(Compression::kZstd), "zstd");
  EXPECT_EQ(Name(static_cast<Compression>(5)), "invalid");
}

TEST(Compression, RoundTripEveryCodecAndSize) {
  for (Compression c : kCodecs) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{32768}, size_t{32769},
                     size_t{70000}, size_t{1} << 20}) {
      const std::vector<uint8_t> in = Sample(n, static_cast<unsigned>(n));
      std::vector<uint8_t> z, out;
      ASSERT_TRUE(Compress(c, in, &z).ok()) << Name(c) << " " << n;
      const Error e = Decompress(c, z, {}, &out);
      ASSERT_TRUE(e.ok()) << Name(c) << " " << n << ": " << e.ToString();
      EXPECT_EQ(out, in) << Name(c) << " " << n;
    }
  }
}

TEST(Compression, NoneCopiesSubjectToCap) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(Decompress(Compression::kNone, Bytes("abc"), {}, &out).ok());
  EXPECT_EQ(out, Bytes("abc"));
  DecompressOptions o;
  o.max_output = 2;
  EXPECT_EQ(Decompress(Compression::kNone, Bytes("abc"), o, &out).kind,
            ErrorKind::kCompressionError);
}

TEST(Compression, InvalidCodec) {
  std::vector<uint8_t> out;
  const Error e = Decompress(static_cast<Compression>(6), Bytes("abc"), {}, &out);
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_NE(e.detail.find("invalid codec 6"), std::string::npos) << e.detail;
  EXPECT_EQ(Compress(static_cast<Compression>(7), Bytes("abc"), &out).kind,
            ErrorKind::kCompressionError);
}

TEST(Compression, FramingsAsJavaWritesThem) {
  const std::vector<uint8_t> in = Sample(100000);
  std::vector<uint8_t> z;
  ASSERT_TRUE(Compress(Compression::kGzip, in, &z).ok());
  EXPECT_EQ(wire_testing::ToHex(std::span(z).first(3)), "1f 8b 08");
  z.clear();
  ASSERT_TRUE(Compress(Compression::kLz4, in, &z).ok());
  EXPECT_EQ(wire_testing::ToHex(std::span(z).first(4)), "04 22 4d 18");
  // FLG: version 01, block independence, no checksums, no content size; BD: 64 KiB.
  EXPECT_EQ(z[4], 0x60);
  EXPECT_EQ(z[5], 0x40);
  z.clear();
  ASSERT_TRUE(Compress(Compression::kZstd, in, &z).ok());
  EXPECT_EQ(wire_testing::ToHex(std::span(z).first(4)), "28 b5 2f fd");
  z.clear();
  ASSERT_TRUE(Compress(Compression::kSnappy, in, &z).ok());
  // xerial: magic, version 1, compatible 1, then int32 big-endian chunk lengths.
  EXPECT_EQ(wire_testing::ToHex(std::span(z).first(16)),
            "82 53 4e 41 50 50 59 00 00 00 00 01 00 00 00 01");
  size_t pos = 16, chunks = 0, total = 0;
  while (pos < z.size()) {
    ASSERT_LE(pos + 4, z.size());
    const size_t len = size_t{z[pos]} << 24 | size_t{z[pos + 1]} << 16 |
                       size_t{z[pos + 2]} << 8 | z[pos + 3];
    size_t ulen = 0;
    ASSERT_TRUE(snappy::GetUncompressedLength(reinterpret_cast<const char*>(&z[pos + 4]), len,
                                              &ulen));
    EXPECT_LE(ulen, 32768u);
    total += ulen;
    pos += 4 + len;
    ++chunks;
  }
  EXPECT_EQ(pos, z.size());
  EXPECT_EQ(chunks, 4u);  // 100000 bytes in 32 KiB blocks
  EXPECT_EQ(total, in.size());
}

TEST(Compression, RawSnappyDecodes) {
  const std::vector<uint8_t> in = Sample(5000);
  std::string raw;
  snappy::Compress(reinterpret_cast<const char*>(in.data()), in.size(), &raw);
  std::vector<uint8_t> out;
  ASSERT_TRUE(Decompress(Compression::kSnappy, Bytes(raw), {}, &out).ok());
  EXPECT_EQ(out, in);
}

TEST(Compression, ConcatenatedMembersAndFrames) {
  const std::vector<uint8_t> a = Sample(3000, 1), b = Sample(5000, 2);
  std::vector<uint8_t> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  for (Compression c : {Compression::kGzip, Compression::kLz4, Compression::kZstd}) {
    std::vector<uint8_t> z, out;
    ASSERT_TRUE(Compress(c, a, &z).ok());
    ASSERT_TRUE(Compress(c, b, &z).ok());  // appends a second member/frame
    const Error e = Decompress(c, z, {}, &out);
    ASSERT_TRUE(e.ok()) << Name(c) << ": " << e.ToString();
    EXPECT_EQ(out, ab) << Name(c);
  }
}

TEST(Compression, TrailingGarbageFails) {
  for (Compression c : kCodecs) {
    std::vector<uint8_t> z, out;
    ASSERT_TRUE(Compress(c, Sample(1000), &z).ok());
    if (c == Compression::kSnappy) {
      z.push_back(0);  // a partial xerial chunk length
    } else {
      z.insert(z.end(), {'j', 'u', 'n', 'k', 'j', 'u', 'n', 'k'});
    }
    const Error e = Decompress(c, z, {}, &out);
    EXPECT_EQ(e.kind, ErrorKind::kCompressionError) << Name(c);
    EXPECT_EQ(e.detail.rfind(Name(c) + ": ", 0), 0u) << e.detail;
  }
}

// A gzip member whose magic is wrong is reported at the member's first byte (zlib alone
// would say where it stopped reading, past the header): the first member and a later one.
// Regression: records/Produce/v9/request/gzip-corrupt (conformance/vectors/records.jsonl).
TEST(Compression, GzipBadMagicAtTheMembersFirstByte) {
  std::vector<uint8_t> z, out;
  ASSERT_TRUE(Compress(Compression::kGzip, Sample(1000), &z).ok());
  const size_t first = z.size();
  ASSERT_TRUE(Compress(Compression::kGzip, Sample(1000, 2), &z).ok());
  for (size_t member : {size_t{0}, first}) {
    std::vector<uint8_t> bad = z;
    bad[member + 1] = 0x8c;
    const Error e = Decompress(Compression::kGzip, bad, {}, &out);
    EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
    EXPECT_EQ(e.offset, member);
    EXPECT_EQ(e.detail, "gzip: not a gzip member: magic 1f 8c, expected 1f 8b");
  }
}

TEST(Compression, TruncationAtEveryOffsetFails) {
  for (Compression c : kCodecs) {
    std::vector<uint8_t> z;
    ASSERT_TRUE(Compress(c, Sample(2000), &z).ok());
    for (size_t n = 0; n < z.size(); ++n) {
      // A raw-snappy reading of a cut xerial header is legitimately attempted; every
      // cut must still fail cleanly, never crash or succeed with other bytes.
      std::vector<uint8_t> out;
      const Error e = Decompress(c, std::span(z).first(n), {}, &out);
      if (c == Compression::kSnappy && n == 16) {
        EXPECT_TRUE(e.ok());  // the xerial header alone is an empty stream
        EXPECT_TRUE(out.empty());
        continue;
      }
      EXPECT_EQ(e.kind, ErrorKind::kCompressionError) << Name(c) << " cut at " << n;
    }
  }
}

TEST(Compression, CorruptedBytesNeverCrash) {
  std::mt19937 rng(7);
  for (Compression c : kCodecs) {
    std::vector<uint8_t> z;
    ASSERT_TRUE(Compress(c, Sample(4000), &z).ok());
    for (int i = 0; i < 300; ++i) {
      std::vector<uint8_t> m = z, out;
      for (int k = 0; k < 3; ++k) m[rng() % m.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      DecompressOptions o;
      o.max_output = 8000;
      const Error e = Decompress(c, m, o, &out);
      if (!e.ok()) {
        EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
      }
      EXPECT_LE(out.size(), o.max_output);
    }
  }
}

TEST(Compression, ExactCapSucceedsOneMoreFails) {
  const std::vector<uint8_t> in = Sample(100000);
  for (Compression c : kCodecs) {
    std::vector<uint8_t> z, out;
    ASSERT_TRUE(Compress(c, in, &z).ok());
    DecompressOptions o;
    o.max_output = in.size();
    Error e = Decompress(c, z, o, &out);
    EXPECT_TRUE(e.ok()) << Name(c) << ": " << e.ToString();
    EXPECT_EQ(out, in);
    o.max_output = in.size() - 1;
    e = Decompress(c, z, o, &out);
    EXPECT_EQ(e.kind, ErrorKind::kCompressionError) << Name(c);
    EXPECT_NE(e.detail.find("exceeds the cap of 99999 bytes"), std::string::npos) << e.detail;
    EXPECT_EQ(e.detail.rfind(Name(c) + ": ", 0), 0u) << e.detail;
  }
}

// ---- Decompression bombs: small input, huge declared and actual output.

// 1 GiB of zeros as one zstd frame that declares its 1 GiB content size.
std::vector<uint8_t> ZstdBomb(size_t total) {
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), total);
  const std::vector<uint8_t> zeros(1 << 20);
  std::vector<uint8_t> out(1 << 20);
  size_t used = 0;
  for (size_t done = 0; done < total; done += zeros.size()) {
    ZSTD_inBuffer in{zeros.data(), zeros.size(), 0};
    const ZSTD_EndDirective mode = done + zeros.size() >= total ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      if (out.size() - used < 65536) out.resize(out.size() * 2);
      ZSTD_outBuffer o{out.data() + used, out.size() - used, 0};
      const size_t rem = ZSTD_compressStream2(cctx.get(), &o, &in, mode);
      EXPECT_FALSE(ZSTD_isError(rem));
      used += o.pos;
      if (mode == ZSTD_e_end ? rem == 0 : in.pos == in.size) break;
    }
  }
  out.resize(used);
  return out;
}

// `total` zeros (a multiple of 1 MiB) as one gzip member whose ISIZE declares total
// mod 2^32. Built cheaply: one deflate chunk for 1 MiB of zeros, ended by a full flush
// (byte-aligned, nothing refers across it), repeated; then the final block and trailer.
std::vector<uint8_t> GzipBomb(size_t total) {
  const size_t kChunk = 1 << 20;
  const std::vector<uint8_t> zeros(kChunk);
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_RLE), Z_OK);
  std::vector<uint8_t> chunk(deflateBound(&zs, kChunk) + 64), tail(64);
  zs.next_in = const_cast<Bytef*>(zeros.data());
  zs.avail_in = static_cast<uInt>(kChunk);
  zs.next_out = chunk.data();
  zs.avail_out = static_cast<uInt>(chunk.size());
  EXPECT_EQ(deflate(&zs, Z_FULL_FLUSH), Z_OK);
  EXPECT_EQ(zs.avail_in, 0u);
  chunk.resize(chunk.size() - zs.avail_out);
  zs.next_out = tail.data();
  zs.avail_out = static_cast<uInt>(tail.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  tail.resize(tail.size() - zs.avail_out);
  deflateEnd(&zs);
  const uLong chunk_crc = crc32(0, zeros.data(), static_cast<uInt>(kChunk));
  uLong crc = 0;
  std::vector<uint8_t> out = Hex("1f8b 08 00 00000000 00 03");  // gzip header
  for (size_t done = 0; done < total; done += kChunk) {
    out.insert(out.end(), chunk.begin(), chunk.end());
    crc = done == 0 ? chunk_crc : crc32_combine(crc, chunk_crc, static_cast<z_off_t>(kChunk));
  }
  out.insert(out.end(), tail.begin(), tail.end());
  for (uint32_t v : {static_cast<uint32_t>(crc), static_cast<uint32_t>(total)}) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  return out;
}

TEST(CompressionBomb, GzipBombIsAValidStream) {
  // The cheap construction is a real gzip stream: 64 MiB of zeros, CRC and ISIZE right.
  const std::vector<uint8_t> bomb = GzipBomb(size_t{64} << 20);
  std::vector<uint8_t> out;
  const Error e = Decompress(Compression::kGzip, bomb, {}, &out);
  ASSERT_TRUE(e.ok()) << e.ToString();
  EXPECT_EQ(out.size(), size_t{64} << 20);
  EXPECT_EQ(std::count(out.begin(), out.end(), 0), static_cast<ptrdiff_t>(out.size()));
}

void ExpectStoppedAtCap(Compression c, const std::vector<uint8_t>& bomb, size_t cap) {
  std::vector<uint8_t> out;
  Error e;
  DecompressOptions o;
  o.max_output = cap;
  const long rss_before = MaxRssKiB();
  const size_t peak = PeakAllocated([&] { e = Decompress(c, bomb, o, &out); });
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError) << Name(c);
  EXPECT_NE(e.detail.find("exceeds the cap"), std::string::npos) << e.detail;
  // The output buffer never grows past cap + 1; growth keeps old and new buffers alive
  // for one copy, so the peak is below 2 × cap (+ slack for small allocations).
  EXPECT_LE(out.capacity(), cap + 1) << Name(c);
  EXPECT_LE(peak, 2 * cap + (1 << 20)) << Name(c) << " peak " << peak;
  // Peak RSS (whole process: malloc in the libraries included) grows by less than
  // 3 × cap + 16 MiB (LZ4F keeps up to two 4 MiB block buffers whatever the cap).
  EXPECT_LT(MaxRssKiB() - rss_before, static_cast<long>(3 * cap / 1024 + 16384)) << Name(c);
}

TEST(CompressionBomb, Zstd1GiBStoppedAtDefaultCap) {
  const std::vector<uint8_t> bomb = ZstdBomb(size_t{1} << 30);
  ASSERT_LT(bomb.size(), 256u * 1024);  // small input
  // Declared content size: 1 GiB.
  EXPECT_EQ(ZSTD_getFrameContentSize(bomb.data(), bomb.size()), size_t{1} << 30);
  ExpectStoppedAtCap(Compression::kZstd, bomb, kDefaultMaxDecompressedBytes);
}

TEST(CompressionBomb, Gzip1GiBStoppedAtDefaultCap) {
  const std::vector<uint8_t> bomb = GzipBomb(size_t{1} << 30);
  ASSERT_LT(bomb.size(), 2u << 20);  // ~1 MiB: deflate's 1032:1 limit
  ExpectStoppedAtCap(Compression::kGzip, bomb, kDefaultMaxDecompressedBytes);
}

TEST(CompressionBomb, Lz4WithDeclaredSizeStoppedAtCap) {
  // 64 MiB of zeros (LZ4 tops out near 255:1), declared in the frame header.
  const size_t total = size_t{64} << 20;
  const std::vector<uint8_t> zeros(total);
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentSize = total;
  prefs.frameInfo.blockSizeID = LZ4F_max4MB;
  std::vector<uint8_t> bomb(LZ4F_compressFrameBound(total, &prefs));
  const size_t n = LZ4F_compressFrame(bomb.data(), bomb.size(), zeros.data(), total, &prefs);
  ASSERT_FALSE(LZ4F_isError(n));
  bomb.resize(n);
  ASSERT_LT(bomb.size(), 512u << 10);
  ExpectStoppedAtCap(Compression::kLz4, bomb, size_t{4} << 20);
}

TEST(CompressionBomb, SnappyStoppedAtCap) {
  const std::vector<uint8_t> zeros(size_t{32} << 20);
  std::vector<uint8_t> bomb;
  ASSERT_TRUE(Compress(Compression::kSnappy, zeros, &bomb).ok());  // xerial chunks
  ExpectStoppedAtCap(Compression::kSnappy, bomb, size_t{4} << 20);
  // Raw snappy: one block declaring 32 MiB, rejected before allocating anything.
  std::string raw;
  snappy::Compress(reinterpret_cast<const char*>(zeros.data()), zeros.size(), &raw);
  const std::vector<uint8_t> raw_bytes = Bytes(raw);
  std::vector<uint8_t> out;
  Error e;
  DecompressOptions o;
  o.max_output = size_t{4} << 20;
  const size_t peak =
      PeakAllocated([&] { e = Decompress(Compression::kSnappy, raw_bytes, o, &out); });
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_LT(peak, 4096u);
}

// ---- Declared sizes that lie: never used for allocation.

TEST(CompressionDeclaredSize, ZstdHugeContentSizeIsNotAllocated) {
  // A tiny frame whose header claims 2^40 bytes (single-segment flag off, 8-byte FCS).
  std::vector<uint8_t> frame = Hex("28b52ffd" "c0" "0000000000010000" "010000");  // raw last block, 0 bytes
  std::vector<uint8_t> out;
  Error e;
  const size_t peak = PeakAllocated([&] { e = Decompress(Compression::kZstd, frame, {}, &out); });
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_LT(peak, 2u << 20);
}

TEST(CompressionDeclaredSize, Lz4HugeContentSizeIsNotAllocated) {
  const std::vector<uint8_t> in = Sample(1000);
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentSize = in.size();
  std::vector<uint8_t> z(LZ4F_compressFrameBound(in.size(), &prefs));
  z.resize(LZ4F_compressFrame(z.data(), z.size(), in.data(), in.size(), &prefs));
  // Patch the content size (bytes 6..13) to 2^40 and fix the header checksum (byte 14).
  ASSERT_TRUE(z[4] & 0x08);
  for (int i = 0; i < 8; ++i) z[6 + i] = 0;
  z[6 + 5] = 1;
  z[14] = static_cast<uint8_t>(compression_internal::XxHash32(z.data() + 4, 10, 0) >> 8);
  std::vector<uint8_t> out;
  Error e;
  const size_t peak = PeakAllocated([&] { e = Decompress(Compression::kLz4, z, {}, &out); });
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);  // content size mismatch at the end
  EXPECT_LT(peak, 2u << 20);
}

TEST(CompressionDeclaredSize, SnappyDeclaredBelowCapButInvalidIsNotAllocated) {
  // Preamble declares 60 MiB (varint), body is 3 literal bytes.
  std::vector<uint8_t> block = Hex("8080801e" "08616263");
  std::vector<uint8_t> out;
  Error e;
  const size_t peak = PeakAllocated([&] { e = Decompress(Compression::kSnappy, block, {}, &out); });
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_LT(peak, 4096u);
}

TEST(CompressionDeclaredSize, ZstdWindowBoundedByCap) {
  // A frame that needs a 128 MiB window (no content size, windowLog 27) is refused
  // when the cap is 1 MiB: the decoder would otherwise allocate the whole window.
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_windowLog, 27);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 0);
  const std::vector<uint8_t> in = Sample(1000);
  std::vector<uint8_t> z(ZSTD_compressBound(in.size()) + 64);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  ZSTD_outBuffer dst{z.data(), z.size(), 0};
  // Streamed (size unknown when the frame header is written), so the window stays 2^27.
  ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx.get(), &dst, &src, ZSTD_e_continue)));
  ZSTD_inBuffer none{nullptr, 0, 0};
  ASSERT_EQ(ZSTD_compressStream2(cctx.get(), &dst, &none, ZSTD_e_end), 0u);
  z.resize(dst.pos);
  std::vector<uint8_t> out;
  DecompressOptions o;
  o.max_output = 1 << 20;
  const Error e = Decompress(Compression::kZstd, z, o, &out);
  EXPECT_EQ(e.kind, ErrorKind::kCompressionError);
  EXPECT_NE(e.detail.find("window above 2^20"), std::string::npos) << e.detail;
  // With the default 64 MiB cap (window up to 2^26) it still fails; with 128 MiB it works.
  o.max_output = size_t{128} << 20;
  EXPECT_TRUE(Decompress(Compression::kZstd, z, o, &out).ok());
  EXPECT_EQ(out, in);
}

// ---- LZ4 header checksum of Kafka's magic-0 message sets.

TEST(Compression, XxHash32KnownVectors) {
  using compression_internal::XxHash32;
  EXPECT_EQ(XxHash32(nullptr, 0, 0), 0x02cc5d05u);
  EXPECT_EQ(XxHash32(reinterpret_cast<const uint8_t*>("abc"), 3, 0), 0x32d153ffu);
  const std::string s = "Nobody inspects the spammish repetition";
  EXPECT_EQ(XxHash32(reinterpret_cast<const uint8_t*>(s.data()), s.size(), 0), 0xe2293b2fu);
}

TEST(Compression, Lz4KafkaLegacyHeaderChecksum) {
  const std::vector<uint8_t> in = Sample(3000);
  std::vector<uint8_t> z, out;
  ASSERT_TRUE(Compress(Compression::kLz4, in, &z).ok());
  // Our header checksum matches liblz4's (descriptor only): FLG, BD → HC at byte 6.
  EXPECT_EQ(z[6], static_cast<uint8_t>(compression_internal::XxHash32(z.data() + 4, 2, 0) >> 8));
  // Kafka 0.8–0.9 (magic 0) hashed the frame magic too.
  z[6] = static_cast<uint8_t>(compression_internal::XxHash32(z.data(), 6, 0) >> 8);
  EXPECT_EQ(Decompress(Compression::kLz4, z, {}, &out).kind, ErrorKind::kCompressionError);
  DecompressOptions o;
  o.lz4_kafka_legacy_checksum = true;
  const Error e = Decompress(Compression::kLz4, z, o, &out);
  ASSERT_TRUE(e.ok()) << e.ToString();
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace kwire
