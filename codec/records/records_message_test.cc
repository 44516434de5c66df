// Records fields inside messages (Produce, Fetch) iterated through the records API and
// re-encoded verbatim; the message code's EmptyRecordBatch(); the printer hook.
#include "codec/generated/fetch_response.h"
#include "codec/generated/produce_request.h"
#include "codec/harness/fill.h"
#include "codec/harness/print_records.h"
#include "codec/protocol/frame.h"
#include "codec/records/record_batch.h"
#include "codec/records/records_test_util.h"
#include "codec/schema/message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kwire {
namespace {

using namespace records_testing;  // NOLINT
using wire_testing::Cat;
using wire_testing::ToHex;

TEST(RecordsInMessages, EmptyRecordBatchMatchesTheRecordsEncoder) {
  EXPECT_EQ(ToHex(Span(EmptyRecordBatch())), ToHex(EmptyBatchBytes()));
  absl::StatusOr<std::string> enc = EncodeRecordBatch(ZeroHeader(), {});
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(*enc, EmptyRecordBatch());
}

// ============================================================== inside messages

TEST(RecordsInMessages, ProduceRequestRecordsIterateAndReencodeVerbatim) {
  std::string field;
  {
    absl::StatusOr<std::string> a = EncodeRecordBatch(Header(Compression::kLz4, 0), SampleRecords());
    absl::StatusOr<std::string> b = EncodeRecordBatch(Header(Compression::kNone, 6), std::vector<Record>{Rec("x", "y")});
    ASSERT_TRUE(a.ok() && b.ok());
    field = *a + *b;
  }
  for (int16_t version : {int16_t{2}, int16_t{3}, int16_t{9}, int16_t{12}}) {
    ProduceRequest req;
    req.acks = -1;
    req.timeout_ms = 30000;
    req.topic_data.emplace_back();
    req.topic_data[0].name = "topic";
    req.topic_data[0].partition_data.emplace_back();
    req.topic_data[0].partition_data[0].records = Records{field};
    absl::StatusOr<std::vector<uint8_t>> frame =
        EncodeRequestFrame(version, 7, std::string("client"), req);
    ASSERT_TRUE(frame.ok()) << frame.status();
    // Two batches in one partition: fine before v3; from v3 on the broker's rule
    // (exactly one batch) fails validation, and an opaque decode keeps them.
    absl::StatusOr<RequestFrame> decoded = DecodeRequestFrame(*frame);
    if (version >= 3) {
      ASSERT_FALSE(decoded.ok());
      EXPECT_THAT(std::string(decoded.status().message()),
                  ::testing::StartsWith("records_not_allowed at byte"));
      FrameOptions opaque;
      opaque.records_mode = RecordsMode::kOpaque;
      decoded = DecodeRequestFrame(*frame, opaque);
    }
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    const ProduceRequest* got = decoded->body.get<ProduceRequest>();
    ASSERT_NE(got, nullptr);
    const Records& records = *got->topic_data[0].partition_data[0].records;
    size_t batches = 0, total = 0;
    BatchIterator it = Batches(records);
    for (const BatchView& b : it) {
      ++batches;
      absl::StatusOr<RecordSet> set = b.records();
      ASSERT_TRUE(set.ok()) << set.status();
      total += set->size();
    }
    EXPECT_EQ(it.state(), BatchIterator::kEnd);
    EXPECT_EQ(batches, 2u);
    EXPECT_EQ(total, SampleRecords().size() + 1);
    // The records field is kept verbatim: the frame re-encodes byte-identically.
    absl::StatusOr<std::vector<uint8_t>> again =
        EncodeRequestFrame(decoded->header, decoded->body);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *frame) << "v" << version;
  }
}

TEST(RecordsInMessages, FetchResponseWithPartialTrailingBatch) {
  const std::string full = *EncodeRecordBatch(Header(Compression::kZstd, 0), SampleRecords());
  const std::string next = *EncodeRecordBatch(Header(Compression::kNone, 6), std::vector<Record>{Rec("x", "y")});
  FetchResponse resp;
  resp.responses.emplace_back();
  resp.responses[0].topic = "t";
  resp.responses[0].partitions.emplace_back();
  resp.responses[0].partitions[0].records = Records{full + next.substr(0, 30)};
  absl::StatusOr<std::vector<uint8_t>> body = EncodeMessage(resp, 11);
  ASSERT_TRUE(body.ok()) << body.status();
  absl::StatusOr<FetchResponse> decoded = DecodeMessage<FetchResponse>(*body, 11);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  BatchIterator it = Batches(*decoded->responses[0].partitions[0].records);
  BatchView v;
  ASSERT_TRUE(it.Next(&v));
  EXPECT_TRUE(v.records().ok());
  EXPECT_FALSE(it.Next(&v));
  EXPECT_EQ(it.state(), BatchIterator::kPartialBatch);
  EXPECT_EQ(it.partial_offset(), full.size());
  EXPECT_EQ(it.partial_have(), 30u);
  EXPECT_EQ(it.partial_need(), next.size());
  absl::StatusOr<std::vector<uint8_t>> again = EncodeMessage(*decoded, 11);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *body);
}

TEST(RecordsExplain, PrintHookTilesThePayload) {
  std::vector<uint8_t> field = Encode(Header(Compression::kNone, 0), {Rec("a", "b"), Rec("c", "d", 1)});
  field = Cat(field, Encode(Header(Compression::kSnappy, 2), {Rec("e", "f")}));
  field = Cat(field, std::span<const uint8_t>(EmptyBatchBytes()).first(30));
  std::vector<PrintNode> nodes;
  // A Fetch response's records: a partial last batch is allowed there.
  constexpr FieldSpec kFetchRecords{"Records", "records", FieldType::kRecords,
                                    FieldType::kRecords, kAllVersions, kAllVersions,
                                    kNoVersions, -1, kAllVersions, false, false,
                                    {RecordsLayout::kPartialTail}};
  const std::string path = "Produce.Records";
  ASSERT_TRUE(PrintRecordBatches(RecordsPrintInput{field, 40, 3, path, kFetchRecords, 11, 0},
                                 nodes));
  size_t at = 40;
  for (const PrintNode& n : nodes) {
    if (n.depth != 3) continue;
    EXPECT_EQ(n.offset, at) << n.label;
    at += n.size;
  }
  EXPECT_EQ(at, 40 + field.size());
  EXPECT_EQ(nodes[0].label, "Batch[0]");
  EXPECT_EQ(nodes[0].kind, PrintNode::Kind::kRecords);
  EXPECT_EQ(nodes[1].path, "Produce.Records.Batch[0].baseOffset");
  EXPECT_EQ(nodes[1].depth, 4);
  // The children of an uncompressed batch's Records node tile its payload.
  size_t records = 0, rec_at = 40 + 61, rec_end = 0;
  for (const PrintNode& n : nodes) {
    if (n.path == "Produce.Records.Batch[0].Records") rec_end = n.offset + n.size;
    if (n.path.rfind("Produce.Records.Batch[0].Records.Record[", 0) == 0 && n.depth == 5) {
      EXPECT_EQ(n.offset, rec_at);
      rec_at += n.size;
      ++records;
    }
  }
  EXPECT_EQ(records, 2u);
  EXPECT_EQ(rec_at, rec_end);
  // The records of the compressed batch have no wire position, and their parent says so.
  for (const PrintNode& n : nodes) {
    if (n.path == "Produce.Records.Batch[1].Records") {
      EXPECT_EQ(n.type, "compressed records");
      EXPECT_EQ(n.note,
                "in the decompressed payload: the rows below have no wire position [offset, 0B]");
    }
    if (n.path.rfind("Produce.Records.Batch[1].Records.", 0) == 0) {
      EXPECT_EQ(n.size, 0u) << n.path;
    }
  }
  // Rows that are not wire fields say so in their type column (issue 35).
  std::vector<std::string> derived;
  for (const PrintNode& n : nodes) {
    if (n.type == "(derived)") derived.push_back(n.path + " = " + n.value);
  }
  EXPECT_THAT(derived,
              testing::ElementsAre(
                  "Produce.Records.Batch[0].compression = none",
                  "Produce.Records.Batch[0].crcCheck = 0x7282fd23 (ok)",
                  "Produce.Records.Batch[0].producer = id 4242, epoch 3, baseSequence 17",
                  "Produce.Records.Batch[1].compression = snappy",
                  "Produce.Records.Batch[1].crcCheck = 0x77ff6949 (ok)",
                  "Produce.Records.Batch[1].producer = id 4242, epoch 3, baseSequence 17"));
}

}  // namespace
}  // namespace kwire
