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
#include "absl/strings/string_view.h"

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
    EXPECT_STRNE(ErrorKindName(kind), "unknown_error") << static_cast<int>(kind);
  }
  EXPECT_STREQ(ErrorKindName(static_cast<ErrorKind>(static_cast<int>(kLastKind) + 1)),
               "unknown_error");
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

TEST(ErrorKinds, OneNamePerKindReadBack) {
  // The names are the enumerators in snake_case, the conformance format's kinds.
  EXPECT_STREQ(ErrorKindName(ErrorKind::kOk), "ok");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kCountTooLarge), "count_too_large");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kVarintNonCanonical), "varint_non_canonical");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kTagDuplicate), "tag_duplicate");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kInvalidUtf8), "invalid_utf8");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kStringTooLong), "string_too_long");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kAllocationBudget), "allocation_budget");
  std::vector<std::string> seen;
  for (int k = 0; k <= static_cast<int>(kLastKind); ++k) {
    const ErrorKind kind = static_cast<ErrorKind>(k);
    const std::string name = ErrorKindName(kind);
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << name;
    EXPECT_EQ(ErrorKindFromName(name), kind) << name;
    for (const std::string& other : seen) EXPECT_NE(name, other);
    seen.push_back(name);
  }
  for (const char* not_a_name : {"", "count too large", "Count_Too_Large", "truncated ",
                                 "unknown_error", "kTruncated"}) {
    EXPECT_EQ(ErrorKindFromName(not_a_name), std::nullopt) << not_a_name;
  }
}

TEST(ErrorFromStatus, PayloadFormat) {
  // One line of text: a logged Status shows it as it is.
  const Error e{ErrorKind::kCountTooLarge, 300, "A.B[2].C", "array count 9, need 8, have 3"};
  const absl::Status status = e.ToStatus();
  const auto payload = status.GetPayload(kErrorPayloadTypeUrl);
  ASSERT_TRUE(payload.has_value());
  EXPECT_EQ(std::string(*payload),
            "kind=count_too_large offset=300 path=A.B[2].C detail=array count 9, need 8, have 3");
  EXPECT_EQ(kErrorPayloadTypeUrl, "type.kwire.dev/kwire.Error");
  EXPECT_EQ(status.ToString(),
            "INVALID_ARGUMENT: count_too_large at byte 300 in A.B[2].C (array count 9, need 8, "
            "have 3) [type.kwire.dev/kwire.Error='kind=count_too_large offset=300 path=A.B[2].C "
            "detail=array count 9, need 8, have 3']");
  // Empty path and detail keep their keys.
  EXPECT_EQ(std::string(*Error{ErrorKind::kTruncated, 0, "", ""}.ToStatus().GetPayload(
                kErrorPayloadTypeUrl)),
            "kind=truncated offset=0 path= detail=");
  // A path with a space, '%', a control byte or a non-ASCII byte is escaped, so that the
  // path ends at the first space; the detail is verbatim.
  const Error odd{ErrorKind::kInvalidValue, 7, "a b%c\n\xc3\xa9", "x y\n%"};
  EXPECT_EQ(std::string(*odd.ToStatus().GetPayload(kErrorPayloadTypeUrl)),
            "kind=invalid_value offset=7 path=a%20b%25c%0A%C3%A9 detail=x y\n%");
  EXPECT_EQ(ErrorFromStatus(odd.ToStatus()), odd);
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
  // A payload of the given text on a failing status.
  auto with = [](absl::string_view payload) {
    absl::Status s = absl::InvalidArgumentError("x");
    s.SetPayload(kErrorPayloadTypeUrl, absl::Cord(payload));
    return ErrorFromStatus(s);
  };
  for (const char* bad : {
           "",                                                    // nothing
           "kind=ok offset=0 path= detail=",                      // kOk is never attached
           "kind=unknown_error offset=0 path= detail=",           // not a kind
           "kind=count too large offset=0 path= detail=",         // the old spelling
           "kind=truncated",                                      // no offset
           "kind=truncated offset=",                              // offset cut
           "kind=truncated offset=5",                             // no path
           "kind=truncated offset=5 path=A",                      // no detail key
           "kind=truncated offset=-5 path= detail=",              // sign
           "kind=truncated offset=05 path= detail=",              // leading zero
           "kind=truncated offset=5x path= detail=",              // not a number
           "kind=truncated offset=18446744073709551616 path= detail=",  // 2^64
           "kind=truncated path= offset=5 detail=",               // keys out of order
           "kind=truncated  offset=5 path= detail=",              // two spaces
           "kind=truncated offset=5 path=a%2 detail=",            // escape cut
           "kind=truncated offset=5 path=a%zz detail=",           // not hex
           "kind=truncated offset=5 path=a%2e detail=",           // lower-case hex
           "kind=truncated offset=5 path=a%41 detail=",           // 'A' need not be escaped
           "kind=truncated offset=5 path=a\tb detail=",           // unescaped control byte
           "offset=5 kind=truncated path= detail=",               // no kind first
       }) {
    EXPECT_EQ(with(bad), std::nullopt) << bad;
  }
  // The same shapes well-formed.
  EXPECT_EQ(with("kind=truncated offset=5 path=abc detail="),
            (Error{ErrorKind::kTruncated, 5, "abc", ""}));
  EXPECT_EQ(with("kind=truncated offset=0 path= detail=def ghi"),
            (Error{ErrorKind::kTruncated, 0, "", "def ghi"}));
  EXPECT_EQ(with("kind=allocation_budget offset=18446744073709551615 path=a%20b detail= path=x"),
            (Error{ErrorKind::kAllocationBudget, std::numeric_limits<size_t>::max(), "a b",
                   " path=x"}));
}

}  // namespace
}  // namespace kwire
