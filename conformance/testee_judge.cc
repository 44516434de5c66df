// The testee runner's verdicts (testee.h, JudgeAnswer): an answer against its vector.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "conformance/testee.h"
#include "conformance/testee_internal.h"
#include "tools/json/json.h"

#include "codec/harness/explain.h"
#include "codec/harness/tree_path.h"
#include "codec/wire/byte_diff.h"
#include "codec/wire/hex.h"

namespace kwire::conformance {
namespace {

using Json = nlohmann::ordered_json;
using testee_internal::Clean;
using testee_internal::kOps;
using testee_internal::Shorten;

// The error members of a reject vector or of a rejected answer: {"kind", "offset",
// "path"} as far as given (and the answer's own "error" text).
Json ErrorMembers(const Json& from) {
  Json e = Json::object();
  for (const char* k : {"kind", "offset", "path", "error"}) {
    if (auto it = from.find(k); it != from.end() && !it->is_null() && !it->is_object()) e[k] = *it;
  }
  return e;
}

// Where a rejection's kind, offset or path (those the answer gives) differ from the
// vector's: "kind invalid_length (expected truncated), offset 14 (expected 12)", or "".
std::string ErrorDifference(const Json& expected, const Json& answered) {
  std::vector<std::string> d;
  for (const char* k : {"kind", "offset", "path"}) {
    auto a = answered.find(k);
    auto e = expected.find(k);
    if (a == answered.end() || e == expected.end() || *a == *e) continue;
    d.push_back(absl::StrCat(k, " ", a->is_string() ? a->get<std::string>() : a->dump(), " (expected ",
                             e->is_string() ? e->get<std::string>() : e->dump(), ")"));
  }
  return absl::StrJoin(d, ", ");
}

std::string ErrorOfAnswer(const Json& a) {
  std::string s;
  if (auto it = a.find("error"); it != a.end()) s = it->is_string() ? it->get<std::string>() : it->dump();
  std::vector<std::string> where;
  if (auto it = a.find("kind"); it != a.end() && it->is_string()) where.push_back(it->get<std::string>());
  if (auto it = a.find("offset"); it != a.end() && it->is_number()) where.push_back(absl::StrCat("at byte ", it->dump()));
  if (auto it = a.find("path"); it != a.end() && it->is_string() && !it->get<std::string>().empty()) {
    where.push_back(absl::StrCat("in ", it->get<std::string>()));
  }
  if (!where.empty()) absl::StrAppend(&s, s.empty() ? "" : " ", "[", absl::StrJoin(where, " "), "]");
  return Clean(s);
}

// "INVALID_RECORD (87) for ProduceRequest.TopicData[0].PartitionData[0].Records": the
// refusals a refuse vector expects, or an answer gives.
std::string RefusalsText(const Json& refusals) {
  std::vector<std::string> parts;
  if (refusals.is_array()) {
    for (const Json& r : refusals) {
      if (!r.is_object()) continue;
      parts.push_back(absl::StrFormat(
          "%s (%s) for %s", r.contains("error") ? r["error"].dump() : "?",
          r.contains("error_code") ? r["error_code"].dump() : "?",
          r.contains("part") && r["part"].is_string() ? r["part"].get<std::string>() : "?"));
    }
  }
  return parts.empty() ? "no parts" : Clean(absl::StrJoin(parts, "; "));
}

// Compares an answer's "refusals" with the vector's: the same parts, in order, each with
// the same error code. kind, offset and path are shown, never judged (as for rejects).
std::optional<std::string> RefusalsDifference(const JsonlVector& v, const Json& a) {
  const Json& want = v.record["refusals"];
  auto it = a.find("refusals");
  if (it == a.end() || !it->is_array()) return "the answer has no \"refusals\" array";
  const Json& got = *it;
  bool same = got.size() == want.size();
  for (size_t i = 0; same && i < got.size(); ++i) {
    same = got[i].is_object() && got[i].value("part", Json()) == want[i]["part"] &&
           got[i].value("error_code", Json()) == want[i]["error_code"];
  }
  if (same) return std::nullopt;
  return absl::StrCat("refused ", Shorten(RefusalsText(got), 300), "; a broker answers ",
                      Shorten(RefusalsText(want), 300));
}

std::string ExpectedError(const JsonlVector& v) {
  const Json& e = v.record.value("error", Json::object());
  const std::string path = e.value("path", std::string());
  return absl::StrFormat("%s at byte %s%s", e.value("kind", "?"),
                         e.contains("offset") ? e["offset"].dump() : "?",
                         path.empty() ? "" : " in " + path);
}

}  // namespace

namespace {

void CollectDifferences(const Json& want, const Json& got, const std::string& path, size_t limit,
                        std::vector<ValueDifference>& out, size_t* more) {
  auto add = [&](std::string at, std::string text) {
    if (out.size() < limit) {
      out.push_back({std::move(at), std::move(text), std::nullopt});
    } else if (more != nullptr) {
      ++*more;
    }
  };
  auto child = [&](const std::string& k) { return path.empty() ? k : absl::StrCat(path, ".", k); };
  if (want.is_object()) {
    if (!got.is_object()) return add(path, absl::StrCat("expected an object, answered ", Shorten(got.dump())));
    for (const auto& [k, v] : want.items()) {
      auto it = got.find(k);
      if (it == got.end()) {
        add(child(k), "missing");
      } else {
        CollectDifferences(v, *it, child(k), limit, out, more);
      }
    }
    for (const auto& [k, v] : got.items()) {
      if (!want.contains(k)) add(child(k), "not in the vector (an unexpected member)");
    }
    return;
  }
  if (want.is_array()) {
    if (!got.is_array()) return add(path, absl::StrCat("expected an array, answered ", Shorten(got.dump())));
    if (want.size() != got.size()) {
      return add(path, absl::StrFormat("%d elements expected, %d answered", want.size(), got.size()));
    }
    for (size_t i = 0; i < want.size(); ++i) {
      CollectDifferences(want[i], got[i], absl::StrCat(path, "[", i, "]"), limit, out, more);
    }
    return;
  }
  if (want == got) return;
  if (want.is_string() && (got.is_number_integer() || got.is_number_unsigned()) &&
      got.dump() == want.get<std::string>()) {
    return;  // int64 as a number
  }
  add(path, absl::StrCat("expected ", Shorten(want.dump()), ", answered ", Shorten(got.dump())));
}

}  // namespace

std::vector<ValueDifference> ValueDifferences(const Json& want, const Json& got,
                                              const std::string& path, size_t limit, size_t* more) {
  std::vector<ValueDifference> out;
  CollectDifferences(want, got, path, limit, out, more);
  return out;
}

std::vector<std::string> OperationsFor(const JsonlVector& v, const std::vector<std::string>& ops) {
  std::vector<std::string> out;
  for (const std::string& op : ops) {
    if (!v.accept && op == "encode") continue;
    out.push_back(op);
  }
  return out;
}

void JudgeAnswer(const JsonlVector& v, const std::string& op, const Json& a, OpResult& r) {
  r.op = op;
  auto fail = [&](std::string why) {
    r.verdict = "fail";
    r.detail = std::move(why);
  };
  if (!a.contains("result") || !a["result"].is_string()) {
    r.answer = "garbage";
    return fail(absl::StrCat("the answer has no \"result\": ", Shorten(a.dump())));
  }
  const std::string result = a["result"].get<std::string>();
  r.answer = result;
  if (result == "unsupported") {
    r.verdict = "unsupported";
    r.detail = a.value("reason", std::string());
    return;
  }
  if (result == "crashed") {
    r.error = ErrorOfAnswer(a);
    return fail(absl::StrCat("the implementation crashed: ", Shorten(r.error, 400)));
  }
  if (result == "rejected") {
    r.error = ErrorOfAnswer(a);
    if (v.refuse) {
      return fail(absl::StrCat("called a frame unreadable that a broker reads (it answers ",
                               Shorten(RefusalsText(v.record["refusals"]), 300),
                               "): ", Shorten(r.error, 400)));
    }
    if (v.accept) return fail(absl::StrCat("rejected a valid frame: ", Shorten(r.error, 400)));
    r.expected_error = ErrorMembers(v.record.value("error", Json::object()));
    r.answered_error = ErrorMembers(a);
    r.verdict = "pass";
    r.detail = absl::StrCat("expected ", ExpectedError(v));
    if (const std::string d = ErrorDifference(r.expected_error, r.answered_error); !d.empty()) {
      r.other_error = true;
      // The difference first, then both errors whole, side by side (a new user saw only
      // "offset 37 (expected 35)" and had to look the kind and path up).
      const Json& got = r.answered_error;
      const std::string got_path = got.value("path", std::string());
      // Only what the answer gives: a testee that reports no offset gets no "at byte".
      r.detail = absl::StrCat(
          "rejected with another error: ", d, "; answered ", got.value("kind", "an error"),
          got.contains("offset") ? absl::StrCat(" at byte ", got["offset"].dump()) : "",
          got_path.empty() ? "" : " in " + got_path, ", expected ", ExpectedError(v));
    }
    return;
  }
  // Refusals are the verdict of decode and validate; encode and roundtrip read and write
  // bytes, whatever a broker then does with them.
  const bool judge_refusal = v.refuse && (op == "decode" || op == "validate");
  if (result == "refused") {
    r.error = Shorten(RefusalsText(a.value("refusals", Json())), 400);
    if (!v.accept) {
      return fail(absl::StrCat("read a frame that cannot be read (", ExpectedError(v),
                               ") and refused part of it: ", r.error));
    }
    if (!judge_refusal) {
      return fail(v.refuse ? absl::StrCat(op, " answers ok with the frame, not refused")
                           : absl::StrCat("refused a frame a broker takes whole: ", r.error));
    }
    if (auto d = RefusalsDifference(v, a)) return fail(*d);
  } else if (result != "ok") {
    r.answer = "garbage";
    return fail(absl::StrCat("unknown result \"", Shorten(result, 40), "\""));
  } else if (!v.accept) {
    return fail(absl::StrCat("accepted a frame that must be rejected (", ExpectedError(v),
                             v.lenient ? "; Java accepts it: --lenient leaves such vectors out" : "",
                             ")"));
  } else if (judge_refusal) {
    return fail(absl::StrCat("accepted a frame a broker refuses in part (it answers ",
                             Shorten(RefusalsText(v.record["refusals"]), 300), ")"));
  }
  std::vector<uint8_t> frame;
  ParseHex(v.record["frame"].get<std::string>(), frame);
  if (op == "validate") {
    r.verdict = "pass";
    return;
  }
  if (op == "encode" || op == "roundtrip") {
    auto it = a.find("frame");
    std::vector<uint8_t> got;
    if (it == a.end() || !it->is_string() || !ParseHex(it->get<std::string>(), got)) {
      return fail("the answer has no \"frame\" of hex digits");
    }
    if (got != frame) {
      return fail(absl::StrCat("different frame: ", DescribeFrameDifference(frame, got, "answered")));
    }
    r.verdict = "pass";
    return;
  }
  // decode
  std::vector<ValueDifference> differences;
  size_t more = 0;
  for (const char* part : {"header", "body"}) {
    if (!a.contains(part)) return fail(absl::StrCat("the answer has no \"", part, "\""));
    std::vector<ValueDifference> d = ValueDifferences(v.record[part], a[part], part, 8, &more);
    differences.insert(differences.end(), d.begin(), d.end());
    if (differences.size() > 8) {
      more += differences.size() - 8;
      differences.resize(8);
    }
  }
  if (!differences.empty()) {
    // Each difference at the bytes it was decoded from: the frame's own explanation.
    const Direction dir = v.request ? Direction::kRequest : Direction::kResponse;
    const FrameExplanation ex = v.request ? ExplainRequestFrame(frame)
                                          : ExplainResponseFrame(frame, v.api_key, v.version);
    std::vector<std::string> texts;
    r.differences = Json::array();
    for (ValueDifference& d : differences) {
      // The value's own node only (a member the vector lacks has none).
      const std::string tree_path = TreePathOfJsonPath(d.path, dir);
      const PrintNode* n = FindTreeNode(ex, tree_path);
      Json j = {{"path", d.path}, {"text", d.text}};
      if (n != nullptr && n->path == tree_path) {
        d.offset = n->offset;
        j["offset"] = n->offset;
        j["tree_path"] = n->path;
      }
      texts.push_back(d.offset ? absl::StrCat(d.path, " (byte ", *d.offset, "): ", d.text)
                               : absl::StrCat(d.path, ": ", d.text));
      r.differences.push_back(std::move(j));
    }
    return fail(absl::StrCat(absl::StrJoin(texts, "; "),
                             more > 0 ? absl::StrCat(" (and ", more, " more)") : ""));
  }
  Json j = {{"api_key", v.api_key},
            {"version", v.version},
            {"direction", v.request ? "request" : "response"},
            {"header", a["header"]},
            {"body", a["body"]}};
  if (v.record.contains("body_version")) j["body_version"] = v.record["body_version"];
  absl::StatusOr<std::vector<uint8_t>> bytes = FrameFromJson(j);
  if (!bytes.ok()) {
    return fail(absl::StrCat("the answer is not a valid message in the JSON mapping: ",
                             bytes.status().message()));
  }
  if (*bytes != frame) {
    return fail(absl::StrCat("the answer's values are not the frame's (encoded: ",
                             DescribeFrameDifference(frame, *bytes, "encoded"), ")"));
  }
  r.verdict = "pass";
}


}  // namespace kwire::conformance
