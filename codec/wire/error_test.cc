// Errors as data: the Error attached to a Status by Error::ToStatus and read back by
// ErrorFromStatus — every ErrorKind, edge offsets, the payload's wire format, and the
// statuses ErrorFromStatus must refuse. Real decode failures read through the function
// are in codec/protocol/frame_test.cc (ErrorsAsData).
#include "codec/wire/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/cord.h"

namespace kwire {
namespace {

constexpr ErrorKind kLastKind = ErrorKind::kAllocationBudget;

// Every kind but kOk: 1 .. kLastKind.
std::vector<ErrorKind> AllKinds() {
  std::vector<ErrorKind> kinds;
  for (int k = 1; k <= static_cast<int>(kLastKind); ++k) kinds.push_back(static_cast<ErrorKind>(k));
  return kinds;
}

TEST(ErrorKinds, TheListEndsAtTheLastKind) {
  // Every value up to kLastKind is a named kind and the next one is not: a kind added
  // after kAllocationBudget must move kLastKind (here and in error.cc).
  for (ErrorKind kind : AllKinds()) {
    EXPECT_STRNE(ErrorKindName(kind), "unknown error") << static_cast<int>(kind);
  }
  EXPECT_STREQ(ErrorKindName(static_cast<ErrorKind>(static_cast<int>(kLastKind) + 1)),
               "unknown error");
}

TEST(ErrorFromStatus, EveryKindRoundTrips) {
  const size_t offsets[] = {0, 1, 127, 128, 16383, 16384, uint64_t{1} << 32,
                            std::numeric_limits<size_t>::max()};
  for (ErrorKind kind : AllKinds()) {
    SCOPED_TRACE(ErrorKindName(kind));
    for (size_t offset : offsets) {
      for (const Error& e : {Error{kind, offset, "", ""},
                             Error{kind, offset, "FetchRequest.Topics[0].Partitions[2].FetchOffset",
                                   "need 8, have 3"},
                             Error{kind, offset, std::string(300, 'p'), std::string(1, '\0')}}) {
        const absl::Status s = e.ToStatus();
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), ErrorKindStatusCode(kind));
        EXPECT_EQ(s.message(), e.ToString());
        const std::optional<Error> back = ErrorFromStatus(s);
        ASSERT_TRUE(back.has_value()) << s;
        EXPECT_EQ(*back, e) << back->ToString();
        // Through a StatusOr, and a copy, the payload stays.
        const absl::StatusOr<int> wrapped = s;
        EXPECT_EQ(ErrorFromStatus(wrapped.status()), e);
      }
    }
  }
}

TEST(ErrorFromStatus, PayloadFormat) {
  // kind byte, LEB128 offset, LEB128 path length, path, detail: 1 + 2 + 1 + 3 + 14 bytes.
  const Error e{ErrorKind::kTruncated, 300, "A.B", "need 8, have 3"};
  const auto payload = e.ToStatus().GetPayload(kErrorPayloadTypeUrl);
  ASSERT_TRUE(payload.has_value());
  std::string expected;
  expected.push_back(static_cast<char>(ErrorKind::kTruncated));
  expected += "\xac\x02";  // 300 = 0b10'0101100
  expected += "\x03" "A.B" "need 8, have 3";
  EXPECT_EQ(std::string(*payload), expected);
  EXPECT_EQ(kErrorPayloadTypeUrl, "type.kwire.dev/kwire.Error");
}

TEST(ErrorFromStatus, OkAndForeignStatusesHaveNoError) {
  EXPECT_EQ(Error{}.ToStatus(), absl::OkStatus());
  EXPECT_EQ(ErrorFromStatus(absl::OkStatus()), std::nullopt);
  EXPECT_EQ(ErrorFromStatus(Error{}.ToStatus()), std::nullopt);
  // A status with the same code and message but not made by ToStatus.
  const Error e{ErrorKind::kTruncated, 17, "A", "need 8, have 3"};
  EXPECT_EQ(ErrorFromStatus(absl::InvalidArgumentError(e.ToString())), std::nullopt);
  // An ok status ignores payloads (absl drops them), so it never yields an Error.
  absl::Status ok = absl::OkStatus();
  ok.SetPayload(kErrorPayloadTypeUrl, *e.ToStatus().GetPayload(kErrorPayloadTypeUrl));
  EXPECT_EQ(ErrorFromStatus(ok), std::nullopt);
}

TEST(ErrorFromStatus, PayloadOnAnotherStatusIsRead) {
  // A caller that re-wraps the status (another code, more context) and keeps the payload.
  const Error e{ErrorKind::kCrcMismatch, 70, "X.Records.Batch[0]", "stored 1, computed 2"};
  absl::Status wrapped(absl::StatusCode::kInternal, "while forwarding: " + e.ToString());
  wrapped.SetPayload(kErrorPayloadTypeUrl, *e.ToStatus().GetPayload(kErrorPayloadTypeUrl));
  EXPECT_EQ(ErrorFromStatus(wrapped), e);
}

TEST(ErrorFromStatus, MalformedPayloadsAreRefused) {
  // A payload of the given bytes (each 0..255) on a failing status.
  auto with = [](std::initializer_list<int> bytes, std::string tail = "") {
    std::string payload;
    for (int b : bytes) payload.push_back(static_cast<char>(b));
    payload += tail;
    absl::Status s = absl::InvalidArgumentError("x");
    s.SetPayload(kErrorPayloadTypeUrl, absl::Cord(payload));
    return ErrorFromStatus(s);
  };
  const int truncated = static_cast<int>(ErrorKind::kTruncated);
  const int last = static_cast<int>(kLastKind);
  EXPECT_EQ(with({}), std::nullopt);                          // no kind
  EXPECT_EQ(with({0, 0, 0}), std::nullopt);                   // kOk
  EXPECT_EQ(with({last + 1, 0, 0}), std::nullopt);            // unknown kind
  EXPECT_EQ(with({255, 0, 0}), std::nullopt);                 // unknown kind
  EXPECT_EQ(with({truncated}), std::nullopt);                 // no offset
  EXPECT_EQ(with({truncated, 0x80}), std::nullopt);           // offset cut
  EXPECT_EQ(with({truncated, 5}), std::nullopt);              // no path length
  EXPECT_EQ(with({truncated, 5, 4}, "abc"), std::nullopt);    // path cut
  // An offset of 11 bytes; a 10th byte above 1 (a value beyond 64 bits).
  EXPECT_EQ(with({truncated, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0}),
            std::nullopt);
  EXPECT_EQ(with({truncated, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0}),
            std::nullopt);
  // The same shapes well-formed.
  EXPECT_EQ(with({truncated, 5, 3}, "abc"), (Error{ErrorKind::kTruncated, 5, "abc", ""}));
  EXPECT_EQ(with({truncated, 5, 3}, "abcdef"), (Error{ErrorKind::kTruncated, 5, "abc", "def"}));
  EXPECT_EQ(with({last, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0}),
            (Error{kLastKind, 0, "", ""}));  // overlong but within 10 bytes: accepted
  EXPECT_EQ(with({truncated, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0}),
            (Error{ErrorKind::kTruncated, std::numeric_limits<size_t>::max(), "", ""}));
}

}  // namespace
}  // namespace kwire
