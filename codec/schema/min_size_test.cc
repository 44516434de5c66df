// Minimum wire sizes (codec/schema/min_size.h) and the named defaults of FieldSpec and
// MessageSpec (codec/schema/spec.h) that generated rows leave out.
#include "codec/schema/min_size.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "codec/generated/fetch_request.h"
#include "codec/generated/heartbeat_request.h"
#include "codec/generated/metadata_request.h"
#include "codec/schema/spec.h"

namespace kwire {
namespace {

VersionRule At(int16_t version, bool flexible) { return VersionRule{version, flexible}; }

TEST(StructMinSize, HeartbeatRequestByVersion) {
  // GroupId (int16 length) + GenerationId (int32) + MemberId (int16 length).
  EXPECT_EQ(StructMinSize<HeartbeatRequest>(VersionRule::Of(HeartbeatRequest::kMessage, 0)), 8u);
  // + GroupInstanceId (nullable string, v3+: its null is an int16 −1).
  EXPECT_EQ(StructMinSize<HeartbeatRequest>(VersionRule::Of(HeartbeatRequest::kMessage, 3)), 10u);
  // v4 is flexible: three compact lengths of one byte, the int32, the tag section's count.
  EXPECT_EQ(StructMinSize<HeartbeatRequest>(VersionRule::Of(HeartbeatRequest::kMessage, 4)), 8u);
}

TEST(MinElementSize, StructElementsByVersion) {
  using Topic = MetadataRequest::MetadataRequestTopic;
  // Name (int16 length) only, before TopicId (v10) and before flexible versions (v9).
  EXPECT_EQ(MinElementSize<Topic>(At(1, false), false), 2u);
  // v9: compact Name length + the tag section's count.
  EXPECT_EQ(MinElementSize<Topic>(At(9, true), true), 2u);
  // v10: + TopicId (16 bytes).
  EXPECT_EQ(MinElementSize<Topic>(At(10, true), true), 18u);
  // A nullable struct element is at least its null marker; scalars their width.
  EXPECT_EQ(MinElementSize<std::optional<Topic>>(At(10, true), true), 1u);
  EXPECT_EQ(MinElementSize<int32_t>(At(0, false), false), 4u);
  EXPECT_EQ(MinElementSize<std::string>(At(0, false), false), 2u);
  EXPECT_EQ(MinElementSize<std::string>(At(12, true), true), 1u);
}

// The table (TabledStructMinSize) is the rule's own answer, at every tabled version, in
// both flexibilities, and versions past the table still get the rule's answer.
template <KafkaStruct S>
void ExpectTableMatchesRule() {
  for (int16_t v = 0; v < schema_internal::kMinSizeTableVersions + 3; ++v) {
    for (const bool flexible : {false, true}) {
      SCOPED_TRACE(testing::Message() << S::kStructName << " v" << v << " flexible " << flexible);
      EXPECT_EQ(MinElementSize<S>(At(v, flexible), flexible), StructMinSize<S>(At(v, flexible)));
    }
  }
  EXPECT_EQ(MinElementSize<S>(At(kMaxVersion, true), true), StructMinSize<S>(At(kMaxVersion, true)));
}

TEST(MinElementSize, TableIsTheRule) {
  ExpectTableMatchesRule<MetadataRequest::MetadataRequestTopic>();
  ExpectTableMatchesRule<FetchRequest::FetchTopic>();
  ExpectTableMatchesRule<FetchRequest::FetchPartition>();
  ExpectTableMatchesRule<FetchRequest>();
}

TEST(MinElementSize, NestedStructsAddUp) {
  // FetchTopic: Topic (v0-12) or TopicId (v13+), then the Partitions array's count.
  EXPECT_EQ(MinElementSize<FetchRequest::FetchTopic>(At(4, false), false), 2u + 4u);
  EXPECT_EQ(MinElementSize<FetchRequest::FetchTopic>(At(13, true), true), 16u + 1u + 1u);
}

TEST(FieldSpec, OmittedMembersTakeTheirDefaults) {
  constexpr FieldSpec f{.name = "Count", .type_name = "int32", .type = FieldType::kInt32};
  static_assert(f.element == FieldType::kInt32);  // element defaults to type
  EXPECT_EQ(f.versions, kAllVersions);
  EXPECT_EQ(f.nullable, kNoVersions);
  EXPECT_EQ(f.tagged, kNoVersions);
  EXPECT_EQ(f.tag, -1);
  EXPECT_FALSE(f.IsTagged());
  EXPECT_EQ(f.flexible, kAllVersions);
  EXPECT_FALSE(f.ignorable);
  EXPECT_FALSE(f.sensitive);
  EXPECT_EQ(f.records.layout, RecordsLayout::kNotRecords);

  constexpr FieldSpec a{.name = "Ids", .type_name = "[]int64", .type = FieldType::kArray,
                        .element = FieldType::kInt64, .versions = {2, kMaxVersion}};
  EXPECT_EQ(a.type, FieldType::kArray);
  EXPECT_EQ(a.element, FieldType::kInt64);
  EXPECT_EQ(a.versions, (VersionRange{2, kMaxVersion}));
}

TEST(MessageSpec, OmittedMembersTakeTheirDefaults) {
  constexpr MessageSpec m{.name = "X", .valid = {0, 3}};
  EXPECT_EQ(m.api_key, -1);
  EXPECT_EQ(m.kind, MessageKind::kData);
  EXPECT_EQ(m.current, (VersionRange{0, 3}));  // current defaults to valid
  EXPECT_EQ(m.flexible, kNoVersions);
  EXPECT_FALSE(m.latest_unstable);
  EXPECT_FALSE(m.has_sensitive);
  // A generated one: the facts of HeartbeatRequest.json, named.
  EXPECT_EQ(HeartbeatRequest::kMessage.api_key, 12);
  EXPECT_EQ(HeartbeatRequest::kMessage.kind, MessageKind::kRequest);
  EXPECT_EQ(HeartbeatRequest::kMessage.valid, (VersionRange{0, 4}));
  EXPECT_EQ(HeartbeatRequest::kMessage.current, (VersionRange{0, 4}));
  EXPECT_EQ(HeartbeatRequest::kMessage.flexible, (VersionRange{4, kMaxVersion}));
  EXPECT_EQ(HeartbeatRequest::kFields[3].nullable, (VersionRange{3, kMaxVersion}));
  EXPECT_EQ(HeartbeatRequest::kFields[3].tag, -1);
}

}  // namespace
}  // namespace kwire
