#include "codec/records/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "codec/wire/port.h"

namespace kwire {

const char* CompressionName(Compression codec) {
  switch (codec) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kSnappy: return "snappy";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
  }
  return "invalid";
}

namespace compression_internal {

namespace {
constexpr uint32_t kP1 = 2654435761u, kP2 = 2246822519u, kP3 = 3266489917u,
                   kP4 = 668265263u, kP5 = 374761393u;
uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
uint32_t Le32(const uint8_t* p) { return LoadLittleEndian<uint32_t>(p); }
}  // namespace

uint32_t XxHash32(const uint8_t* p, size_t n, uint32_t seed) {
  const uint8_t* const end = p + n;
  uint32_t h;
  if (n >= 16) {
    uint32_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    auto round = [](uint32_t acc, uint32_t in) { return Rotl(acc + in * kP2, 13) * kP1; };
    while (end - p >= 16) {
      v1 = round(v1, Le32(p));
      v2 = round(v2, Le32(p + 4));
      v3 = round(v3, Le32(p + 8));
      v4 = round(v4, Le32(p + 12));
      p += 16;
    }
    h = Rotl(v1, 1) + Rotl(v2, 7) + Rotl(v3, 12) + Rotl(v4, 18);
  } else {
    h = seed + kP5;
  }
  h += static_cast<uint32_t>(n);
  while (end - p >= 4) {
    h = Rotl(h + Le32(p) * kP3, 17) * kP4;
    p += 4;
  }
  while (p < end) {
    h = Rotl(h + *p * kP5, 11) * kP1;
    ++p;
  }
  h ^= h >> 15;
  h *= kP2;
  h ^= h >> 13;
  h *= kP3;
  h ^= h >> 16;
  return h;
}

}  // namespace compression_internal

namespace {

Error CodecError(Compression codec, size_t at, std::string what) {
  Error e;
  e.kind = ErrorKind::kCompressionError;
  e.offset = at;
  e.detail = absl::StrFormat("%s: %s", CompressionName(codec), what);
  return e;
}

Error CapError(Compression codec, size_t at, const DecompressOptions& opt) {
  Error e = CodecError(codec, at,
                       absl::StrFormat("output exceeds the cap of %d bytes (%s)", opt.max_output,
                                       opt.cap_name));
  e.kind = opt.cap_kind;
  return e;
}

// Output buffer that grows geometrically, never beyond `cap + 1` bytes: the extra byte
// lets a decompressor prove the output is larger than the cap without guessing whether
// a full buffer was the exact end. Never sized from a declared content length.
class CappedOutput {
 public:
  CappedOutput(std::vector<uint8_t>* v, size_t cap, size_t input_size)
      : v_(v), cap_(cap), limit_(cap == SIZE_MAX ? SIZE_MAX : cap + 1) {
    v_->clear();
    // First guess: 4× the input, between 4 KiB and 1 MiB, never above the limit.
    const size_t guess = input_size > SIZE_MAX / 4 ? SIZE_MAX : input_size * 4;
    first_ = std::min(limit_, std::clamp<size_t>(guess, 4096, size_t{1} << 20));
  }
  ~CappedOutput() { v_->resize(size_); }

  // Makes room for at least one more byte (up to the limit). False if at the limit.
  bool EnsureRoom() {
    if (size_ < v_->size()) return true;
    if (v_->size() >= limit_) return false;
    const size_t old = v_->size();
    size_t grown = old == 0 ? first_ : (old >= limit_ / 2 ? limit_ : old * 2);
    grown = std::min(grown, limit_);
    v_->reserve(grown);  // exact: reserve allocates what is asked for
    v_->resize(grown);
    return true;
  }
  // Makes room for exactly `n` more bytes at once (snappy blocks of validated size),
  // growing at least geometrically. False if that would pass the cap.
  bool EnsureRoomFor(size_t n) {
    if (size_ > cap_ || n > cap_ - size_) return false;
    if (v_->size() - size_ >= n) return true;
    const size_t want = size_ + n;
    const size_t grown = std::max(want, std::min(cap_, v_->size() * 2));
    v_->reserve(grown);
    v_->resize(grown);
    return true;
  }
  uint8_t* tail() { return v_->data() + size_; }
  size_t room() const { return v_->size() - size_; }
  void Advance(size_t n) { size_ += n; }
  size_t size() const { return size_; }
  bool over_cap() const { return size_ > cap_; }

 private:
  std::vector<uint8_t>* v_;
  size_t cap_;
  size_t limit_;
  size_t first_ = 0;
  size_t size_ = 0;
};

// ---------------------------------------------------------------------------- gzip

Error Gunzip(std::span<const uint8_t> in, const DecompressOptions& opt, std::vector<uint8_t>* v) {
  constexpr Compression kCodec = Compression::kGzip;
  if (in.size() > UINT_MAX) return CodecError(kCodec, 0, "input above 4 GiB");
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return CodecError(kCodec, 0, "inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  CappedOutput out(v, opt.max_output, in.size());
  auto at = [&] { return in.size() - zs.avail_in; };
  // zlib reports a fault where it stopped reading, which for a member's header is past
  // it: a member that does not start with the magic 1f 8b (RFC 1952 2.3.1) is reported
  // at its first byte. Checked at every member start (GZIPInputStream reads several).
  auto bad_magic = [&](size_t m) {
    return in.size() - m >= 2 && (in[m] != 0x1f || in[m + 1] != 0x8b);
  };
  auto magic_error = [&](size_t m) {
    return CodecError(kCodec, m, absl::StrFormat("not a gzip member: magic %02x %02x, expected 1f 8b",
                                                 in[m], in[m + 1]));
  };
  if (bad_magic(0)) return magic_error(0);
  for (;;) {
    if (!out.EnsureRoom()) return CapError(kCodec, at(), opt);
    const size_t room = std::min<size_t>(out.room(), UINT_MAX);
    zs.next_out = out.tail();
    zs.avail_out = static_cast<uInt>(room);
    const int ret = inflate(&zs, Z_NO_FLUSH);
    out.Advance(room - zs.avail_out);
    if (out.over_cap()) return CapError(kCodec, at(), opt);
    if (ret == Z_STREAM_END) {
      if (zs.avail_in == 0) return {};
      // Another gzip member follows (GZIPInputStream reads concatenated members).
      if (bad_magic(at())) return magic_error(at());
      if (inflateReset(&zs) != Z_OK) return CodecError(kCodec, at(), "inflateReset failed");
      continue;
    }
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && zs.avail_out == 0) continue;  // needs more room
    if (ret == Z_BUF_ERROR && zs.avail_in == 0) {
      return CodecError(kCodec, at(), "truncated gzip stream");
    }
    return CodecError(kCodec, at(),
                      zs.msg != nullptr ? zs.msg : absl::StrFormat("inflate error %d", ret));
  }
}

Error Gzip(std::span<const uint8_t> in, int level, std::vector<uint8_t>* out) {
  constexpr Compression kCodec = Compression::kGzip;
  if (in.size() > UINT_MAX) return CodecError(kCodec, 0, "input above 4 GiB");
  z_stream zs{};
  if (level == kDefaultCompressionLevel) level = Z_DEFAULT_COMPRESSION;
  if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return CodecError(kCodec, 0, absl::StrFormat("deflateInit2 failed (level %d)", level));
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, deflateEnd);
  const size_t bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  const size_t start = out->size();
  out->resize(start + bound);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out->data() + start;
  zs.avail_out = static_cast<uInt>(bound);
  const int ret = deflate(&zs, Z_FINISH);
  if (ret != Z_STREAM_END) {
    out->resize(start);
    return CodecError(kCodec, 0, absl::StrFormat("deflate error %d", ret));
  }
  out->resize(start + bound - zs.avail_out);
  return {};
}

// -------------------------------------------------------------------------- snappy

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeader = 16;  // magic, int32 version, int32 compatible version
constexpr size_t kXerialBlock = 32 * 1024;  // snappy-java's default block size

uint32_t Be32(const uint8_t* p) { return LoadBigEndian<uint32_t>(p); }

// One raw snappy block at `at` within the payload, appended to `out`.
Error UnsnappyBlock(std::span<const uint8_t> block, size_t at, const DecompressOptions& opt,
                    CappedOutput& out) {
  const size_t cap = opt.max_output;
  constexpr Compression kCodec = Compression::kSnappy;
  const char* p = reinterpret_cast<const char*>(block.data());
  size_t declared = 0;
  if (!snappy::GetUncompressedLength(p, block.size(), &declared)) {
    return CodecError(kCodec, at, "corrupt block preamble");
  }
  // Check the cap before anything else, then prove the block really produces
  // `declared` bytes before allocating them.
  if (declared > cap || out.size() + declared > cap) return CapError(kCodec, at, opt);
  if (!snappy::IsValidCompressedBuffer(p, block.size())) {
    return CodecError(kCodec, at, absl::StrFormat("corrupt block (%d bytes)", block.size()));
  }
  if (declared == 0) return {};
  if (!out.EnsureRoomFor(declared)) return CapError(kCodec, at, opt);
  if (!snappy::RawUncompress(p, block.size(), reinterpret_cast<char*>(out.tail()))) {
    return CodecError(kCodec, at, "corrupt block");
  }
  out.Advance(declared);
  return {};
}

Error Unsnappy(std::span<const uint8_t> in, const DecompressOptions& opt, std::vector<uint8_t>* v) {
  constexpr Compression kCodec = Compression::kSnappy;
  CappedOutput out(v, opt.max_output, 0);
  if (in.size() < sizeof kXerialMagic ||
      std::memcmp(in.data(), kXerialMagic, sizeof kXerialMagic) != 0) {
    return UnsnappyBlock(in, 0, opt, out);  // raw snappy
  }
  if (in.size() < kXerialHeader) {
    return CodecError(kCodec, sizeof kXerialMagic,
                      absl::StrFormat("truncated xerial header (need %d bytes, have %d)",
                                      kXerialHeader, in.size()));
  }
  size_t pos = kXerialHeader;  // version and compatible version: not interpreted
  while (pos < in.size()) {
    if (in.size() - pos < 4) {
      return CodecError(kCodec, pos,
                        absl::StrFormat("truncated xerial chunk length (need 4, have %d)",
                                        in.size() - pos));
    }
    const uint32_t len = Be32(in.data() + pos);
    if (len > INT32_MAX) {
      return CodecError(kCodec, pos, absl::StrFormat("negative xerial chunk length %d",
                                                     static_cast<int32_t>(len)));
    }
    if (len > in.size() - pos - 4) {
      return CodecError(kCodec, pos,
                        absl::StrFormat("xerial chunk of %d bytes, have %d", len,
                                        in.size() - pos - 4));
    }
    if (Error e = UnsnappyBlock(in.subspan(pos + 4, len), pos + 4, opt, out);
        !e.ok()) {
      return e;
    }
    pos += 4 + len;
  }
  return {};
}

Error Snappy(std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  out->insert(out->end(), kXerialMagic, kXerialMagic + sizeof kXerialMagic);
  const uint8_t version[8] = {0, 0, 0, 1, 0, 0, 0, 1};  // version 1, compatible 1
  out->insert(out->end(), version, version + 8);
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlock) {
    const size_t n = std::min(kXerialBlock, in.size() - pos);
    const size_t at = out->size();
    out->resize(at + 4 + snappy::MaxCompressedLength(n));
    size_t written = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data() + pos), n,
                        reinterpret_cast<char*>(out->data() + at + 4), &written);
    const uint32_t w = static_cast<uint32_t>(written);
    (*out)[at] = static_cast<uint8_t>(w >> 24);
    (*out)[at + 1] = static_cast<uint8_t>(w >> 16);
    (*out)[at + 2] = static_cast<uint8_t>(w >> 8);
    (*out)[at + 3] = static_cast<uint8_t>(w);
    out->resize(at + 4 + written);
  }
  return {};
}

// ----------------------------------------------------------------------------- lz4

constexpr uint32_t kLz4FrameMagic = 0x184D2204;

// Length of the LZ4 frame header at `p` (magic..HC inclusive), or 0 if not a complete
// frame header.
size_t Lz4HeaderSize(std::span<const uint8_t> p) {
  if (p.size() < 7) return 0;
  const uint32_t magic = LoadLittleEndian<uint32_t>(p.data());
  if (magic != kLz4FrameMagic) return 0;
  const uint8_t flg = p[4];
  size_t n = 4 + 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0) + 1;
  return p.size() >= n ? n : 0;
}

Error Unlz4(std::span<const uint8_t> in, const DecompressOptions& opt, std::vector<uint8_t>* v) {
  constexpr Compression kCodec = Compression::kLz4;
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return CodecError(kCodec, 0, "LZ4F_createDecompressionContext failed");
  }
  std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> ctx(
      raw, LZ4F_freeDecompressionContext);
  CappedOutput out(v, opt.max_output, in.size());

  // Kafka's magic-0 LZ4 header checksum covers the frame magic as well; repair it in a
  // small copy of the header, which is fed first.
  uint8_t header[19];
  std::span<const uint8_t> pending;  // repaired header still to feed
  size_t pos = 0;
  if (opt.lz4_kafka_legacy_checksum) {
    if (const size_t hs = Lz4HeaderSize(in); hs > 0) {
      using compression_internal::XxHash32;
      const uint8_t good = static_cast<uint8_t>(XxHash32(in.data() + 4, hs - 5, 0) >> 8);
      const uint8_t kafka = static_cast<uint8_t>(XxHash32(in.data(), hs - 1, 0) >> 8);
      if (in[hs - 1] != good && in[hs - 1] == kafka) {
        std::memcpy(header, in.data(), hs);
        header[hs - 1] = good;
        pending = std::span<const uint8_t>(header, hs);
        pos = hs;
      }
    }
  }

  for (;;) {
    if (!out.EnsureRoom()) return CapError(kCodec, pos, opt);
    std::span<const uint8_t> src = pending.empty() ? in.subspan(pos) : pending;
    size_t dst_size = out.room();
    size_t src_size = src.size();
    const size_t hint = LZ4F_decompress(ctx.get(), out.tail(), &dst_size, src.data(), &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      return CodecError(kCodec, pos, LZ4F_getErrorName(hint));
    }
    out.Advance(dst_size);
    if (out.over_cap()) return CapError(kCodec, pos, opt);
    if (!pending.empty()) {
      pending = pending.subspan(src_size);
    } else {
      pos += src_size;
    }
    const bool input_left = pos < in.size() || !pending.empty();
    if (hint == 0) {
      if (!input_left) return {};
      continue;  // another frame follows
    }
    if (!input_left && out.room() > 0) {
      // Everything fed, output not full, frame not finished: truncated.
      return CodecError(kCodec, pos, in.empty() ? "empty input" : "truncated frame");
    }
    if (src_size == 0 && dst_size == 0 && out.room() > 0) {
      return CodecError(kCodec, pos, "no progress");  // defensive; LZ4F always progresses
    }
  }
}

Error Lz4(std::span<const uint8_t> in, int level, std::vector<uint8_t>* out) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  prefs.compressionLevel = level == kDefaultCompressionLevel ? 0 : level;
  const size_t bound = LZ4F_compressFrameBound(in.size(), &prefs);
  const size_t start = out->size();
  out->resize(start + bound);
  const size_t n = LZ4F_compressFrame(out->data() + start, bound, in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) {
    out->resize(start);
    return CodecError(Compression::kLz4, 0, LZ4F_getErrorName(n));
  }
  out->resize(start + n);
  return {};
}

// ---------------------------------------------------------------------------- zstd

Error Unzstd(std::span<const uint8_t> in, const DecompressOptions& opt, std::vector<uint8_t>* v) {
  constexpr Compression kCodec = Compression::kZstd;
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (ctx == nullptr) return CodecError(kCodec, 0, "ZSTD_createDCtx failed");
  // Bound the decoder's window (its own allocation) by the output cap.
  int window_log = 10;
  while (window_log < 31 && (size_t{1} << window_log) < opt.max_output) ++window_log;
  ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, window_log);
  CappedOutput out(v, opt.max_output, in.size());
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  for (;;) {
    if (!out.EnsureRoom()) return CapError(kCodec, src.pos, opt);
    ZSTD_outBuffer dst{out.tail(), out.room(), 0};
    const size_t ret = ZSTD_decompressStream(ctx.get(), &dst, &src);
    if (ZSTD_isError(ret)) {
      if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge) {
        return CodecError(kCodec, src.pos,
                          absl::StrFormat("frame window above 2^%d bytes (raise "
                                          "RecordsOptions::max_decompressed_bytes)",
                                          window_log));
      }
      return CodecError(kCodec, src.pos, ZSTD_getErrorName(ret));
    }
    out.Advance(dst.pos);
    if (out.over_cap()) return CapError(kCodec, src.pos, opt);
    if (ret == 0) {
      if (src.pos == src.size) return {};
      continue;  // another frame follows
    }
    if (src.pos == src.size && dst.pos < dst.size) {
      return CodecError(kCodec, src.pos, in.empty() ? "empty input" : "truncated frame");
    }
  }
}

Error Zstd(std::span<const uint8_t> in, int level, std::vector<uint8_t>* out) {
  const size_t bound = ZSTD_compressBound(in.size());
  const size_t start = out->size();
  out->resize(start + bound);
  const size_t n = ZSTD_compress(out->data() + start, bound, in.data(), in.size(),
                                 level == kDefaultCompressionLevel ? ZSTD_CLEVEL_DEFAULT : level);
  if (ZSTD_isError(n)) {
    out->resize(start);
    return CodecError(Compression::kZstd, 0, ZSTD_getErrorName(n));
  }
  out->resize(start + n);
  return {};
}

}  // namespace

Error Decompress(Compression codec, std::span<const uint8_t> input,
                 const DecompressOptions& options, std::vector<uint8_t>* out) {
  switch (codec) {
    case Compression::kNone:
      out->clear();
      if (input.size() > options.max_output) return CapError(codec, 0, options);
      out->assign(input.begin(), input.end());
      return {};
    case Compression::kGzip: return Gunzip(input, options, out);
    case Compression::kSnappy: return Unsnappy(input, options, out);
    case Compression::kLz4: return Unlz4(input, options, out);
    case Compression::kZstd: return Unzstd(input, options, out);
  }
  out->clear();
  return CodecError(codec, 0, absl::StrFormat("invalid codec %d", static_cast<int>(codec)));
}

Error Compress(Compression codec, std::span<const uint8_t> input, std::vector<uint8_t>* out,
               int level) {
  switch (codec) {
    case Compression::kNone:
      out->insert(out->end(), input.begin(), input.end());
      return {};
    case Compression::kGzip: return Gzip(input, level, out);
    case Compression::kSnappy: return Snappy(input, out);
    case Compression::kLz4: return Lz4(input, level, out);
    case Compression::kZstd: return Zstd(input, level, out);
  }
  return CodecError(codec, 0, absl::StrFormat("invalid codec %d", static_cast<int>(codec)));
}

}  // namespace kwire
