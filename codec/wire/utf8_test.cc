#include "codec/wire/utf8.h"

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "codec/wire/reader.h"
#include "codec/wire/writer.h"
#include "gtest/gtest.h"

namespace kwire {
namespace {

using namespace std::string_literals;

std::string wire_hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    out += "0123456789abcdef"[c >> 4];
    out += "0123456789abcdef"[c & 15];
  }
  return out;
}

// Index of the first bad byte (or size) through every entry point that must agree.
size_t Find(std::string_view s) {
  const size_t bad = FindInvalidUtf8(s);
  EXPECT_EQ(bad, utf8_internal::FindInvalidUtf8Slow(
                     reinterpret_cast<const uint8_t*>(s.data()), s.size()))
      << "fast and slow checkers disagree";
  EXPECT_EQ(IsValidUtf8(s), bad == s.size());
  EXPECT_EQ(utf8_internal::DfaValid(reinterpret_cast<const uint8_t*>(s.data()), s.size()),
            bad == s.size())
      << "the DFA disagrees";
  return bad;
}

// A naive reference: decodes code points per RFC 3629 section 4's grammar.
size_t ReferenceFind(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t b = p[i];
    size_t len;
    uint32_t cp;
    if (b < 0x80) { ++i; continue; }
    if ((b & 0xe0) == 0xc0) { len = 2; cp = b & 0x1f; }
    else if ((b & 0xf0) == 0xe0) { len = 3; cp = b & 0x0f; }
    else if ((b & 0xf8) == 0xf0) { len = 4; cp = b & 0x07; }
    else return i;
    if (s.size() - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return s.size();
}

TEST(Utf8, AsciiAndEmpty) {
  EXPECT_EQ(Find(""), 0u);
  for (size_t n = 1; n <= 100; ++n) {
    const std::string s(n, 'a');
    EXPECT_EQ(Find(s), n);
    // One bad byte at every position and length: the fast path never skips it.
    for (size_t at = 0; at < n; ++at) {
      std::string t = s;
      t[at] = '\xff';
      EXPECT_EQ(Find(t), at) << "n=" << n << " at=" << at;
    }
  }
  EXPECT_EQ(Find("\x7f"), 1u);                       // U+007F, the last 1-byte value
  EXPECT_EQ(Find("\0\0\0"s), 3u);                    // NUL is a character
}

TEST(Utf8, BoundariesOfEachLength) {
  EXPECT_EQ(Find("\xc2\x80"), 2u);                   // U+0080, first 2-byte
  EXPECT_EQ(Find("\xdf\xbf"), 2u);                   // U+07FF, last 2-byte
  EXPECT_EQ(Find("\xe0\xa0\x80"), 3u);               // U+0800, first 3-byte
  EXPECT_EQ(Find("\xed\x9f\xbf"), 3u);               // U+D7FF, before the surrogates
  EXPECT_EQ(Find("\xee\x80\x80"), 3u);               // U+E000, after them
  EXPECT_EQ(Find("\xef\xbf\xbf"), 3u);               // U+FFFF, last 3-byte
  EXPECT_EQ(Find("\xf0\x90\x80\x80"), 4u);           // U+10000, first 4-byte
  EXPECT_EQ(Find("\xf4\x8f\xbf\xbf"), 4u);           // U+10FFFF, the last code point
  EXPECT_EQ(Find("\xef\xbf\xbd"), 3u);               // U+FFFD
}

TEST(Utf8, IllFormedAtTheirFirstByte) {
  // Overlongs: U+007F in 2 bytes, U+07FF in 3, U+FFFF in 4, '/' as c0 af.
  EXPECT_EQ(Find("\xc1\xbf"), 0u);
  EXPECT_EQ(Find("\xc0\xaf"), 0u);
  EXPECT_EQ(Find("\xc0\x80"), 0u);                   // "modified UTF-8" NUL
  EXPECT_EQ(Find("\xe0\x9f\xbf"), 0u);
  EXPECT_EQ(Find("\xe0\x80\x80"), 0u);
  EXPECT_EQ(Find("\xf0\x8f\xbf\xbf"), 0u);
  EXPECT_EQ(Find("\xf0\x80\x80\x80"), 0u);
  // Surrogates.
  EXPECT_EQ(Find("\xed\xa0\x80"), 0u);               // U+D800
  EXPECT_EQ(Find("\xed\xbf\xbf"), 0u);               // U+DFFF
  EXPECT_EQ(Find("ab\xed\xb0\x80"), 2u);             // U+DC00 after ASCII
  // Above U+10FFFF.
  EXPECT_EQ(Find("\xf4\x90\x80\x80"), 0u);           // U+110000
  for (int b = 0xf5; b <= 0xff; ++b) {               // 4-byte above, 5/6-byte leads, fe ff
    EXPECT_EQ(Find(std::string(1, static_cast<char>(b)) + "\x80\x80\x80"), 0u) << b;
  }
  // Continuation bytes alone.
  EXPECT_EQ(Find("\x80"), 0u);
  EXPECT_EQ(Find("\xbf"), 0u);
  EXPECT_EQ(Find("a\xc3\xa9\x80"), 3u);              // é then a stray continuation
  // Truncated at the end of the string.
  EXPECT_EQ(Find("\xc3"), 0u);
  EXPECT_EQ(Find("ab\xe2\x82"), 2u);
  EXPECT_EQ(Find("abcdefgh\xf0\x9f\x98"), 8u);
  // Cut short by a non-continuation byte.
  EXPECT_EQ(Find("\xe2\x41\x41"), 0u);
  EXPECT_EQ(Find("\xf0\x9f\x98\x41"), 0u);
  // Later in longer text: the offset counts from the string's start.
  EXPECT_EQ(Find("h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac\xe2\x82\xac \xf0\x9f\x98\x80 \xff"), 26u);
}

TEST(Utf8, AgreesWithReferenceOnEveryShortSequence) {
  // Every 1- and 2-byte string, and every 3-byte string whose first byte is ≥ 0xc0
  // after an ASCII/non-ASCII prefix; 4-byte leads with every second byte.
  std::string s;
  for (int a = 0; a < 256; ++a) {
    s.assign(1, static_cast<char>(a));
    ASSERT_EQ(Find(s), ReferenceFind(s)) << a;
    for (int b = 0; b < 256; ++b) {
      s.assign({static_cast<char>(a), static_cast<char>(b)});
      ASSERT_EQ(Find(s), ReferenceFind(s)) << a << " " << b;
      if (a >= 0xe0) {
        for (int c : {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}) {
          const std::string t = s + static_cast<char>(c);
          ASSERT_EQ(Find(t), ReferenceFind(t));
          const std::string u = "0123456" + t + "\x80";
          ASSERT_EQ(Find(u), ReferenceFind(u));
        }
      }
    }
  }
}

TEST(Utf8, AgreesWithReferenceOnRandomText) {
  // Random strings over an alphabet biased to UTF-8 structure (ASCII, continuation
  // bytes, every kind of lead byte), lengths 0..200: every code path, chunk boundary and split point.
  const uint8_t kAlphabet[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
                               0xc0, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf3,
                               0xf4, 0xf5, 0xff};
  const char* const kGood[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "abcdefgh"};
  std::mt19937_64 rng(13);
  for (int iter = 0; iter < 200000; ++iter) {
    std::string s;
    const size_t len = rng() % 201;
    while (s.size() < len) {
      if (rng() % 8 == 0) {
        s += static_cast<char>(kAlphabet[rng() % std::size(kAlphabet)]);
      } else {
        s += kGood[rng() % std::size(kGood)];
      }
    }
    ASSERT_EQ(Find(s), ReferenceFind(s)) << wire_hex(s);
  }
}

TEST(Utf8, Describe) {
  EXPECT_EQ(DescribeInvalidUtf8("\xff", 0), "byte 0xff cannot start a sequence");
  EXPECT_EQ(DescribeInvalidUtf8("\xf5\x80\x80\x80", 0),
            "byte 0xf5 cannot start a sequence (above U+10FFFF)");
  EXPECT_EQ(DescribeInvalidUtf8("\xc0\xaf", 0), "overlong 2-byte encoding (c0 af)");
  EXPECT_EQ(DescribeInvalidUtf8("\xe0\x80\xaf", 0), "overlong 3-byte encoding (e0 80 af)");
  EXPECT_EQ(DescribeInvalidUtf8("\xf0\x80\x80\xaf", 0),
            "overlong 4-byte encoding (f0 80 80 af)");
  EXPECT_EQ(DescribeInvalidUtf8("\xed\xa0\x80", 0), "surrogate U+D800");
  EXPECT_EQ(DescribeInvalidUtf8("x\xed\xbf\xbf", 1), "surrogate U+DFFF");
  EXPECT_EQ(DescribeInvalidUtf8("\xf4\x90\x80\x80", 0), "above U+10FFFF (f4 90 80 80)");
  EXPECT_EQ(DescribeInvalidUtf8("\x80", 0), "continuation byte 0x80 without a lead byte");
  EXPECT_EQ(DescribeInvalidUtf8("ab\xe2\x82", 2),
            "sequence truncated: lead byte 0xe2 needs 3 bytes, the string ends after 2");
  EXPECT_EQ(DescribeInvalidUtf8("\xe2\x41", 0),
            "byte 0x41 after lead byte 0xe2 is not a continuation byte");
}

TEST(Utf8, EscapeForDisplay) {
  EXPECT_EQ(EscapeUtf8ForDisplay("plain"), "plain");
  EXPECT_EQ(EscapeUtf8ForDisplay("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  // well-formed text kept
  EXPECT_EQ(EscapeUtf8ForDisplay("\xff"), "\\xff");
  EXPECT_EQ(EscapeUtf8ForDisplay("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(EscapeUtf8ForDisplay("a\xe2\x82"), "a\\xe2\\x82");
  EXPECT_EQ(EscapeUtf8ForDisplay("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(EscapeUtf8ForDisplay("\n\t\x01\x7f\"\\"), "\\n\\t\\x01\\x7f\\\"\\\\");
  EXPECT_EQ(EscapeUtf8ForDisplay("\xc2\x85"), "\\u0085");  // C1 control (NEL)
  EXPECT_EQ(EscapeUtf8ForDisplay("\x1b[31m"), "\\x1b[31m");  // no terminal escapes
  const std::string escaped = EscapeUtf8ForDisplay("\xc3\xa9\xff\xc3");
  EXPECT_TRUE(IsValidUtf8(escaped)) << escaped;
}

// ---- Reader::ReadUtf8 and Writer::CheckUtf8.

TEST(Utf8, ReaderReportsAbsoluteOffsetAndPath) {
  const std::string in = "ab\xc3\xa9" "cd\xff" "ef";
  PathNode node{nullptr, "Foo.Name", -1};
  Reader r(reinterpret_cast<const uint8_t*>(in.data()), in.size(), /*base_offset=*/100);
  r.set_path(&node);
  EXPECT_EQ(r.ReadUtf8(2), "ab");
  EXPECT_EQ(r.ReadUtf8(in.size() - 2), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidUtf8);
  EXPECT_EQ(r.error().offset, 106u);
  EXPECT_EQ(r.error().ToString(),
            "invalid_utf8 at byte 106 in Foo.Name (byte 0xff cannot start a sequence)");
  EXPECT_EQ(r.remaining(), 0u);
}

// The detail names the length that sized the string and where it was read, from the bytes
// before the value: an int16 length or a compact uvarint n+1 (issue 35); nothing when
// neither precedes it (above: "ab" is no length of 7).
struct BytesReader {
  explicit BytesReader(std::vector<uint8_t> b, size_t base = 0)
      : bytes(std::move(b)), r(bytes.data(), bytes.size(), base) {}
  std::vector<uint8_t> bytes;
  Reader r;
};

TEST(Utf8, ReaderNamesTheLengthBeforeTheValue) {
  BytesReader classic({0x00, 0x00, 0x03, 0x61, 0xff, 0x62}, 40);
  classic.r.Skip(1);
  ASSERT_EQ(classic.r.ReadStringLength(false, false), 3);
  EXPECT_EQ(classic.r.ReadUtf8(3), "");
  EXPECT_EQ(classic.r.error().kind, ErrorKind::kInvalidUtf8);
  EXPECT_EQ(classic.r.error().offset, 44u);
  EXPECT_EQ(classic.r.error().ToString(),
            "invalid_utf8 at byte 44 (byte 0xff cannot start a sequence; string of length 3 "
            "read at byte 41, ends at byte 46)");
  BytesReader compact({0x04, 0x61, 0x62, 0xff});
  ASSERT_EQ(compact.r.ReadStringLength(true, true), 3);
  EXPECT_EQ(compact.r.ReadUtf8(3), "");
  EXPECT_EQ(compact.r.error().ToString(),
            "invalid_utf8 at byte 3 (byte 0xff cannot start a sequence; string of length 3 read "
            "at byte 0 (compact, uvarint 4), ends at byte 4)");
  // A two-byte uvarint (length 200: uvarint 201 = c9 01).
  std::vector<uint8_t> long_one = {0xc9, 0x01};
  long_one.resize(2 + 200, 'a');
  long_one[2 + 150] = 0xc0;
  BytesReader two(long_one);
  ASSERT_EQ(two.r.ReadStringLength(true, false), 200);
  EXPECT_EQ(two.r.ReadUtf8(200), "");
  EXPECT_EQ(two.r.error().offset, 152u);
  EXPECT_TRUE(two.r.error().detail.ends_with(
      "; string of length 200 read at byte 0 (compact, uvarint 201), ends at byte 202"))
      << two.r.error().detail;
}

TEST(Utf8, ReaderQuirkKeepsTheBytes) {
  const std::string in = "\xc0\xaf";
  Reader r(reinterpret_cast<const uint8_t*>(in.data()), in.size(), 0,
           DecodeOptions{kQuirkInvalidUtf8});
  EXPECT_EQ(r.ReadUtf8(2), in);
  EXPECT_TRUE(r.ok());
  EXPECT_NE(kQuirksJava & kQuirkInvalidUtf8, 0u);
}

TEST(Utf8, ReaderTruncatedIsNotUtf8Error) {
  const std::string in = "\xff";
  Reader r(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  EXPECT_EQ(r.ReadUtf8(2), "");
  EXPECT_EQ(r.error().kind, ErrorKind::kTruncated);
}

TEST(Utf8, WriterRefusesUnlessAllowed) {
  Writer w;
  w.WriteInt16(7);
  PathNode node{nullptr, "Foo.Name", -1};
  w.set_path(&node);
  EXPECT_TRUE(w.CheckUtf8("ok \xe2\x82\xac"));
  EXPECT_FALSE(w.CheckUtf8("ab\xed\xa0\x80"));
  EXPECT_EQ(w.error().kind, ErrorKind::kInvalidUtf8);
  EXPECT_EQ(w.error().ToString(),
            "invalid_utf8 at byte 2 in Foo.Name (string of 5 bytes, byte 2 of it: surrogate "
            "U+D800)");
  EXPECT_EQ(w.error().ToStatus().code(), absl::StatusCode::kInvalidArgument);

  Writer lenient;
  lenient.set_options(EncodeOptions{kQuirksJava});
  EXPECT_TRUE(lenient.CheckUtf8("ab\xed\xa0\x80"));
  lenient.Clear();  // options survive Clear
  EXPECT_TRUE(lenient.CheckUtf8("\xff"));
  EXPECT_TRUE(lenient.ok());
}

}  // namespace
}  // namespace kwire
