// The `kwire` command line tool, run in process: outputs and exit codes.
#include "tools/kwire/cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/wire/quirks.h"
#include "tools/html/page.h"

namespace kwire::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome Kwire(std::vector<std::string> args, const std::string& input = "") {
  std::istringstream in(input);
  std::ostringstream out, err;
  const int rc = Run(args, in, out, err);
  return {rc, out.str(), err.str()};
}

constexpr const char* kDdt3Request = "0000001000290003000000000000000201010000";

TEST(KwireCli, MainUsage) {
  const Outcome none = Kwire({});
  EXPECT_EQ(none.rc, kExitUsage);
  EXPECT_THAT(none.err, HasSubstr("usage: kwire <command>"));
  const Outcome help = Kwire({"--help"});
  EXPECT_EQ(help.rc, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("conformance"));
  const Outcome extra = Kwire({"--help", "--bogus"});
  EXPECT_EQ(extra.rc, kExitUsage);
  EXPECT_THAT(extra.err, HasSubstr("unexpected argument '--bogus'"));
  EXPECT_EQ(extra.out, "");
  const Outcome bad = Kwire({"frobnicate"});
  EXPECT_EQ(bad.rc, kExitUsage);
  EXPECT_THAT(bad.err, HasSubstr("unknown command 'frobnicate'"));
}

// Options are parsed by CLI11: each kind of usage error says what is wrong, then the
// command's synopsis and where its help is, not the whole help text again (issue 35).
TEST(KwireCli, UsageErrorsAreShort) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {{"decode", "request", "--bogus"}, "not expected: --bogus"},
           {{"decode", "request", "--api"}, "--api: 1 required TEXT missing"},
           {{"decode", "request", "--api", "3", "--api=4"}, "--api: At Most 1"},
           {{"decode", "request", "--json=yes"}, "json was given a disallowed flag override"},
           {{"explain", "--width"}, "--width"},
           {{"minimal", "Fetch", "max", "request", "--quirks", "java"}, "not expected: --quirks"},
       }) {
    const Outcome o = Kwire(c.args);
    EXPECT_EQ(o.rc, kExitUsage) << c.args[0];
    EXPECT_EQ(o.out, "") << c.args[0];
    EXPECT_THAT(o.err, StartsWith("kwire " + c.args[0] + ": ")) << c.args[0];
    EXPECT_THAT(o.err, HasSubstr(c.says)) << c.args[0];
    EXPECT_THAT(o.err, HasSubstr("Run 'kwire " + c.args[0] + " --help' for the options."));
    const Outcome help = Kwire({c.args[0], "--help"});
    EXPECT_LT(o.err.size(), help.out.size() / 2) << c.args[0] << ": the hint, not the help";
  }
  // `--` ends the options; what follows is positional, even when it looks like one.
  EXPECT_EQ(Kwire({"minimal", "--", "41", "3", "request"}).out, std::string(kDdt3Request) + "\n");
  EXPECT_EQ(Kwire({"minimal", "41", "3", "--", "--json"}).rc, kExitUsage);
  // -h anywhere is the help; a flag given twice is the flag.
  EXPECT_EQ(Kwire({"minimal", "41", "-h"}).rc, kExitOk);
  EXPECT_EQ(Kwire({"decode", "request", "--quiet", "--quiet"}, kDdt3Request).rc, kExitOk);
}

TEST(KwireCli, EveryCommandHasHelp) {
  for (const char* cmd : {"apis", "minimal", "decode", "encode", "explain", "conformance", "site"}) {
    const Outcome o = Kwire({cmd, "--help"});
    EXPECT_EQ(o.rc, kExitOk) << cmd;
    EXPECT_THAT(o.out, StartsWith(std::string("usage: kwire ") + cmd)) << cmd;
    const Outcome h = Kwire({"help", cmd});
    EXPECT_EQ(h.out, o.out) << cmd;
  }
}

TEST(KwireCli, Apis) {
  const Outcome o = Kwire({"apis"});
  EXPECT_EQ(o.rc, kExitOk);
  std::vector<std::string> lines;
  std::istringstream ss(o.out);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 96u);  // header + API keys 0-94 (Kafka 4.4)
  EXPECT_THAT(lines[0], StartsWith("key"));
  EXPECT_THAT(lines[1], StartsWith("0    Produce"));
  EXPECT_THAT(lines[1], HasSubstr(" 0-13 "));
  EXPECT_THAT(lines[1], HasSubstr(" 9+ "));
  EXPECT_THAT(lines[1], HasSubstr(" 0-2"));  // KIP-896 removals
  EXPECT_THAT(lines[1], HasSubstr(" <=2.2-4.4 "));
  EXPECT_THAT(lines[1], HasSubstr("v0-2 last in Kafka 3.9"));
  EXPECT_THAT(lines[5], StartsWith("4    LeaderAndIsr"));
  EXPECT_THAT(lines[5], HasSubstr("API removed; last in Kafka 3.9"));
  EXPECT_THAT(lines[75], HasSubstr("formerly ListClientMetricsResources"));
  EXPECT_THAT(lines[95], StartsWith("94   UnregisterController"));
  EXPECT_THAT(o.out, HasSubstr("unstable"));
  EXPECT_EQ(Kwire({"apis", "1", "extra"}).rc, kExitUsage);
  EXPECT_EQ(Kwire({"apis", "NoSuchApi"}).rc, kExitUsage);
}

TEST(KwireCli, ApisOfOneApi) {
  const Outcome o = Kwire({"apis", "ListClientMetricsResources"});
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  std::vector<std::string> lines;
  std::istringstream ss(o.out);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 4u);  // name, column heads, v0, v1
  EXPECT_EQ(lines[0], "74 ListConfigResources (formerly ListClientMetricsResources)");
  EXPECT_THAT(lines[2], StartsWith("0        yes      2       1       3.7          4.4      current"));
  EXPECT_THAT(lines[3], StartsWith("1        yes      2       1       4.1          4.4      current"));
  const Outcome sf = Kwire({"apis", "78"});
  EXPECT_THAT(sf.out, HasSubstr("0        yes      2       1       -            4.0      removed, "
                                "unstable (3.9-4.0)"));
}

TEST(KwireCli, Minimal) {
  const Outcome o = Kwire({"minimal", "41", "3", "request"});
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kDdt3Request) + "\n");
  EXPECT_EQ(Kwire({"minimal", "DescribeDelegationToken", "max", "request"}).out, o.out);
  EXPECT_EQ(Kwire({"minimal", "describedelegationtokenrequest", "3", "request"}).out, o.out);
  EXPECT_EQ(Kwire({"minimal", "39", "2", "response"}).out,
            "000000140000000000000000000000000000000000000000\n");
}

TEST(KwireCli, MinimalUsageErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"minimal"},
           {"minimal", "41", "3"},
           {"minimal", "999", "0", "request"},
           {"minimal", "NoSuchApi", "0", "request"},
           {"minimal", "41", "9", "request"},
           {"minimal", "41", "x", "request"},
           {"minimal", "41", "3", "sideways"},
           {"minimal", "41", "3", "request", "--frob"},
       }) {
    const Outcome o = Kwire(args);
    EXPECT_EQ(o.rc, kExitUsage) << args.size();
    EXPECT_THAT(o.err, HasSubstr("usage: kwire minimal"));
  }
  EXPECT_THAT(Kwire({"minimal", "41", "9", "request"}).err, HasSubstr("valid versions are 0-3"));
}

TEST(KwireCli, DecodeRoundTrip) {
  const Outcome o = Kwire({"decode", "request"}, std::string(kDdt3Request) + "\n");
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kDdt3Request) + "\n");
  EXPECT_EQ(o.err,
            "DescribeDelegationTokenRequest v3, request header v2, 20 bytes, re-encoding "
            "identical\n");
  // --quiet: the hex only.
  const Outcome q = Kwire({"decode", "request", "--quiet"}, kDdt3Request);
  EXPECT_EQ(q.rc, kExitOk);
  EXPECT_EQ(q.out, std::string(kDdt3Request) + "\n");
  EXPECT_EQ(q.err, "");
  // Whitespace anywhere is ignored.
  EXPECT_EQ(Kwire({"decode", "request"}, "00000010 0029 0003\n 00000000 0000 00 02 01 01 00 00").rc,
            kExitOk);
  // Responses need the API and version.
  const std::string resp = "000000140000000000000000000000000000000000000000";
  EXPECT_EQ(Kwire({"decode", "response", "--api", "39", "--version", "2"}, resp).out, resp + "\n");
  EXPECT_EQ(Kwire({"decode", "response", "--api=RenewDelegationToken", "--version=2"}, resp).rc,
            kExitOk);
  const Outcome missing = Kwire({"decode", "response"}, resp);
  EXPECT_EQ(missing.rc, kExitUsage);
  EXPECT_THAT(missing.err, HasSubstr("needs --api and --version"));
}

TEST(KwireCli, DecodeBinary) {
  std::string raw;
  for (size_t i = 0; i < std::string(kDdt3Request).size(); i += 2) {
    raw.push_back(
        static_cast<char>(std::stoi(std::string(kDdt3Request).substr(i, 2), nullptr, 16)));
  }
  const Outcome o = Kwire({"decode", "request", "--binary"}, raw);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kDdt3Request) + "\n");
}

TEST(KwireCli, DecodeErrors) {
  // Truncated body (size prefix patched): the precise error.
  const Outcome t = Kwire({"decode", "request"}, "0000000f002900030000000000000002010100");
  EXPECT_EQ(t.rc, kExitFailure);
  EXPECT_EQ(t.out, "");
  EXPECT_THAT(t.err, StartsWith("kwire decode: truncated at byte 19 in "
                                "DescribeDelegationTokenRequest.tagged_fields ("));
  // Truncated frame (size prefix says more).
  const Outcome f = Kwire({"decode", "request"}, "00000010002900030000000000000002010100");
  EXPECT_EQ(f.rc, kExitFailure);
  EXPECT_THAT(f.err, HasSubstr("truncated at byte 0 in Frame.size"));
  // Not hex, odd digits, empty.
  EXPECT_THAT(Kwire({"decode", "request"}, "00zz").err,
              HasSubstr("not hex: 'z' at input byte 2 (0-based"));
  EXPECT_THAT(Kwire({"decode", "request"}, "000").err, HasSubstr("odd number"));
  EXPECT_EQ(Kwire({"decode", "request"}, " \n").rc, kExitFailure);
  // The header disagrees with --api / --version.
  const Outcome m = Kwire({"decode", "request", "--api", "39"}, kDdt3Request);
  EXPECT_EQ(m.rc, kExitFailure);
  EXPECT_THAT(m.err, HasSubstr("the frame is DescribeDelegationToken v3"));
  EXPECT_EQ(Kwire({"decode", "request", "--quirks", "nope"}, kDdt3Request).rc, kExitUsage);
}

// Every quirk of the library (kQuirkNames, quirks.h) is a name --quirks takes and --help
// lists; a bit of kQuirksJava without a name would be unreachable from the command line.
TEST(KwireCli, EveryQuirkHasItsName) {
  const std::string help = Kwire({"decode", "--help"}).out;
  uint32_t named = 0;
  for (const QuirkName& q : kQuirkNames) {
    EXPECT_EQ(Kwire({"decode", "request", "--quirks", q.name}, kDdt3Request).rc, kExitOk) << q.name;
    if (std::string(q.name) == "java" || std::string(q.name) == "none") continue;
    EXPECT_THAT(help, HasSubstr(q.name));
    EXPECT_EQ(q.quirks & (q.quirks - 1), 0u) << q.name << ": one bit per name";
    named |= q.quirks;
  }
  EXPECT_EQ(named, kQuirksJava);
}

// Captured traffic: frames back to back, each reported; the stream's exit status is
// the worst frame's.
TEST(KwireCli, DecodeStream) {
  const std::string meta = Kwire({"minimal", "Metadata", "12", "request"}).out;
  ASSERT_FALSE(meta.empty());
  const std::string meta_hex = meta.substr(0, meta.size() - 1);
  Outcome o = Kwire({"decode", "request"}, std::string(kDdt3Request) + "\n" + meta_hex + "\n");
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kDdt3Request) + "\n" + meta_hex + "\n");
  EXPECT_THAT(o.err, HasSubstr("frame 1 at byte 0: DescribeDelegationTokenRequest v3"));
  EXPECT_THAT(o.err, HasSubstr("frame 2 at byte 20: MetadataRequest v12, request header v2"));
  EXPECT_THAT(o.err, HasSubstr("2 frames, 2 decoded and re-encoded identically"));
  // A bad frame in the middle: reported, the others still decoded, exit 1.
  const std::string bad = "0000000f002900030000000000000002010100";  // truncated body
  o = Kwire({"decode", "request"}, std::string(kDdt3Request) + bad + kDdt3Request);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_EQ(o.out, std::string(kDdt3Request) + "\n" + kDdt3Request + "\n");
  EXPECT_THAT(o.err, HasSubstr("kwire decode: frame 2 at byte 20: truncated at byte 19 in "
                               "DescribeDelegationTokenRequest.tagged_fields"));
  EXPECT_THAT(o.err, HasSubstr("3 frames, 2 decoded"));
  // A stream cut inside its second frame.
  o = Kwire({"decode", "request"}, std::string(kDdt3Request) + "000000100029");
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.err, HasSubstr("the stream ends inside frame 2: 6 bytes from byte 20, 14 more "
                               "are needed"));
}

// Responses of a stream, typed by the requests they answer (--requests).
TEST(KwireCli, DecodeResponsesByCorrelationId) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "kwire_cli_test_requests";
  fs::create_directories(dir);
  // Two requests: DescribeDelegationToken v3 (correlation id 0) and a RenewDelegationToken
  // v2 frame with correlation id 9 (only its header's api key, version and correlation id
  // are read).
  const std::string renew_req = "0000001500270002000000090000000a0b0c0d000000000000";
  {
    std::ofstream(dir / "requests.hex") << kDdt3Request << "\n" << renew_req << "\n";
  }
  // A RenewDelegationToken v2 response (header v1) with correlation id 9.
  const std::string renew_resp = "000000140000000900000000000000000000000000000000";
  Outcome o = Kwire({"decode", "response", "--requests", (dir / "requests.hex").string()},
                    renew_resp);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_THAT(o.err, HasSubstr("RenewDelegationTokenResponse v2, response header v1"));
  // Correlation id 5: no such request.
  o = Kwire({"decode", "response", "--requests", (dir / "requests.hex").string()},
            "000000140000000500000000000000000000000000000000");
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.err, HasSubstr("no request with correlation id 5 in --requests"));
  // --requests with --api: a usage error.
  o = Kwire({"decode", "response", "--api", "39", "--version", "2", "--requests",
             (dir / "requests.hex").string()},
            renew_resp);
  EXPECT_EQ(o.rc, kExitUsage);
  fs::remove_all(dir);
}

TEST(KwireCli, ExplainWidth) {
  const std::string meta = Kwire({"minimal", "Metadata", "12", "response"}).out;
  // (At 80 columns this tree's deepest labels and ranges alone take 75: rows stay long.)
  for (size_t width : {100u, 120u}) {
    const Outcome o = Kwire({"explain", "response", "--api", "3", "--version", "12", "--width",
                             std::to_string(width)},
                            meta);
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    const size_t tree = o.out.find("object tree\n");
    ASSERT_NE(tree, std::string::npos);
    std::istringstream lines(o.out.substr(tree));
    std::string line;
    size_t rows = 0;
    while (std::getline(lines, line)) {
      size_t cols = 0;  // code points
      for (unsigned char ch : line) cols += (ch & 0xc0) != 0x80;
      EXPECT_LE(cols, width) << line;
      ++rows;
    }
    EXPECT_GT(rows, 20u);
  }
  // The default fits 120 columns; 0 is unlimited (one row per node, notes inline).
  const Outcome wide =
      Kwire({"explain", "response", "--api", "3", "--version", "12", "--width", "0"}, meta);
  EXPECT_EQ(wide.rc, kExitOk);
  EXPECT_EQ(Kwire({"explain", "response", "--api", "3", "--version", "12", "--width", "x"}, meta)
                .rc,
            kExitUsage);
}

// A non-canonical frame decodes under --quirks java but re-encodes differently.
TEST(KwireCli, DecodeQuirksReencodeDiffers) {
  // The body's Owners count 0x02 written overlong as 0x82 0x00; size 16 -> 17.
  const std::string frame =
      "00000011"
      "00290003"
      "00000000"
      "0000"
      "00"
      "8200"
      "0101"
      "0000";
  const Outcome strict = Kwire({"decode", "request"}, frame);
  EXPECT_EQ(strict.rc, kExitFailure);
  EXPECT_THAT(strict.err, HasSubstr("varint_non_canonical"));
  const Outcome java = Kwire({"decode", "request", "--quirks", "java"}, frame);
  EXPECT_EQ(java.rc, kExitFailure);
  EXPECT_EQ(java.out, std::string(kDdt3Request) + "\n");
  EXPECT_THAT(java.err, HasSubstr("decoded, but re-encodes differently"));
  // The size prefix differs (one byte shorter); the message names the varint that did it.
  EXPECT_THAT(java.err, HasSubstr("21 bytes expected, 20 re-encoded: the size prefix differs; "
                                  "after it, first difference at byte 15 (expected 82, "
                                  "re-encoded 02)"));
  EXPECT_EQ(Kwire({"decode", "request", "--quirks", "non-canonical-varint"}, frame).rc,
            kExitFailure);
}

// Issue 12's frames: record batch faults fail `decode` and `explain` (exit 1) unless
// --records opaque; FetchSnapshot's unaligned bytes pass; quirks apply inside records.
constexpr const char* kFetchCrcMismatch =
    "000000790000000100000000000000010001740000000100000000000000000000000000010000000000"
    "000001ffffffff0000004800000000000000000000003c000000000266ce83ea00000000000000000000"
    "000000000000000000000000ffffffffffffffffffffffffffff000000011400000006313433027600";
constexpr const char* kProduceOverlongOffsetDelta =
    "000000630000000900000001ffff0000ffff00007530020274020000000046000000000000000000000039"
    "000000000202bc52e700000000000000000000000000000000000000000000ffffffffffffffffffffff"
    "ffffff000000010e00008000010100000000";
constexpr const char* kFetchSnapshotUnaligned =
    "0000006f000000010000000000000002135f5f636c75737465725f6d65746164617461020000000000"
    "000000000000000003000000010000000000000000f80000000000000046291600000000018bcfe568"
    "00000000000000000000010000004e00000001024359f9f9000000000000000000";

TEST(KwireCli, DecodeChecksRecords) {
  Outcome o = Kwire({"decode", "response", "--api", "1", "--version", "4"}, kFetchCrcMismatch);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_EQ(o.out, "");
  EXPECT_THAT(o.err, HasSubstr("crc_mismatch at byte 70 in "
                               "FetchResponse.Responses[0].Partitions[0].Records.Batch[0]"));
  o = Kwire({"decode", "response", "--api", "1", "--version", "4", "--records", "opaque"},
            kFetchCrcMismatch);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kFetchCrcMismatch) + "\n");

  // A fault in a Produce request's records: the frame reads, and the partition is refused
  // (what a broker does: codec/protocol/refusal.h), exit status 3. Kafka's own reader takes
  // an overlong varint, and the refusal says so.
  o = Kwire({"decode", "request"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitRefused) << o.err;
  EXPECT_EQ(o.out, std::string(kProduceOverlongOffsetDelta) + "\n");
  EXPECT_THAT(o.err, HasSubstr("refused: ProduceRequest.TopicData[0].PartitionData[0].Records: "
                               "INVALID_RECORD (87): varint_non_canonical at byte 95 in "
                               "ProduceRequest.TopicData[0].PartitionData[0].Records.Batch[0]"
                               ".Record[0].OffsetDelta"));
  EXPECT_THAT(o.err, HasSubstr("(Kafka 4.4 appends it: Kafka's record reader takes it"));
  EXPECT_THAT(o.err, HasSubstr("kwire refuses 1 partition that Kafka 4.4 appends"));
  EXPECT_THAT(o.err, Not(HasSubstr("answers 1 partition")));
  // --quirks java reads the overlong varint as Kafka's reader does: nothing refused.
  o = Kwire({"decode", "request", "--quirks", "java", "--quiet"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  o = Kwire({"decode", "request", "--json", "--quiet"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitRefused) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["refusals"].size(), 1u);
  EXPECT_EQ(j["refusals"][0]["part"], "ProduceRequest.TopicData[0].PartitionData[0].Records");
  EXPECT_EQ(j["refusals"][0]["error_code"], 87);
  EXPECT_EQ(j["refusals"][0]["kind"], "varint_non_canonical");
  EXPECT_EQ(j["refusals"][0]["offset"], 95);
  EXPECT_EQ(j["refusals"][0]["kafka_appends"], true);
  EXPECT_EQ(j["refusals"][0]["whole_request"], false);
  // Records kept opaque: nothing looked at, nothing refused.
  o = Kwire({"decode", "request", "--records", "opaque"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  // Unreadable and refused frames in one stream: unreadable wins (exit 1).
  o = Kwire({"decode", "request"}, std::string(kProduceOverlongOffsetDelta) + "00000001");
  EXPECT_EQ(o.rc, kExitFailure);
  // Java reads the overlong varint; records are kept verbatim, so the frame re-encodes
  // to itself.
  o = Kwire({"decode", "request", "--quirks", "java"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kProduceOverlongOffsetDelta) + "\n");

  o = Kwire({"decode", "response", "--api", "FetchSnapshot", "--version", "0"},
            kFetchSnapshotUnaligned);
  EXPECT_EQ(o.rc, kExitOk) << o.err;

  o = Kwire({"decode", "request", "--records", "maybe"}, kProduceOverlongOffsetDelta);
  EXPECT_EQ(o.rc, kExitUsage);
  EXPECT_THAT(o.err, HasSubstr("--records takes 'validate' or 'opaque'"));
}

TEST(KwireCli, ExplainChecksRecords) {
  Outcome o = Kwire({"explain", "response", "--api", "1", "--version", "4"}, kFetchCrcMismatch);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.out, HasSubstr("MISMATCH"));  // the tree is printed first
  EXPECT_THAT(o.out, HasSubstr("Batch[0]"));
  EXPECT_EQ(o.out.back(), '\n');
  EXPECT_THAT(o.err, HasSubstr("crc_mismatch at byte 70"));
  o = Kwire({"explain", "response", "--api", "1", "--version", "4", "--records", "opaque"},
            kFetchCrcMismatch);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  o = Kwire({"explain", "response", "--api", "59", "--version", "0"}, kFetchSnapshotUnaligned);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("not aligned to batches"));
  EXPECT_EQ(o.out.back(), '\n');
}

// Issue 13: strings that are not UTF-8 (Owners[0].PrincipalType = ff, and c0 af).
constexpr const char* kBadUtf8Ff = "0000001100290003000000000000000202ff010000";
constexpr const char* kBadUtf8Overlong = "0000001200290003000000000000000203c0af010000";

TEST(KwireCli, DecodeInvalidUtf8) {
  const Outcome ff = Kwire({"decode", "request"}, kBadUtf8Ff);
  EXPECT_EQ(ff.rc, kExitFailure);
  EXPECT_EQ(ff.out, "");
  EXPECT_EQ(ff.err,
            "kwire decode: invalid_utf8 at byte 17 in "
            "DescribeDelegationTokenRequest.Owners[0].PrincipalType (byte 0xff cannot start a "
            "sequence; string of length 1 read at byte 16 (compact, uvarint 2), ends at byte "
            "18)\n");
  const Outcome overlong = Kwire({"decode", "request"}, kBadUtf8Overlong);
  EXPECT_EQ(overlong.rc, kExitFailure);
  EXPECT_THAT(overlong.err, HasSubstr("invalid_utf8 at byte 17 in "
                                      "DescribeDelegationTokenRequest.Owners[0].PrincipalType "
                                      "(overlong 2-byte encoding (c0 af); string of length 2 "
                                      "read at byte 16 (compact, uvarint 3), ends at byte 19)"));
  // Accepted, byte-exact, under the Java quirks (and the one quirk alone).
  for (const char* frame : {kBadUtf8Ff, kBadUtf8Overlong}) {
    for (const char* quirks : {"java", "invalid-utf8"}) {
      const Outcome o = Kwire({"decode", "request", "--quirks", quirks}, frame);
      EXPECT_EQ(o.rc, kExitOk) << quirks << ": " << o.err;
      EXPECT_EQ(o.out, std::string(frame) + "\n");
      EXPECT_THAT(o.err, HasSubstr("re-encoding identical"));
    }
  }
}

// Decode errors that name the fault (issue 35 item 2). SaslAuthenticateResponse v1:
// size 24, correlation id 7, ErrorCode 0, ErrorMessage null, AuthBytes (int32 length at
// byte 12) "abcd", SessionLifetimeMs 1.
constexpr const char* kSasl1 = "00000018000000070000ffff00000004616263640000000000000001";
// The same with the AuthBytes length 4 -> 2.
constexpr const char* kSasl1Short = "00000018000000070000ffff00000002616263640000000000000001";

TEST(KwireCli, DecodeHintsNameTheFault) {
  const Outcome o = Kwire({"decode", "response", "--api", "36", "--version", "1"}, kSasl1Short);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "kwire decode: trailing_bytes at byte 26 (2 bytes after the response body)\n"
            "kwire decode: hint: the size prefix at byte 0 reads 24; with 22 (2 less: the frame "
            "ends 2 bytes earlier, where the next one would start) the frame decodes cleanly\n"
            "kwire decode: hint: the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) "
            "reads 2, running to byte 18; with 4 there the frame decodes cleanly\n");
  // Read at the wrong version: the versions that decode it, and --version auto.
  const Outcome v0 = Kwire({"decode", "response", "--api", "36", "--version", "0"}, kSasl1);
  EXPECT_EQ(v0.rc, kExitFailure);
  EXPECT_EQ(v0.err,
            "kwire decode: trailing_bytes at byte 20 (8 bytes after the response body)\n"
            "kwire decode: hint: the frame decodes cleanly as SaslAuthenticateResponse v1, not "
            "v0: was the request another version? (--version auto reads it so)\n"
            "kwire decode: hint: the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) "
            "reads 4, running to byte 20; with 12 there the frame decodes cleanly\n");
}

// explain --html (issue 35 item 2): the page carries the same hints as stderr, under the
// frame's error.
TEST(KwireCli, ExplainHtmlCarriesTheHints) {
  const std::string page = testing::TempDir() + "/kwire-hints.html";
  const Outcome o =
      Kwire({"explain", "response", "--api", "36", "--version", "0", "--html", page}, kSasl1);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.err, HasSubstr("kwire explain: hint: the frame decodes cleanly as "
                               "SaslAuthenticateResponse v1, not v0"));
  std::ifstream in(page);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::optional<std::string> data_text = html::PageDataText(text);
  ASSERT_TRUE(data_text.has_value());
  const nlohmann::json hints = nlohmann::json::parse(*data_text)["frames"][0]["error"]["hints"];
  ASSERT_EQ(hints.size(), 2u) << hints.dump();
  EXPECT_EQ(hints[0],
            "the frame decodes cleanly as SaslAuthenticateResponse v1, not v0: was the request "
            "another version? (--version auto reads it so)");
  EXPECT_EQ(hints[1],
            "the bytes length at byte 12 (SaslAuthenticateResponse.AuthBytes) reads 4, running "
            "to byte 20; with 12 there the frame decodes cleanly");
}

TEST(KwireCli, DecodeVersionAuto) {
  const Outcome o = Kwire({"decode", "response", "--api", "36", "--version", "auto"}, kSasl1);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_EQ(o.out, std::string(kSasl1) + "\n");
  EXPECT_EQ(o.err,
            "kwire decode: --version auto: SaslAuthenticateResponse decodes at v1; read as v1\n"
            "SaslAuthenticateResponse v1, response header v0, 28 bytes, re-encoding identical\n");
  // No version decodes it: the one that reads furthest, its error, and the hints.
  const Outcome none =
      Kwire({"decode", "response", "--api", "36", "--version", "auto"}, kSasl1Short);
  EXPECT_EQ(none.rc, kExitFailure);
  EXPECT_THAT(none.err,
              StartsWith("kwire decode: --version auto: no version of SaslAuthenticateResponse "
                         "(v0-v2) decodes this frame; v1 reads furthest\n"
                         "kwire decode: trailing_bytes at byte 26 (2 bytes after the response "
                         "body)\n"));
  // Explain takes it too.
  const Outcome ex = Kwire({"explain", "response", "--api", "36", "--version", "auto",
                            "--no-bytes"},
                           kSasl1);
  EXPECT_EQ(ex.rc, kExitOk) << ex.err;
  EXPECT_THAT(ex.out, StartsWith("SaslAuthenticateResponse v1, response header v0, 28 bytes"));
  EXPECT_EQ(ex.err,
            "kwire explain: --version auto: SaslAuthenticateResponse decodes at v1; read as v1\n");
  // Requests name their version; auto needs --api.
  const Outcome req = Kwire({"decode", "request", "--version", "auto"}, kDdt3Request);
  EXPECT_EQ(req.rc, kExitUsage);
  EXPECT_THAT(req.err, HasSubstr("--version auto is for responses"));
  const Outcome noapi = Kwire({"decode", "response", "--version", "auto"}, kSasl1);
  EXPECT_EQ(noapi.rc, kExitUsage);
  EXPECT_THAT(noapi.err, HasSubstr("--version auto needs --api"));
}

// A size prefix one too small, then a whole frame: the short frame, then a 4-byte "frame"
// of the first one's last bytes, then bytes where no frame starts. That rest is named as
// such, not as a third frame that the summary ("2 frames") does not count.
TEST(KwireCli, DecodeStreamRestThatDoesNotSplit) {
  std::string stream = std::string("0000000f") + (kDdt3Request + 8) + "\n" + kDdt3Request + "\n";
  const Outcome o = Kwire({"decode", "request"}, stream);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.err, HasSubstr("kwire decode: frame 1 at byte 0: truncated at byte 19"));
  EXPECT_THAT(o.err, HasSubstr("kwire decode: after frame 2, no frame starts at byte 23 of the "
                               "stream: frame_too_large at byte 0 in Frame.size"));
  EXPECT_THAT(o.err, Not(HasSubstr("frame 3")));
  EXPECT_THAT(o.err, HasSubstr("2 frames, 0 decoded"));
}

// A stream whose first size prefix is one too small: the frame is cut a byte short, and
// the hint takes the byte from the stream.
TEST(KwireCli, DecodeStreamSizePrefixOneTooSmall) {
  std::string stream = std::string(kSasl1) + kSasl1;
  stream[7] = '7';  // size 24 -> 23
  const Outcome o = Kwire({"decode", "response", "--api", "36", "--version", "1"}, stream);
  EXPECT_EQ(o.rc, kExitFailure);
  // The stream does not split after it: its messages name the frame, as with several.
  EXPECT_THAT(o.err,
              HasSubstr("kwire decode: frame 1 at byte 0: hint: the size prefix at byte 0 reads "
                        "23; with 24 (1 more: the next 1 byte of the stream) the frame decodes "
                        "cleanly\n"));
  EXPECT_THAT(o.err, HasSubstr("kwire decode: the stream ends inside frame 2: "));
}

// kwire explain marks the failing byte in the byte map and gives the failing string a
// length row with its value, then the error.
TEST(KwireCli, ExplainMarksTheFailingByte) {
  const Outcome o = Kwire({"explain", "request", "--width", "0"}, kBadUtf8Ff);
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_THAT(o.out, HasSubstr("0010   02>ff 01 00 00"));
  EXPECT_THAT(o.out, HasSubstr("; >! byte 17 (0x0011), where decoding failed\n"));
  EXPECT_THAT(o.out, HasSubstr("length"));
  // The failing byte in the tree's hex too (issue 35: the tree gives offsets in hex).
  EXPECT_THAT(o.err, StartsWith("kwire explain: invalid_utf8 at byte 17 (0x0011) in "
                                "DescribeDelegationTokenRequest.Owners[0].PrincipalType (byte "
                                "0xff cannot start a sequence; string of length 1 read at byte "
                                "16 (compact, uvarint 2), ends at byte 18)\n"));
  // --lengths: a row under every string.
  const Outcome all = Kwire({"explain", "request", "--lengths", "--no-bytes"}, kDdt3Request);
  EXPECT_EQ(all.rc, kExitOk) << all.err;
  EXPECT_THAT(all.out, HasSubstr("bytes of the string that follow (to byte 17)"));
  EXPECT_THAT(Kwire({"explain", "request", "--no-bytes"}, kDdt3Request).out,
              Not(HasSubstr("bytes of the string that follow")));
}

TEST(KwireCli, ExplainInvalidUtf8) {
  const Outcome strict = Kwire({"explain", "request"}, kBadUtf8Ff);
  EXPECT_EQ(strict.rc, kExitFailure);
  EXPECT_THAT(strict.out, HasSubstr("decoding failed here"));
  EXPECT_THAT(strict.err, HasSubstr("invalid_utf8 at byte 17"));
  EXPECT_EQ(strict.out.find('\xff'), std::string::npos);
  // Under the quirk: the value escaped, never raw, with the first bad byte's offset.
  const Outcome o = Kwire({"explain", "request", "--quirks", "java", "--width", "0"}, kBadUtf8Overlong);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("\"\\xc0\\xaf\""));
  EXPECT_THAT(o.out, HasSubstr("invalid UTF-8 at byte 17: overlong 2-byte encoding (c0 af)"));
  EXPECT_EQ(o.out.find('\xc0'), std::string::npos);
  EXPECT_EQ(o.out.find('\xaf'), std::string::npos);
  // At the default 120 columns the note wraps under the tree's guides.
  const Outcome narrow = Kwire({"explain", "request", "--quirks", "java"}, kBadUtf8Overlong);
  EXPECT_THAT(narrow.out, HasSubstr("\n    |       |                                (compact, len+1=3); invalid "
                                    "UTF-8 at byte 17: overlong 2-byte encoding (c0\n"
                                    "    |       |                                af)\n"));
}

TEST(KwireCli, Explain) {
  const Outcome o = Kwire({"explain", "request"}, kDdt3Request);
  EXPECT_EQ(o.rc, kExitOk) << o.err;
  EXPECT_THAT(o.out, StartsWith("DescribeDelegationTokenRequest v3, request header v2, 20 bytes "
                                "on the wire\n"));
  EXPECT_THAT(o.out, HasSubstr("byte layout (20 bytes, 16 bytes per row)"));
  EXPECT_THAT(o.out, HasSubstr("object tree\nDescribeDelegationTokenRequest"));
  // (At 120 columns the API name, the value's detail, moves to the note.)
  EXPECT_THAT(o.out, HasSubstr("= 41    "));
  EXPECT_THAT(o.out, HasSubstr("\n|   |                                        (DescribeDelegationToken); "
                               "numeric id of the API being invoked\n"));
  EXPECT_THAT(Kwire({"explain", "request", "--width", "0"}, kDdt3Request).out,
              HasSubstr("= 41 (DescribeDelegationToken)"));
  EXPECT_THAT(o.out, HasSubstr("+-- tagged_fields"));

  const Outcome t = Kwire({"explain", "request"}, "0000000f002900030000000000000002010100");
  EXPECT_EQ(t.rc, kExitFailure);
  EXPECT_THAT(t.out, HasSubstr("decoding failed here"));
  EXPECT_THAT(t.err, HasSubstr("truncated at byte 19"));
}

// The vector of `file` (conformance/vectors) whose id is `id`, as FILE:LINE for --vector.
std::string VectorById(const std::string& file, const std::string& id) {
  const std::string path = std::string(KWIRE_TEST_VECTORS_DIR) + "/" + file;
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("\"id\":\"" + id + "\"") != std::string::npos) {
      return path + ":" + std::to_string(n);
    }
  }
  ADD_FAILURE() << id << " is not in " << path;
  return path + ":0";
}

// A request whose only fault is in a Produce partition's records reads, and a broker
// refuses the partition: explain gives decode's verdict (refused:, exit 3), not "does not
// decode", and its tree marks the batch's crc row, where an enforcing decoder stops; a
// fault found reading on past the CRC is shown unmarked (helper-26's stumble 3).
TEST(KwireCli, ExplainGivesDecodesVerdictForARefusedRequest) {
  const std::string vector = VectorById("records.jsonl", "records/Produce/v3/request/crc_mismatch");
  const Outcome d = Kwire({"decode", "--vector", vector, "--quiet"});
  EXPECT_EQ(d.rc, kExitRefused) << d.err;
  const Outcome o = Kwire({"explain", "--vector", vector, "--no-bytes", "--width", "0"});
  EXPECT_EQ(o.rc, kExitRefused) << o.err;
  EXPECT_THAT(o.err, HasSubstr("refused: ProduceRequest.TopicData[0].PartitionData[0]"
                               ".Records: CORRUPT_MESSAGE (2): crc_mismatch at byte 57 in "));
  EXPECT_THAT(o.err, HasSubstr("a broker reads this request and answers 1 partition with the "
                               "error code above, appending the others"));
  EXPECT_THAT(o.err, Not(HasSubstr("kwire explain: refused"))) << o.err;  // as decode prints them
  EXPECT_THAT(o.err, Not(HasSubstr("kwire explain: a broker"))) << o.err;
  const size_t crc = o.out.find("+-- crc ");
  ASSERT_NE(crc, std::string::npos) << o.out;
  const std::string crc_row = o.out.substr(crc, o.out.find('\n', crc) - crc);
  EXPECT_THAT(crc_row, HasSubstr("= 0x45def820")) << crc_row;
  EXPECT_THAT(crc_row, HasSubstr("[0x0039, 4B]")) << crc_row;
  EXPECT_THAT(crc_row, testing::EndsWith("<-- decoding failed here")) << crc_row;
  EXPECT_THAT(o.out, HasSubstr("read on past the CRC mismatch above: a decoder stops at the crc"));
  EXPECT_EQ(o.out.find("decoding failed here"), o.out.rfind("decoding failed here")) << o.out;
  // --offsets dec: the tree's ranges in decimal, as the refusal gives the byte (57).
  const Outcome dec = Kwire({"explain", "--vector", vector, "--no-bytes", "--width", "0",
                             "--offsets", "dec"});
  EXPECT_EQ(dec.rc, kExitRefused) << dec.err;
  const size_t dec_crc = dec.out.find("+-- crc ");
  ASSERT_NE(dec_crc, std::string::npos) << dec.out;
  EXPECT_THAT(dec.out.substr(dec_crc, dec.out.find('\n', dec_crc) - dec_crc), HasSubstr("[57, 4B]"));
  EXPECT_THAT(dec.out, Not(HasSubstr("[0x"))) << dec.out;
  const Outcome bad = Kwire({"explain", "--vector", vector, "--offsets", "octal"});
  EXPECT_EQ(bad.rc, kExitUsage);
  EXPECT_THAT(bad.err, HasSubstr("--offsets takes hex or dec, not 'octal'"));
  // A response's records are not a broker's to refuse: the decode fails (exit 1), with the
  // byte in the tree's hex too.
  const Outcome r = Kwire(
      {"explain", "--vector", VectorById("records.jsonl", "records/Fetch/v4/response/crc_mismatch-legacy"),
       "--no-bytes"});
  EXPECT_EQ(r.rc, kExitFailure) << r.err;
  EXPECT_THAT(r.err, HasSubstr("crc_mismatch at byte 135 (0x0087) in "));
}

TEST(KwireCli, ExplainRedactsSecrets) {
  // SaslAuthenticate v2 request, AuthBytes = "secret" (compact bytes 07 + 6 bytes).
  const std::string body =
      "00240002"
      "00000001"
      "0003636c69"
      "00"
      "07736563726574"
      "00";
  char size[32];
  std::snprintf(size, sizeof size, "%08zx", body.size() / 2);
  const std::string fixed = std::string(size) + body;
  const Outcome o = Kwire({"explain", "request"}, fixed);
  ASSERT_EQ(o.rc, kExitOk) << o.err << o.out;
  EXPECT_THAT(o.out, HasSubstr("<redacted, 6 bytes>"));
  EXPECT_THAT(o.out, Not(HasSubstr("73 65 63")));
  const Outcome s = Kwire({"explain", "request", "--show-secrets"}, fixed);
  EXPECT_THAT(s.out, HasSubstr("0x736563726574"));
  EXPECT_THAT(s.out, HasSubstr("73 65 63"));
}

// Issue 35: large frames in parts (explain_view_test.cc has the exact texts).
TEST(KwireCli, ExplainNoBytesDepthPath) {
  const std::string vector = std::string(KWIRE_TEST_VECTORS_DIR) + "/live.jsonl:294";
  const Outcome all = Kwire({"explain", "--vector", vector});
  ASSERT_EQ(all.rc, kExitOk) << all.err;
  EXPECT_THAT(all.out, HasSubstr("byte layout (347 bytes"));
  const Outcome tree = Kwire({"explain", "--vector", vector, "--no-bytes"});
  ASSERT_EQ(tree.rc, kExitOk) << tree.err;
  EXPECT_THAT(tree.out, Not(HasSubstr("byte layout")));
  EXPECT_THAT(tree.out, HasSubstr("object tree\nMetadataResponse"));
  const Outcome depth = Kwire({"explain", "--vector", vector, "--no-bytes", "--depth", "1"});
  ASSERT_EQ(depth.rc, kExitOk) << depth.err;
  EXPECT_THAT(depth.out, HasSubstr("+-- …"));
  EXPECT_THAT(depth.out, HasSubstr("[0x0008, 339B]  92 rows, 339 bytes, below --depth 1\n"));
  const Outcome path =
      Kwire({"explain", "--vector", vector, "--path", "MetadataResponse.Topics[4].Name"});
  ASSERT_EQ(path.rc, kExitOk) << path.err;
  EXPECT_THAT(path.out, HasSubstr("the rows of MetadataResponse.Topics[4].Name only)"));
  EXPECT_THAT(path.out, HasSubstr("= \"__consumer_offsets\""));
  EXPECT_THAT(path.out, Not(HasSubstr("kwire-clients")));
  // A path no row has: the title, the body's fields, exit 1.
  const Outcome none = Kwire({"explain", "--vector", vector, "--path", "Topics[5]"});
  EXPECT_EQ(none.rc, kExitFailure);
  EXPECT_EQ(none.out, "MetadataResponse v4, response header v0, 347 bytes on the wire\n");
  EXPECT_THAT(none.err, HasSubstr("--path 'Topics[5]' matches no row of MetadataResponse"));
  // Usage errors.
  EXPECT_EQ(Kwire({"explain", "--vector", vector, "--depth", "x"}).rc, kExitUsage);
  EXPECT_EQ(Kwire({"explain", "--vector", vector, "--depth", "-1"}).rc, kExitUsage);
  const Outcome html = Kwire({"explain", "--vector", vector, "--path", "Topics", "--html", "-"});
  EXPECT_EQ(html.rc, kExitUsage);
  EXPECT_THAT(html.err, HasSubstr("--html writes the whole page"));
}

TEST(KwireCli, Conformance) {
  const std::string dir = KWIRE_TEST_VECTORS_DIR;
  const std::string junit = testing::TempDir() + "/kwire-junit.xml";
  const std::string json = testing::TempDir() + "/kwire.json";
  const Outcome o = Kwire({"conformance", dir, "--junit", junit, "--json", json});
  EXPECT_EQ(o.rc, kExitOk) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("minimal.txt"));
  EXPECT_THAT(o.out, HasSubstr("seed nodes matched"));
  EXPECT_THAT(o.out, HasSubstr("PASS: 740 vectors, 740 passed, 0 failed"));
  std::ifstream j(junit);
  std::string xml((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
  EXPECT_THAT(xml,
              HasSubstr("<testsuites name=\"kwire conformance\" tests=\"740\" failures=\"0\""));
  std::ifstream k(json);
  std::string js((std::istreambuf_iterator<char>(k)), std::istreambuf_iterator<char>());
  EXPECT_THAT(js, HasSubstr("\"ok\": true"));
  EXPECT_THAT(js, HasSubstr("\"total\": 740"));
  // Default directory (the source tree's, in a build tree).
  EXPECT_EQ(Kwire({"conformance"}).rc, kExitOk);
  EXPECT_EQ(Kwire({"conformance", "/nonexistent/dir"}).rc, kExitUsage);
}

// decode --json prints the mapping of conformance/FORMAT.md; encode turns it back into
// the frame, for every vector of minimal.txt (requests and responses).
TEST(KwireCli, DecodeJsonEncodeRoundTrip) {
  const Outcome d = Kwire({"decode", "request", "--json"}, kDdt3Request);
  EXPECT_EQ(d.rc, kExitOk) << d.err;
  EXPECT_EQ(d.out,
            R"({"api_key":41,"api_name":"DescribeDelegationToken","version":3,)"
            R"("direction":"request","header_version":2,"header":{"RequestApiKey":41,)"
            R"("RequestApiVersion":3,"CorrelationId":0,"ClientId":""},)"
            R"("body":{"Owners":[{"PrincipalType":"","PrincipalName":""}]},)"
            R"("frame":"0000001000290003000000000000000201010000"})"
            "\n");
  const Outcome e = Kwire({"encode"}, d.out);
  EXPECT_EQ(e.rc, kExitOk) << e.err;
  EXPECT_EQ(e.out, std::string(kDdt3Request) + "\n");
  const Outcome b = Kwire({"encode", "--binary"}, d.out);
  EXPECT_EQ(b.rc, kExitOk);
  EXPECT_EQ(b.out.size(), 20u);

  std::ifstream in(std::string(KWIRE_TEST_VECTORS_DIR) + "/minimal.txt");
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string key, name, version, dir, size, hex;
    fields >> key >> name >> version >> dir >> size >> hex;
    std::vector<std::string> args{"decode", dir, "--json", "--quiet"};
    if (dir == "response") args.insert(args.end(), {"--api", key, "--version", version});
    const Outcome j = Kwire(args, hex);
    ASSERT_EQ(j.rc, kExitOk) << line << j.err;
    const Outcome f = Kwire({"encode"}, j.out);
    ASSERT_EQ(f.rc, kExitOk) << line << f.err;
    EXPECT_EQ(f.out, hex + "\n") << j.out;
    ++n;
  }
  EXPECT_EQ(n, 618u);
}

TEST(KwireCli, EncodeErrors) {
  // Several objects, one per line: the good ones are printed, each bad one names its line.
  const std::string good =
      R"({"api_key": 41, "version": 3, "direction": "request", "header": {}, "body": {}})";
  const Outcome o = Kwire(
      {"encode"},
      good + "\n\n" +
          R"({"api_key": 41, "version": 3, "direction": "request", "header": {}, "body": {"Owners": 1}})"
          "\n{oops\n" +
          R"({"api_key": 41, "version": 9, "direction": "request", "header": {}, "body": {}})"
          "\n");
  EXPECT_EQ(o.rc, kExitFailure);
  EXPECT_EQ(o.out, "0000000d00290003000000000000000100\n");
  EXPECT_EQ(o.err,
            "kwire encode: line 3: body.Owners: expected an array\n"
            "kwire encode: line 4: not valid JSON: parse error at line 1, column 2: syntax error "
            "while parsing object key - invalid literal; last read: '{o'; expected string "
            "literal\n"
            "kwire encode: line 5: DescribeDelegationTokenRequest has no version 9\n");
  EXPECT_EQ(Kwire({"encode"}, "").rc, kExitFailure);
  EXPECT_EQ(Kwire({"encode", "extra"}, good).rc, kExitUsage);
  EXPECT_EQ(Kwire({"encode", "--hex"}, good).rc, kExitUsage);
  // One object over several lines is one frame.
  const Outcome multi = Kwire({"encode"}, "{\"api_key\": 41,\n \"version\": 3,\n"
                                          " \"direction\": \"request\", \"header\": {},"
                                          " \"body\": {}}\n");
  EXPECT_EQ(multi.rc, kExitOk) << multi.err;
  EXPECT_EQ(multi.out, "0000000d00290003000000000000000100\n");
}

// Expected failures: a listed vector that fails is expected; one that passes is an error;
// an unlisted failure fails the run.
TEST(KwireCli, ConformanceExpectedFailures) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::TempDir()) / "kwire-conf";
  fs::remove_all(root);
  fs::create_directories(root / "vectors");
  {
    std::ofstream v(root / "vectors" / "mini.txt");
    v << "# test vectors\n"
      << "41 DescribeDelegationToken 3 request 20 " << kDdt3Request << "\n"
      << "41 DescribeDelegationToken 3 response 20 " << kDdt3Request << "\n";  // wrong
  }
  const std::string dir = (root / "vectors").string();
  const Outcome fail = Kwire({"conformance", dir});
  EXPECT_EQ(fail.rc, kExitFailure);
  EXPECT_THAT(fail.out, HasSubstr("FAIL mini.txt:3 41 DescribeDelegationToken v3 response"));
  EXPECT_THAT(fail.out, HasSubstr("FAIL: 2 vectors, 1 passed, 1 failed"));

  {
    std::ofstream e(root / "expected_failures.txt");
    e << "# known\n41 3 response  # transcription test\n";
  }
  const Outcome expected = Kwire({"conformance", dir});
  EXPECT_EQ(expected.rc, kExitOk) << expected.out;
  EXPECT_THAT(expected.out, HasSubstr("1 expected failures"));

  {
    std::ofstream e(root / "expected_failures.txt");
    e << "41 3 request  # claims to fail but passes\n41 3 response # real\n";
  }
  const Outcome xpass = Kwire({"conformance", dir});
  EXPECT_EQ(xpass.rc, kExitFailure);
  EXPECT_THAT(xpass.out, HasSubstr("XPASS mini.txt:2"));
  EXPECT_THAT(xpass.out, HasSubstr("but passes: remove it from the list"));
  // The message names the list's line (the default list: <dir>/../expected_failures.txt).
  EXPECT_THAT(xpass.out, HasSubstr("expected_failures.txt:1 (claims to fail but passes)"));
  // A list given with --expected-failures is named as given.
  const std::string own = (root / "own-list.txt").string();
  {
    std::ofstream e(own);
    e << "# mine\n41 3 request  # claims to fail\n";
  }
  const Outcome named = Kwire({"conformance", dir, "--expected-failures", own});
  EXPECT_EQ(named.rc, kExitFailure);
  EXPECT_THAT(named.out, HasSubstr("listed in " + own + ":2 (claims to fail) but passes"));
  fs::remove_all(root);
}

// --html (issue 34 item 3): the report page beside the console output, whose text and
// exit status are those of the same run without it. A deliberately wrong testee: its
// roundtrip changes byte 11 (the correlation_id's last byte), it accepts every frame's
// roundtrip, and its validate rejects every frame with a hostile error text.
TEST(KwireCli, ConformanceHtmlReport) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::TempDir()) / "kwire-conf-html";
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path script = root / "wrong.py";
  std::ofstream(script)
      << "import json, sys\n"
         "for line in sys.stdin:\n"
         "    q = json.loads(line)\n"
         "    if q['type'] == 'hello':\n"
         "        print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'wrong', 'version': '1',\n"
         "                          'operations': ['roundtrip', 'validate']}), flush=True)\n"
         "        continue\n"
         "    f = q['frame']\n"
         "    if q['op'] == 'roundtrip':\n"
         "        a = {'result': 'ok', 'frame': f[:22] + ('01' if f[22:24] == '00' else '00') + f[24:]}\n"
         "    else:\n"
         "        a = {'result': 'rejected', 'error': '</script><script>window.__pwned=1</script>'}\n"
         "    print(json.dumps(dict(a, seq=q['seq'])), flush=True)\n";
  const std::string page = (root / "report.html").string();
  std::vector<std::string> args = {"conformance", KWIRE_TEST_VECTORS_DIR, "--testee",
                                   "python3 " + script.string(), "--api", "DescribeDelegationToken",
                                   "--version", "3", "--direction", "request"};
  const Outcome plain = Kwire(args);
  args.insert(args.end(), {"--html", page});
  const Outcome html = Kwire(args);
  EXPECT_EQ(plain.rc, kExitFailure) << plain.out << plain.err;
  EXPECT_EQ(html.rc, plain.rc);
  EXPECT_EQ(html.out, plain.out);
  std::ifstream in(page);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("<script>window"), std::string::npos);  // the testee's text is data
  const std::optional<std::string> data_text = html::PageDataText(text);
  ASSERT_TRUE(data_text.has_value());
  const nlohmann::json data = nlohmann::json::parse(*data_text);
  EXPECT_EQ(data["page"], "conformance");
  EXPECT_EQ(data["mode"], "testee");
  EXPECT_EQ(data["ok"], false);
  // Every request vector of DescribeDelegationToken v3 fails: 7 accept, 5 reject.
  EXPECT_EQ(data["vectors"], 12);
  EXPECT_EQ(data["totals"][1], 12);
  EXPECT_EQ(data["failures_total"], 12);
  ASSERT_EQ(data["failures"].size(), 12u);
  size_t checked = 0;
  for (const auto& f : data["failures"]) {
    if (f["id"] == "minimal/DescribeDelegationToken/v3/request") {
      EXPECT_EQ(f["checks"][0]["check"], "roundtrip");
      EXPECT_EQ(f["mark"]["offset"], 11);  // the first differing byte
      EXPECT_EQ(f["mark"]["path"], "RequestHeader.correlation_id");
      EXPECT_EQ(f["checks"][1]["error"], "</script><script>window.__pwned=1</script>");
      EXPECT_EQ(f["checks"][0]["compare"]["diffs"], nlohmann::json::parse(R"(["frame"])"));
      EXPECT_EQ(f["command"], std::string("kwire explain --vector ") + KWIRE_TEST_VECTORS_DIR +
                                  "/minimal.jsonl:431");
      ++checked;
    }
    if (f["id"] == "negative/DescribeDelegationToken/v3/request/varint_overflow") {
      EXPECT_EQ(f["mark"]["offset"], 16);  // the vector's error, which the testee missed
      EXPECT_EQ(f["frame"]["error"]["offset"], 16);
      EXPECT_NE(f["mutation"], "");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u);
  // Native: every vector passes; the page says so.
  const std::string native = (root / "native.html").string();
  const Outcome n = Kwire({"conformance", KWIRE_TEST_VECTORS_DIR, "--html", native});
  EXPECT_EQ(n.rc, kExitOk) << n.out;
  std::ifstream nin(native);
  const std::string ntext((std::istreambuf_iterator<char>(nin)), std::istreambuf_iterator<char>());
  const nlohmann::json nd = nlohmann::json::parse(html::PageDataText(ntext).value_or("null"));
  EXPECT_EQ(nd["mode"], "native");
  EXPECT_EQ(nd["ok"], true);
  EXPECT_EQ(nd["totals"][0], 740);
  EXPECT_TRUE(nd["failures"].empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace kwire::cli
