// Verdicts, comparisons and signatures of `kwire diff` (compare.h).
#include "tools/diff/compare.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codec/harness/explain.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"

namespace kwire::diff {
namespace {

// The first JSON path where `x` and `y` differ (an int64 may be a number on one side and
// its decimal string on the other), or nullopt.
std::optional<std::string> FirstJsonDifference(const Json& x, const Json& y, const std::string& path) {
  if (x.is_object() && y.is_object()) {
    for (const auto& [k, v] : x.items()) {
      const std::string p = path.empty() ? k : absl::StrCat(path, ".", k);
      auto it = y.find(k);
      if (it == y.end()) return p;
      if (auto d = FirstJsonDifference(v, *it, p)) return d;
    }
    for (const auto& [k, v] : y.items()) {
      if (!x.contains(k)) return path.empty() ? k : absl::StrCat(path, ".", k);
    }
    return std::nullopt;
  }
  if (x.is_array() && y.is_array()) {
    if (x.size() != y.size()) return path;
    for (size_t i = 0; i < x.size(); ++i) {
      if (auto d = FirstJsonDifference(x[i], y[i], absl::StrCat(path, "[", i, "]"))) return d;
    }
    return std::nullopt;
  }
  if (x == y) return std::nullopt;
  auto int_text = [](const Json& n, const Json& s) {
    return (n.is_number_integer() || n.is_number_unsigned()) && s.is_string() &&
           n.dump() == s.get<std::string>();
  };
  if (int_text(x, y) || int_text(y, x)) return std::nullopt;
  return path;
}

Json ValueOf(const Answer& a) {
  Json v = Json::object();
  for (const char* k : {"header", "body", "body_version"}) {
    if (auto it = a.json.find(k); it != a.json.end()) v[k] = *it;
  }
  return v;
}

bool HasValue(const Answer& a) {
  return a.json.is_object() && a.json.contains("header") && a.json.contains("body");
}

std::string FrameHex(const Answer& a) {
  if (!a.json.is_object()) return "";
  auto it = a.json.find("frame");
  if (it == a.json.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "P.TopicData[].Name" -> "Name", "P.tagged_fields" -> "tagged_fields"; the parts of a
// length, count, tag header or presence keep the one before ("Records.length",
// "P.tagged_fields.tag7.size" -> "tag.size", its number dropped).
std::string LastField(const std::string& normalized) {
  const size_t dot = normalized.rfind('.');
  if (dot == std::string::npos) return normalized;
  const std::string last = normalized.substr(dot + 1);
  static const char* const kGeneric[] = {"length", "count", "size", "tag", "present"};
  if (std::find(std::begin(kGeneric), std::end(kGeneric), last) == std::end(kGeneric)) return last;
  const size_t before = normalized.rfind('.', dot - 1);
  std::string prev = normalized.substr(before == std::string::npos ? 0 : before + 1, dot - before - 1);
  if (before == std::string::npos) prev = normalized.substr(0, dot);
  if (prev.rfind("tag", 0) == 0 && prev.size() > 3 && std::isdigit(static_cast<unsigned char>(prev[3]))) prev = "tag";
  return absl::StrCat(prev, ".", last);
}

std::string KindAt(const LocalView& v) {
  return v.path.empty() ? v.kind : absl::StrCat(v.kind, " @ ", NormalizePath(v.path));
}

std::string KindAtLast(const LocalView& v) {
  return v.path.empty() ? v.kind : absl::StrCat(v.kind, " @ ", LastField(NormalizePath(v.path)));
}

// The path of the deepest node of kwire's explanation of `frame` that holds byte `offset`
// (read with every Java quirk, as far as it reads), or "byte N".
std::string PathAtOffset(const std::string& hex, const Mutant& m, size_t offset) {
  std::vector<uint8_t> frame;
  auto nibble = [](char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    if (!std::isxdigit(static_cast<unsigned char>(hex[i])) || !std::isxdigit(static_cast<unsigned char>(hex[i + 1]))) {
      return absl::StrCat("byte ", offset);
    }
    frame.push_back(static_cast<uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  PrintOptions po;
  po.decode.quirks = kQuirksJava;
  po.records_mode = RecordsMode::kOpaque;
  po.max_array_elements = 256;
  po.max_nodes = 8000;
  const FrameExplanation ex = m.response ? ExplainResponseFrame(frame, m.api_key, m.version, po)
                                         : ExplainRequestFrame(frame, po);
  const PrintNode* best = nullptr;
  for (const PrintNode& n : ex.nodes) {
    if (n.offset <= offset && offset < n.offset + n.size && !n.path.empty() &&
        (best == nullptr || n.depth >= best->depth)) {
      best = &n;
    }
  }
  return best ? best->path : absl::StrCat("byte ", offset);
}

}  // namespace

std::string StringMember(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kOk: return "ok";
    case Verdict::kRejected: return "rejected";
    case Verdict::kRefused: return "refused";
    case Verdict::kUnsupported: return "unsupported";
    case Verdict::kCrashed: return "crashed";
    case Verdict::kDied: return "died";
    case Verdict::kHang: return "hang";
    case Verdict::kMemory: return "memory";
    case Verdict::kGarbage: return "garbage";
    case Verdict::kNotRun: return "not run";
  }
  return "?";
}

std::optional<Difference> Differ(const Answer& a, const Answer& b) {
  if (a.verdict != b.verdict) return Difference{"verdict", ""};
  if (a.verdict == Verdict::kRejected) return std::nullopt;
  if (a.verdict == Verdict::kRefused) {
    auto refusals = [](const Answer& x) {
      auto it = x.json.is_object() ? x.json.find("refusals") : x.json.end();
      return it != x.json.end() && it->is_array() ? *it : Json::array();
    };
    const Json ra = refusals(a), rb = refusals(b);
    for (size_t i = 0; i < std::max(ra.size(), rb.size()); ++i) {
      if (i >= ra.size() || i >= rb.size() || !ra[i].is_object() || !rb[i].is_object() ||
          ra[i].value("part", Json()) != rb[i].value("part", Json()) ||
          ra[i].value("error_code", Json()) != rb[i].value("error_code", Json())) {
        const Json& r = i < ra.size() ? ra[i] : rb[i];
        return Difference{"refusals", StringMember(r, "part")};
      }
    }
  }
  if (a.op == "decode" && b.op == "decode" && HasValue(a) && HasValue(b)) {
    if (auto d = FirstJsonDifference(ValueOf(a), ValueOf(b), "")) return Difference{"value", *d};
  }
  if (a.op == "roundtrip" && b.op == "roundtrip") {
    const std::string fa = FrameHex(a), fb = FrameHex(b);
    if (!fa.empty() && !fb.empty() && fa != fb) {
      // The first difference after the size prefix (frames of other lengths differ there).
      size_t i = std::min<size_t>({8, fa.size(), fb.size()});
      while (i < fa.size() && i < fb.size() && fa[i] == fb[i]) ++i;
      return Difference{"reencoding", absl::StrCat("byte ", i / 2)};
    }
  }
  return std::nullopt;
}

LocalView KwireView(const Mutant& m) {
  LocalView v;
  auto error = [&](const absl::Status& s) {
    if (std::optional<Error> e = ErrorFromStatus(s)) {
      v.kind = ErrorKindName(e->kind);
      v.offset = e->offset;
      v.path = e->path;
    } else {
      v.kind = "error";
    }
  };
  if (!m.response) {
    absl::StatusOr<BrokerRead> r = ReadRequestAsBroker(m.frame);
    if (!r.ok()) {
      error(r.status());
    } else if (r->refused()) {
      v.kind = absl::StrCat("refused ", ErrorKindName(r->refusals[0].fault.kind));
      v.offset = r->refusals[0].fault.offset;
      v.path = r->refusals[0].fault.path;
    } else {
      v.kind = "accepted";
    }
    return v;
  }
  if (FindApi(m.api_key) == nullptr) {
    v.kind = "unknown_api_key";
    return v;
  }
  absl::StatusOr<ResponseFrame> f = DecodeResponseFrame(m.frame, m.api_key, m.version);
  if (!f.ok()) {
    error(f.status());
  } else {
    v.kind = "accepted";
  }
  return v;
}

std::string NormalizePath(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] != '[') continue;
    size_t j = i + 1;
    while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j]))) ++j;
    if (j > i + 1 && j < path.size() && path[j] == ']') i = j - 1;
  }
  return out;
}

std::string ApiText(const Mutant& m) {
  const ApiInfo* api = FindApi(m.api_key);
  return absl::StrCat(api ? api->name : absl::StrCat("api ", m.api_key), m.response ? " response" : " request");
}

Outcome Classify(const Mutant& m, const std::vector<Answer>& answers, const std::vector<std::string>& labels,
                 const LocalView& view, const std::vector<bool>* only) {
  Outcome o;
  const std::string api = ApiText(m);
  for (size_t i = 0; i < answers.size(); ++i) {
    if (!IsFault(answers[i].verdict)) continue;
    o.fault_testees.push_back(i);
    o.fault_signatures.push_back(
        absl::StrCat(api, " | ", labels[i], "=", VerdictName(answers[i].verdict), " | ", KindAt(view)));
    o.classes.push_back({i, i, absl::StrCat(VerdictName(answers[i].verdict), ": ", KindAtLast(view))});
  }
  // Groups of testees whose comparable answers agree with the group's first.
  std::vector<std::vector<size_t>> groups;
  std::vector<int> group_of(answers.size(), -1);
  for (size_t i = 0; i < answers.size(); ++i) {
    if (!Comparable(answers[i].verdict) || (only != nullptr && !(*only)[i])) continue;
    for (size_t g = 0; g < groups.size() && group_of[i] < 0; ++g) {
      if (!Differ(answers[groups[g][0]], answers[i])) {
        groups[g].push_back(i);
        group_of[i] = static_cast<int>(g);
      }
    }
    if (group_of[i] < 0) {
      group_of[i] = static_cast<int>(groups.size());
      groups.push_back({i});
    }
  }
  if (groups.size() < 2) return o;
  // A verdict shared by several groups gets a letter per group.
  std::map<Verdict, int> per_verdict, letter;
  for (const auto& g : groups) ++per_verdict[answers[g[0]].verdict];
  std::vector<std::string> group_name;
  bool verdicts_differ = false;
  for (const auto& g : groups) {
    const Verdict v = answers[g[0]].verdict;
    verdicts_differ |= v != answers[groups[0][0]].verdict;
    std::string name = VerdictName(v);
    if (per_verdict[v] > 1) absl::StrAppend(&name, ":", std::string(1, static_cast<char>('a' + letter[v]++)));
    group_name.push_back(std::move(name));
  }
  auto where = [&](size_t i, size_t j, bool last) {
    const std::optional<Difference> d = Differ(answers[i], answers[j]);
    if (!d || d->what == "verdict") return last ? KindAtLast(view) : KindAt(view);
    std::string at = d->where;
    if (d->what == "reencoding") at = PathAtOffset(FrameHex(answers[i]), m, std::stoul(at.substr(5)));
    at = NormalizePath(at);
    return absl::StrCat(d->what, " @ ", last ? LastField(at) : at);
  };
  std::vector<std::string> parts;
  for (size_t i = 0; i < answers.size(); ++i) {
    if (group_of[i] >= 0) parts.push_back(absl::StrCat(labels[i], "=", group_name[group_of[i]]));
  }
  const std::string what = verdicts_differ ? KindAt(view) : where(groups[0][0], groups[1][0], false);
  o.signature = absl::StrCat(api, " | ", absl::StrJoin(parts, " "), " | ", what);
  // A pair's class names the error of the side that rejects (or refuses) when its answer
  // gives a kind and a path (kwire's testee does), else kwire's strict reading.
  auto own = [&](size_t i) -> std::optional<std::string> {
    const Json& a = answers[i].json;
    Json e = a;
    std::string prefix;
    if (answers[i].verdict == Verdict::kRefused) {
      auto it = a.is_object() ? a.find("refusals") : a.end();
      if (it == a.end() || !it->is_array() || it->empty()) return std::nullopt;
      e = (*it)[0];
      prefix = "refused ";
    } else if (answers[i].verdict != Verdict::kRejected) {
      return std::nullopt;
    }
    const std::string kind = StringMember(e, "kind"), path = StringMember(e, "path");
    if (kind.empty() || !e.contains("path")) return std::nullopt;
    return absl::StrCat(prefix, KindAtLast(LocalView{kind, 0, path}));
  };
  for (size_t i = 0; i < answers.size(); ++i) {
    for (size_t j = i + 1; j < answers.size(); ++j) {
      if (group_of[i] < 0 || group_of[j] < 0 || group_of[i] == group_of[j]) continue;
      const Verdict vi = answers[i].verdict, vj = answers[j].verdict;
      std::string cls;
      if (vi == vj) {
        cls = where(i, j, true);
      } else if (std::optional<std::string> k = own(i).has_value() ? own(i) : own(j)) {
        cls = *k;
      } else {
        cls = KindAtLast(view);
      }
      o.classes.push_back({i, j, absl::StrCat(VerdictName(vi), " vs ", VerdictName(vj), ": ", cls)});
    }
  }
  return o;
}

}  // namespace kwire::diff
