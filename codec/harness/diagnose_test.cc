// Decode errors that name the fault (issue 35 item 2): the length or count a failure is
// in, and the hints of codec/harness/diagnose.h — one test per kind of fault: a string
// length (int16 and compact), a bytes length (int32 and compact), an array count (int32
// and compact), a size prefix off by ±1 / ±3 (alone and in a stream), a response read at
// the wrong version, a request whose header names the wrong version; and the explain
// rows and byte map of a failure.
#include "codec/harness/diagnose.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/generated/metadata_request.h"
#include "codec/generated/metadata_response.h"
#include "codec/generated/sasl_authenticate_response.h"
#include "codec/harness/explain.h"
#include "codec/protocol/frame.h"
#include "codec/wire/hex.h"

namespace kwire {
namespace {

using Bytes = std::vector<uint8_t>;
using Kind = DecodeHint::Kind;
using metadata_response_types::MetadataResponseBroker;
using metadata_response_types::MetadataResponsePartition;
using metadata_response_types::MetadataResponseTopic;

// A MetadataResponse with one broker and one topic "my-topic" of five partitions whose
// leader is -1 (ff ff ff ff: bytes that are not UTF-8 follow the topic's name).
MetadataResponse Metadata() {
  MetadataResponse m;
  MetadataResponseBroker b;
  b.node_id = 1;
  b.host = "h";
  b.port = 9092;
  m.brokers = {b};
  m.controller_id = 1;
  MetadataResponseTopic t;
  t.name = "my-topic";
  MetadataResponsePartition p;
  p.leader_id = -1;
  p.replica_nodes = {1, 2, 3};
  p.isr_nodes = {1};
  t.partitions = {p, p, p, p, p};
  for (int i = 0; i < 5; ++i) t.partitions[i].partition_index = i;
  m.topics = {t};
  return m;
}

Bytes ResponseFrame(int16_t version, const MetadataResponse& m) {
  ResponseHeader h;
  h.correlation_id = 7;
  Writer w;
  EXPECT_TRUE(AppendResponseFrame(h, version, m, &w).ok());
  return w.Release();
}

// The offset of `what` in `b` (its first occurrence).
size_t Find(const Bytes& b, std::string_view what) {
  const auto it = std::search(b.begin(), b.end(), what.begin(), what.end());
  EXPECT_NE(it, b.end()) << what;
  return static_cast<size_t>(it - b.begin());
}

std::string MetadataError(const Bytes& frame, int16_t version) {
  return std::string(DecodeResponseFrame(frame, 3, version).status().message());
}

// The error as kwire decode / explain print it: with the count of the array element the
// failure is in (ErrorInContext).
std::string InContext(const Bytes& frame, int16_t api_key, int16_t version) {
  return ErrorInContext(ExplainResponseFrame(frame, api_key, version)).ToString();
}

std::vector<std::string> Texts(const std::vector<DecodeHint>& hints) {
  std::vector<std::string> out;
  for (const DecodeHint& h : hints) out.push_back(h.text);
  return out;
}

// v1, non-flexible: size 0, correlation id 4, Brokers 8 (count) .. 24, ControllerId 25,
// Topics count 29, Topics[0] 33: ErrorCode 33, Name 35 (int16 8) "my-topic" 37..44,
// IsInternal 45, Partitions 46 (count 5), Partitions[0] 50 (LeaderId ff ff ff ff at 56),
// five partitions of 34 bytes: 220 bytes.
TEST(DecodeErrorContext, StringLengthInt16) {
  Bytes f = ResponseFrame(1, Metadata());
  ASSERT_EQ(f.size(), 220u);
  ASSERT_TRUE(DecodeResponseFrame(f, 3, 1).ok());
  ASSERT_EQ(Find(f, "my-topic"), 37u);
  f[36] = 127;  // the int16 length at 35: 8 -> 127
  EXPECT_EQ(MetadataError(f, 1),
            "invalid_utf8 at byte 56 in MetadataResponse.Topics[0].Name (byte 0xff cannot "
            "start a sequence; string of length 127 read at byte 35, ends at byte 164)");
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(f, 3, 1);
  ASSERT_EQ(hints.size(), 1u) << testing::PrintToString(Texts(hints));
  EXPECT_EQ(hints[0].kind, Kind::kLength);
  EXPECT_EQ(hints[0].offset, 35u);
  EXPECT_EQ(hints[0].path, "MetadataResponse.Topics[0].Name");
  EXPECT_EQ(hints[0].read, 127);
  EXPECT_EQ(hints[0].decodes_with, std::vector<int64_t>{8});
  EXPECT_EQ(hints[0].text,
            "the string length at byte 35 (MetadataResponse.Topics[0].Name) reads 127, running "
            "to byte 164; with 8 there the frame decodes cleanly");
  EXPECT_EQ(RenderHints(hints), "hint: " + hints[0].text + "\n");
}

// The same topic name's length past the end of the frame: the error is at the length
// (it was already), the hint gives the length that reads.
// A string length made longer (FindCoordinator v4 request, CoordinatorKeys[0]'s compact
// length at byte 22: 10 -> 12) misplaces the next key's length, which then reads 48 at
// byte 35 from the data. Both lengths have a value with which the frame decodes; the
// earlier one, the fault, is the first hint (the new user's stumble: the symptom came
// first).
TEST(DecodeHints, TheEarliestLengthThatFixesTheFrameComesFirst) {
  Bytes f;
  ASSERT_TRUE(ParseHex("00000029000a0004000000010005e4b8ad7569004c030d6e756c00696e736964650b"
                       "3531316279397363396600",
                       f));
  const std::vector<DecodeHint> hints = DiagnoseRequestFrame(f);
  ASSERT_EQ(hints.size(), 2u) << testing::PrintToString(Texts(hints));
  EXPECT_EQ(hints[0].kind, Kind::kLength);
  EXPECT_EQ(hints[0].offset, 22u);
  EXPECT_EQ(hints[0].read, 12);
  EXPECT_EQ(hints[0].decodes_with, std::vector<int64_t>{10});
  EXPECT_EQ(hints[1].offset, 35u);
  EXPECT_EQ(hints[1].read, 48);
}

TEST(DecodeErrorContext, StringLengthPastTheFrame) {
  Bytes f = ResponseFrame(1, Metadata());
  f[35] = 0x01;  // 8 -> 264: 37 + 264 = 301 > 220
  EXPECT_EQ(MetadataError(f, 1),
            "truncated at byte 35 in MetadataResponse.Topics[0].Name (string of 264 bytes, have "
            "183)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(f, 3, 1)),
            std::vector<std::string>{
                "the string length at byte 35 (MetadataResponse.Topics[0].Name) reads 264, "
                "running to byte 301, past the end of the frame (byte 220); with 8 there the "
                "frame decodes cleanly"});
}

TEST(DecodeErrorContext, CompactStringLength) {
  Bytes f = ResponseFrame(9, Metadata());
  ASSERT_TRUE(DecodeResponseFrame(f, 3, 9).ok());
  const size_t at = Find(f, "my-topic") - 1;  // uvarint 9 (length 8 + 1)
  ASSERT_EQ(at, 34u);
  ASSERT_EQ(f[at], 9);
  f[at] = 0x7f;  // length 126
  EXPECT_EQ(MetadataError(f, 9),
            "invalid_utf8 at byte 51 in MetadataResponse.Topics[0].Name (byte 0xff cannot "
            "start a sequence; string of length 126 read at byte 34 (compact, uvarint 127), "
            "ends at byte 161)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(f, 3, 9)),
            std::vector<std::string>{
                "the string length at byte 34 (MetadataResponse.Topics[0].Name) reads 126 "
                "(uvarint 127 on the wire: compact, n+1), running to byte 161; with 8 (uvarint "
                "9) there the frame decodes cleanly"});
}

// SaslAuthenticateResponse v1: size 0, correlation id 4, ErrorCode 8, ErrorMessage 10
// (int16 -1: null), AuthBytes 12 (int32 4) "abcd" 16..19, SessionLifetimeMs 20..27.
Bytes SaslFrame(int16_t version) {
  SaslAuthenticateResponse m;
  m.error_message.reset();
  m.auth_bytes = "abcd";
  m.session_lifetime_ms = 1;
  ResponseHeader h;
  h.correlation_id = 7;
  Writer w;
  EXPECT_TRUE(AppendResponseFrame(h, version, m, &w).ok());
  return w.Release();
}

std::string SaslError(const Bytes& frame, int16_t version) {
  return std::string(DecodeResponseFrame(frame, 36, version).status().message());
}

TEST(DecodeErrorContext, BytesLengthInt32) {
  Bytes f = SaslFrame(1);
  ASSERT_EQ(f.size(), 28u);
  ASSERT_EQ(Find(f, "abcd"), 16u);
  // Too short: the value ends early, SessionLifetimeMs takes 8 bytes from byte 18, and
  // two bytes are left over.
  Bytes shorter = f;
  shorter[15] = 2;
  EXPECT_EQ(SaslError(shorter, 1),
            "trailing_bytes at byte 26 (2 bytes after the response body)");
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(shorter, 36, 1);
  EXPECT_EQ(Texts(hints),
            (std::vector<std::string>{
                "the size prefix at byte 0 reads 24; with 22 (2 less: the frame ends 2 bytes "
                "earlier, where the next one would start) the frame decodes cleanly",
                "the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) reads 2, "
                "running to byte 18; with 4 there the frame decodes cleanly"}));
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints[0].kind, Kind::kSizePrefix);
  EXPECT_EQ(hints[0].decodes_with, std::vector<int64_t>{22});
  EXPECT_EQ(hints[1].kind, Kind::kLength);
  EXPECT_EQ(hints[1].offset, 12u);
  EXPECT_EQ(hints[1].read, 2);
  // Too long: past the end of the frame.
  Bytes longer = f;
  longer[15] = 20;
  EXPECT_EQ(SaslError(longer, 1),
            "truncated at byte 12 in SaslAuthenticateResponse.AuthBytes (bytes of 20 bytes, "
            "have 12)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(longer, 36, 1)),
            std::vector<std::string>{
                "the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) reads 20, "
                "running to byte 36, past the end of the frame (byte 28); with 4 there the "
                "frame decodes cleanly"});
}

// v2, flexible: correlation id 4, header tags 8, ErrorCode 9, ErrorMessage 11 (compact
// null: 0), AuthBytes 12 (uvarint 5) "abcd" 13..16, SessionLifetimeMs 17..24, tags 25.
TEST(DecodeErrorContext, CompactBytesLength) {
  Bytes f = SaslFrame(2);
  ASSERT_EQ(f.size(), 26u);
  ASSERT_EQ(f[12], 5);
  f[12] = 0x7f;  // length 126
  EXPECT_EQ(SaslError(f, 2),
            "truncated at byte 12 in SaslAuthenticateResponse.AuthBytes (bytes of 126 bytes, "
            "have 13)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(f, 36, 2)),
            std::vector<std::string>{
                "the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) reads 126 "
                "(uvarint 127 on the wire: compact, n+1), running to byte 139, past the end of "
                "the frame (byte 26); with 4 (uvarint 5) there the frame decodes cleanly"});
}

TEST(DecodeErrorContext, ArrayCountInt32) {
  Bytes f = ResponseFrame(1, Metadata());
  ASSERT_EQ(f[32], 1);  // Topics: int32 count 1 at 29
  f[32] = 2;
  // Topics[0]'s arrays are bounded by the bytes left minus what a second topic needs: the
  // decoder stops inside the first topic, and the hint finds the count.
  EXPECT_EQ(MetadataError(f, 1),
            "count_too_large at byte 196 in MetadataResponse.Topics[0].Partitions[4].ReplicaNodes "
            "(array count 3, but 11 bytes left (9 more are needed by the enclosing arrays) hold "
            "at most 2 elements of >= 4 bytes)");
  EXPECT_EQ(InContext(f, 3, 1),
            "count_too_large at byte 196 in MetadataResponse.Topics[0].Partitions[4].ReplicaNodes "
            "(array count 3, but 11 bytes left (9 more are needed by the enclosing arrays) hold "
            "at most 2 elements of >= 4 bytes; in element 4 of Partitions, an array of count 5 read "
            "at byte 46)");
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(f, 3, 1);
  EXPECT_EQ(Texts(hints), std::vector<std::string>{
                              "the array count at byte 29 (MetadataResponse.Topics) reads 2; "
                              "with 1 there the frame decodes cleanly"});
  // A nested count: Partitions (int32 5 at 46) -> 6.
  Bytes nested = ResponseFrame(1, Metadata());
  nested[49] = 6;
  EXPECT_EQ(InContext(nested, 3, 1),
            "count_too_large at byte 178 in MetadataResponse.Topics[0].Partitions[3].IsrNodes "
            "(array count 1, but 2 bytes left (36 more are needed by the enclosing arrays) hold "
            "at most 0 elements of >= 4 bytes; in element 3 of Partitions, an array of count 6 read "
            "at byte 46)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(nested, 3, 1)),
            std::vector<std::string>{
                "the array count at byte 46 (MetadataResponse.Topics[0].Partitions) reads 6; "
                "with 5 there the frame decodes cleanly"});
}

TEST(DecodeErrorContext, CompactArrayCount) {
  Bytes f = ResponseFrame(9, Metadata());
  const size_t at = Find(f, "my-topic") - 4;  // ErrorCode (2 bytes) after the count
  ASSERT_EQ(at, 31u);
  ASSERT_EQ(f[at], 2);  // uvarint 2: one topic
  f[at] = 3;
  EXPECT_EQ(InContext(f, 3, 9),
            "unexpected_null at byte 222 in MetadataResponse.Topics[1].Name (null string in a "
            "non-nullable field; in element 1 of Topics, an array of count 2 read at byte 31 "
            "(compact, uvarint 3))");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(f, 3, 9)),
            std::vector<std::string>{
                "the array count at byte 31 (MetadataResponse.Topics) reads 2 (uvarint 3 on the "
                "wire: compact, n+1); with 1 (uvarint 2) there the frame decodes cleanly"});
}

// The size prefix of a whole frame against the bytes there are: 1 too large, 3 too small.
TEST(DecodeHints, SizePrefixOfAWholeFrame) {
  const Bytes f = ResponseFrame(1, Metadata());  // size 216
  Bytes plus1 = f;
  plus1[3] = 217 % 256;
  EXPECT_EQ(MetadataError(plus1, 1),
            "truncated at byte 0 in Frame.size (size prefix says 217 bytes follow, have 216)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(plus1, 3, 1)),
            std::vector<std::string>{
                "the size prefix at byte 0 reads 217, but 216 bytes follow; with 216 (1 less) "
                "the frame decodes cleanly"});
  Bytes minus3 = f;
  minus3[3] = 213;
  EXPECT_EQ(MetadataError(minus3, 1),
            "trailing_bytes at byte 0 in Frame.size (size prefix says 213 bytes follow, have "
            "216)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(minus3, 3, 1)),
            std::vector<std::string>{
                "the size prefix at byte 0 reads 213, but 216 bytes follow; with 216 (3 more) "
                "the frame decodes cleanly"});
}

// In a stream the size prefix decides where a frame ends: one too small cuts the frame a
// byte short (the byte is in `following`), three too large takes three bytes of the next.
TEST(DecodeHints, SizePrefixInAStream) {
  const Bytes f = ResponseFrame(1, Metadata());
  Bytes stream = f;
  stream.insert(stream.end(), f.begin(), f.end());  // two frames back to back
  Bytes cut(stream.begin(), stream.begin() + 219);  // size 215: the first frame cut short
  cut[3] = 215;
  DiagnoseOptions d;
  d.following = std::span<const uint8_t>(stream).subspan(219);
  EXPECT_EQ(MetadataError(cut, 1),
            "count_too_large at byte 212 in MetadataResponse.Topics[0].Partitions[4].IsrNodes "
            "(array count 1, but 3 bytes left hold at most 0 elements of >= 4 bytes)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(cut, 3, 1, {}, d)),
            std::vector<std::string>{
                "the size prefix at byte 0 reads 215; with 216 (1 more: the next 1 byte of the "
                "stream) the frame decodes cleanly"});
  Bytes over(stream.begin(), stream.begin() + 223);  // size 219: 3 bytes of the next frame
  over[3] = 219;
  d.following = std::span<const uint8_t>(stream).subspan(223);
  EXPECT_EQ(MetadataError(over, 1),
            "trailing_bytes at byte 220 (3 bytes after the response body)");
  EXPECT_EQ(Texts(DiagnoseResponseFrame(over, 3, 1, {}, d)),
            std::vector<std::string>{
                "the size prefix at byte 0 reads 219; with 216 (3 less: the frame ends 3 bytes "
                "earlier, where the next one would start) the frame decodes cleanly"});
}

// A frame cut short after it was framed (its size prefix made to match the bytes left, as
// a capture that stopped does): the error is near the end; zeros appended complete it.
TEST(DecodeHints, AFrameCutShortWithItsSizePrefixToMatch) {
  const Bytes f = ResponseFrame(1, Metadata());  // size 216
  Bytes cut(f.begin(), f.end() - 3);               // the last IsrNodes element loses 3 bytes
  cut[3] = 213;
  EXPECT_EQ(MetadataError(cut, 1),
            "count_too_large at byte 212 in MetadataResponse.Topics[0].Partitions[4].IsrNodes "
            "(array count 1, but 1 byte left holds at most 0 elements of >= 4 bytes)");
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(cut, 3, 1);
  ASSERT_FALSE(hints.empty());
  EXPECT_EQ(hints[0].kind, Kind::kCutShort);
  EXPECT_EQ(hints[0].offset, 217u);
  EXPECT_EQ(hints[0].decodes_with, std::vector<int64_t>{216});
  EXPECT_EQ(hints[0].text,
            "the frame may be cut short: its size prefix (213) counts the bytes there are, and "
            "with 3 bytes more at its end (zeros were tried) and 216 in the prefix it decodes "
            "cleanly (a capture that stopped, or a writer that framed bytes it did not send)");
  // In a stream (bytes follow) the size prefix hints say where the frame ends instead.
  DiagnoseOptions d;
  const Bytes next = f;
  d.following = next;
  for (const DecodeHint& h : DiagnoseResponseFrame(cut, 3, 1, {}, d)) {
    EXPECT_NE(h.kind, Kind::kCutShort) << h.text;
  }
  // A frame that decodes gets no hint.
  EXPECT_TRUE(DiagnoseResponseFrame(f, 3, 1).empty());
}

TEST(DecodeHints, ResponseAtTheWrongVersion) {
  const Bytes f = ResponseFrame(1, Metadata());
  EXPECT_EQ(MetadataError(f, 0),
            "invalid_length at byte 23 in MetadataResponse.Topics (array length -65536 (only -1 "
            "means null))");
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(f, 3, 0);
  ASSERT_FALSE(hints.empty());
  EXPECT_EQ(hints[0].kind, Kind::kVersion);
  EXPECT_EQ(hints[0].decodes_with, std::vector<int64_t>{1});
  EXPECT_EQ(hints[0].text,
            "the frame decodes cleanly as MetadataResponse v1, not v0: was the request another "
            "version?");
  EXPECT_EQ(ResponseVersionsThatDecode(f, 3), std::vector<int16_t>{1});
  EXPECT_EQ(ResponseVersionsThatDecode(ResponseFrame(9, Metadata()), 3),
            std::vector<int16_t>{9});
  EXPECT_TRUE(ResponseVersionsThatDecode(f, 9999).empty());
  EXPECT_TRUE(DiagnoseResponseFrame(f, 3, 1).empty());  // it decodes: no hint
}

// A request names its version in its header (byte 6): a MetadataRequest v4 frame (v4 adds
// AllowAutoTopicCreation) whose header says v3.
// A response read at a version whose fields run past the frame's end: zeros appended also
// "complete" it, but the version hint (the frame decodes as it is) is the cause, and the
// cut-short guess is not offered beside it (helper-27's stumble 2).
TEST(DecodeHints, NoCutShortGuessBesideAnotherHint) {
  MetadataResponse m = Metadata();
  const Bytes f = ResponseFrame(12, m);
  bool any_at_13 = false;
  const std::vector<DecodeHint> hints = DiagnoseResponseFrame(f, 3, 13);
  for (const DecodeHint& h : hints) {
    EXPECT_NE(h.kind, Kind::kCutShort) << h.text;
    any_at_13 = any_at_13 || h.kind == Kind::kVersion;
  }
  EXPECT_TRUE(any_at_13) << Texts(hints).size();
}

TEST(DecodeHints, RequestWhoseHeaderNamesTheWrongVersion) {
  MetadataRequest m;
  m.topics.emplace();
  const absl::StatusOr<Bytes> v4 = EncodeRequestFrame(4, 7, "c", m);
  ASSERT_TRUE(v4.ok());
  Bytes f = *v4;
  ASSERT_EQ(f[7], 4);
  f[7] = 3;
  EXPECT_EQ(std::string(DecodeRequestFrame(f).status().message()),
            "trailing_bytes at byte 19 (1 byte after the request body)");
  const std::vector<DecodeHint> hints = DiagnoseRequestFrame(f);
  ASSERT_FALSE(hints.empty());
  EXPECT_EQ(hints[0].kind, Kind::kVersion);
  EXPECT_EQ(hints[0].offset, 6u);
  EXPECT_EQ(hints[0].read, 3);
  EXPECT_EQ(hints[0].decodes_with, (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(hints[0].text,
            "the header's request_api_version at byte 6 reads 3; the frame decodes cleanly as "
            "MetadataRequest v4-v7");
  EXPECT_TRUE(DiagnoseRequestFrame(*v4).empty());
}

// kwire explain: the failing string's length row (value on the wire, offset, size) and its
// bytes up to the failure; a failed count's row with its value; the failing byte marked
// in the byte map.
TEST(ExplainFailure, LengthRowsAndTheFailingByte) {
  Bytes f = ResponseFrame(1, Metadata());
  f[36] = 127;
  const FrameExplanation ex = ExplainResponseFrame(f, 3, 1);
  ASSERT_FALSE(ex.status.ok());
  const PrintNode* len = nullptr;
  const PrintNode* name = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.path == "Body.Topics[0].Name.length") len = &n;
    if (n.path == "Body.Topics[0].Name") name = &n;
  }
  ASSERT_NE(len, nullptr);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(len->kind, PrintNode::Kind::kLength);
  EXPECT_EQ(len->offset, 35u);
  EXPECT_EQ(len->size, 2u);
  EXPECT_EQ(len->type, "int16");
  EXPECT_EQ(len->value, "127");
  EXPECT_EQ(len->note, "bytes of the string that follow (to byte 164)");
  EXPECT_FALSE(len->failed);
  EXPECT_TRUE(name->failed);
  EXPECT_EQ(name->value, "\"my-topic\\x00\\x00\\x00\\x00\\x05\\x00\\x00\\x00\\x00\\x00\\x00\"...");
  EXPECT_EQ(name->note,
            "127 bytes from byte 37 to 164 (the length at byte 35); shown up to byte 56, where "
            "decoding failed");
  const std::string text = RenderFrameExplanation(ex);
  EXPECT_NE(text.find("0030   00 05 00 00 00 00 00 00>ff ff ff ff 00 00 00 03   BBBBBBBB!......."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; >! byte 56 (0x0038), where decoding failed\n"), std::string::npos);
  // A count too large: its row holds the count read (the error is about it).
  Bytes count = ResponseFrame(1, Metadata());
  count[29] = 0x7f;  // Topics: 0x7f000001
  const FrameExplanation cx = ExplainResponseFrame(count, 3, 1);
  const PrintNode* topics = nullptr;
  for (const PrintNode& n : cx.nodes) {
    if (n.path == "Body.Topics.length") topics = &n;
  }
  ASSERT_NE(topics, nullptr);
  EXPECT_EQ(topics->value, "2130706433");
  EXPECT_EQ(topics->offset, 29u);
  EXPECT_EQ(topics->size, 4u);
  EXPECT_TRUE(topics->failed);
  // Every string and bytes value gets its row with AddValueLengthRows(ex, true); by
  // default only a failed one (a value read whole says its length in its detail).
  const Bytes good = ResponseFrame(1, Metadata());
  FrameExplanation all = ExplainResponseFrame(good, 3, 1);
  size_t rows_default = 0, rows_all = 0;
  for (const PrintNode& n : all.nodes) {
    rows_default += n.path.ends_with("Name.length") || n.path.ends_with("Host.length");
  }
  AddValueLengthRows(all, true);
  AddValueLengthRows(all, true);  // once: rows are not added twice
  for (const PrintNode& n : all.nodes) {
    rows_all += n.path.ends_with("Name.length") || n.path.ends_with("Host.length");
    if (n.path == "Body.Topics[0].Name.length") {
      EXPECT_EQ(n.offset, 35u);
      EXPECT_EQ(n.size, 2u);
      EXPECT_EQ(n.value, "8");
      EXPECT_EQ(n.note, "bytes of the string that follow (to byte 45)");
    }
  }
  EXPECT_EQ(rows_default, 0u);
  EXPECT_EQ(rows_all, 2u);
}

}  // namespace
}  // namespace kwire
