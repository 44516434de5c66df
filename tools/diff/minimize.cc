// Minimizing findings of `kwire diff` (minimize.h).
#include "tools/diff/minimize.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "codec/harness/explain.h"
#include "codec/protocol/refusal.h"
#include "fuzz/frame_mutator.h"
#include "fuzz/frame_parts.h"
#include "tools/json/json.h"

namespace kwire::diff {
namespace {

using Pointer = Json::json_pointer;

// A frame as JSON plus the bytes after what the JSON encodes.
struct Structured {
  Json json;
  std::vector<uint8_t> suffix;  // bytes after the body (trailing bytes), kept as they are
  int64_t delta = 0;            // size prefix minus the bytes after it
};

std::optional<std::vector<uint8_t>> Encode(const Structured& s) {
  absl::StatusOr<std::vector<uint8_t>> b = FrameFromJson(s.json);
  if (!b.ok()) return std::nullopt;
  b->insert(b->end(), s.suffix.begin(), s.suffix.end());
  FixSizePrefix(*b, s.delta);
  return std::move(*b);
}

// The JSON of `bytes` read with `quirks`, when it encodes back to them.
std::optional<Json> JsonOf(const Mutant& m, const std::vector<uint8_t>& bytes, uint32_t quirks,
                           absl::Status* status) {
  FrameOptions o;
  o.quirks = quirks;
  absl::StatusOr<Json> j = Json();
  if (m.response) {
    o.records_mode = RecordsMode::kOpaque;
    absl::StatusOr<ResponseFrame> f = DecodeResponseFrame(bytes, m.api_key, m.version, o);
    if (!f.ok()) {
      *status = f.status();
      return std::nullopt;
    }
    j = ResponseFrameToJson(*f, m.api_key, m.version);
  } else {
    absl::StatusOr<BrokerRead> r = ReadRequestAsBroker(bytes, o);
    if (!r.ok()) {
      *status = r.status();
      return std::nullopt;
    }
    j = RequestFrameToJson(r->frame);
  }
  if (!j.ok()) return std::nullopt;
  absl::StatusOr<std::vector<uint8_t>> again = FrameFromJson(*j);
  if (!again.ok() || *again != bytes) return std::nullopt;
  return std::move(*j);
}

std::optional<Structured> Structure(const Mutant& m, const std::vector<uint8_t>& frame) {
  for (const uint32_t quirks : {0u, kQuirksJava}) {
    absl::Status status;
    if (std::optional<Json> j = JsonOf(m, frame, quirks, &status)) return Structured{std::move(*j), {}, 0};
    // Trailing bytes: the frame up to them, and them kept.
    std::optional<Error> e = ErrorFromStatus(status);
    if (quirks == 0 && e && e->kind == ErrorKind::kTrailingBytes && e->offset < frame.size() &&
        SizePrefixDelta(frame) == 0) {
      std::vector<uint8_t> prefix(frame.begin(), frame.begin() + static_cast<ptrdiff_t>(e->offset));
      FixSizePrefix(prefix);
      absl::Status ignored;
      if (std::optional<Json> j = JsonOf(m, prefix, 0, &ignored)) {
        return Structured{std::move(*j), std::vector<uint8_t>(frame.begin() + static_cast<ptrdiff_t>(e->offset),
                                                              frame.end()),
                          0};
      }
    }
  }
  return std::nullopt;
}

// One reduction of the JSON.
struct Edit {
  int priority;  // lower first
  Pointer at;
  enum Kind { kClear, kFirstHalf, kSecondHalf, kRemove, kErase, kEmpty, kZero, kFalse } kind;
  size_t index = 0;    // kRemove: the element
  std::string member;  // kErase: the member
  Edit(int p, Pointer a, Kind k, size_t i = 0, std::string m = "")
      : priority(p), at(std::move(a)), kind(k), index(i), member(std::move(m)) {}
};

void Collect(const Json& j, const Pointer& at, bool header, std::vector<Edit>& out) {
  if (j.is_array()) {
    if (!j.empty()) out.push_back(Edit(0, at, Edit::kClear));
    if (j.size() >= 2) {
      out.push_back(Edit(2, at, Edit::kFirstHalf));
      out.push_back(Edit(2, at, Edit::kSecondHalf));
    }
    for (size_t i = 0; i < j.size() && i < 16; ++i) out.push_back(Edit(3, at, Edit::kRemove, i));
    for (size_t i = 0; i < j.size(); ++i) Collect(j[i], at / i, false, out);
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (header && (k == "RequestApiKey" || k == "RequestApiVersion")) continue;
      out.push_back(Edit(1, at, Edit::kErase, 0, k));
    }
    for (const auto& [k, v] : j.items()) Collect(v, at / k, false, out);
  } else if (j.is_string() && !j.get<std::string>().empty()) {
    out.push_back(Edit(4, at, Edit::kEmpty));
  } else if (j.is_number() && j != 0) {
    out.push_back(Edit(5, at, Edit::kZero));
  } else if (j.is_boolean() && j.get<bool>()) {
    out.push_back(Edit(6, at, Edit::kFalse));
  }
}

std::vector<Edit> Edits(const Json& j) {
  std::vector<Edit> out;
  for (const char* part : {"header", "body"}) {
    if (j.contains(part)) Collect(j[part], Pointer("/" + std::string(part)), part[0] == 'h', out);
  }
  std::stable_sort(out.begin(), out.end(), [](const Edit& a, const Edit& b) { return a.priority < b.priority; });
  return out;
}

Json Apply(const Json& j, const Edit& e) {
  Json out = j;
  Json& v = out.at(e.at);
  switch (e.kind) {
    case Edit::kClear: v = Json::array(); break;
    case Edit::kFirstHalf: v.erase(v.begin() + static_cast<ptrdiff_t>(v.size() / 2), v.end()); break;
    case Edit::kSecondHalf: v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() / 2)); break;
    case Edit::kRemove: v.erase(e.index); break;
    case Edit::kErase: v.erase(e.member); break;
    case Edit::kEmpty: {
      // An int64 is a decimal string: "0" rather than "".
      const std::string s = v.get<std::string>();
      v = s.find_first_not_of("-0123456789") == std::string::npos ? "0" : "";
      break;
    }
    case Edit::kZero: v = 0; break;
    case Edit::kFalse: v = false; break;
  }
  return out;
}

// Whether the fuzz mutator reads `frame` (strictly, else with every Java quirk) and writes
// it back as it is (strings that are not UTF-8 kept): then its mutations of the decoded
// message are changes of this frame alone.
bool MutatorReads(const Mutant& m, const std::vector<uint8_t>& frame) {
  for (const uint32_t quirks : {0u, kQuirksJava}) {
    FrameOptions o;
    o.quirks = quirks;
    absl::StatusOr<fuzz::FrameParts> p = fuzz::FrameParts::Decode(m.response, frame, m.api_key, m.version, o);
    if (!p.ok()) continue;
    absl::StatusOr<std::vector<uint8_t>> again = p->Encode(EncodeOptions{kQuirkInvalidUtf8});
    return again.ok() && *again == frame;
  }
  return false;
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// One structure-aware mutation of `frame` that makes it smaller, keeping the API and
// version (a request's header bytes 4-7, a response input's prefix); nullopt if this
// seed's mutation does not.
std::optional<std::vector<uint8_t>> SmallerMutation(const Mutant& m, const std::vector<uint8_t>& frame,
                                                    uint64_t seed) {
  std::vector<uint8_t> buf;
  if (m.response) {
    buf = {static_cast<uint8_t>(m.api_key >> 8), static_cast<uint8_t>(m.api_key),
           static_cast<uint8_t>(m.version >> 8), static_cast<uint8_t>(m.version)};
  }
  const size_t prefix = buf.size();
  buf.insert(buf.end(), frame.begin(), frame.end());
  const std::vector<uint8_t> before = buf;
  // max_size one byte below: a structure-aware result must be smaller; what is left is a
  // bit flip (no byte mutator), of the same size, and dropped below.
  const size_t n = fuzz::MutateFrameInput(m.response ? fuzz::InputKind::kResponseInput : fuzz::InputKind::kRequestFrame,
                                          buf.data(), buf.size(), buf.size() - 1, static_cast<unsigned>(seed),
                                          nullptr);
  if (n >= before.size() || n < prefix + 8) return std::nullopt;
  const size_t same = m.response ? 4 : 8;  // the prefix, or the size and the header's key and version
  if (!std::equal(before.begin() + (m.response ? 0 : 4), before.begin() + static_cast<ptrdiff_t>(same),
                  buf.begin() + (m.response ? 0 : 4))) {
    return std::nullopt;
  }
  return std::vector<uint8_t>(buf.begin() + static_cast<ptrdiff_t>(prefix), buf.begin() + static_cast<ptrdiff_t>(n));
}

// ---- Layout pass: regions of kwire's explanation of the frame removed, with the count
// or length in front of them made to say so.

std::vector<uint8_t> Uvarint(uint64_t v) {
  std::vector<uint8_t> out;
  do {
    out.push_back(static_cast<uint8_t>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
  return out;
}

size_t UvarintAt(const std::vector<uint8_t>& b, size_t at, uint64_t* value) {
  size_t n = 0;
  *value = 0;
  while (at + n < b.size() && n < 10) {
    *value |= static_cast<uint64_t>(b[at + n] & 0x7f) << (7 * n);
    if ((b[at + n++] & 0x80) == 0) return n;
  }
  return 0;
}

// A removal of [cut, cut + cut_size) with the count or length at [at, at + size)
// rewritten to `value` (an int32 or int16 big-endian, or a uvarint).
struct Removal {
  size_t cut, cut_size;
  size_t at, size;
  enum { kInt16, kInt32, kUvarint } enc;
  int64_t value;
};

std::vector<uint8_t> Apply(const std::vector<uint8_t>& frame, const Removal& x, int64_t delta) {
  std::vector<uint8_t> enc;
  if (x.enc == Removal::kUvarint) {
    enc = Uvarint(static_cast<uint64_t>(x.value));
  } else {
    const size_t n = x.enc == Removal::kInt16 ? 2 : 4;
    for (size_t i = 0; i < n; ++i) enc.push_back(static_cast<uint8_t>(x.value >> (8 * (n - 1 - i))));
  }
  std::vector<uint8_t> out(frame.begin(), frame.begin() + static_cast<ptrdiff_t>(x.at));
  out.insert(out.end(), enc.begin(), enc.end());
  out.insert(out.end(), frame.begin() + static_cast<ptrdiff_t>(x.at + x.size),
             frame.begin() + static_cast<ptrdiff_t>(x.cut));
  out.insert(out.end(), frame.begin() + static_cast<ptrdiff_t>(x.cut + x.cut_size), frame.end());
  FixSizePrefix(out, delta);
  return out;
}

std::vector<Removal> Removals(const Mutant& m, const std::vector<uint8_t>& frame) {
  PrintOptions po;
  po.decode.quirks = kQuirksJava;
  po.records_mode = RecordsMode::kOpaque;
  po.max_array_elements = 64;
  po.max_nodes = 4000;
  const FrameExplanation ex =
      m.response ? ExplainResponseFrame(frame, m.api_key, m.version, po) : ExplainRequestFrame(frame, po);
  const std::vector<PrintNode>& n = ex.nodes;
  using K = PrintNode::Kind;
  std::vector<Removal> out;
  auto fits = [&](size_t at, size_t size) { return size > 0 && at + size <= frame.size(); };
  for (size_t i = 0; i < n.size(); ++i) {
    if (!fits(n[i].offset, n[i].size)) continue;
    if (n[i].kind == K::kElement || n[i].kind == K::kTag) {
      // The count in front: an array's length node, a tagged-field section's count, at the
      // same depth before the element, within the same parent.
      for (size_t j = i; j-- > 0 && n[j].depth >= n[i].depth;) {
        if (n[j].depth != n[i].depth) continue;
        const bool count = n[j].kind == K::kLength || n[j].kind == K::kTaggedCount;
        if (!count || !fits(n[j].offset, n[j].size) || n[j].offset + n[j].size > n[i].offset) {
          if (count) break;
          continue;
        }
        Removal x{n[i].offset, n[i].size, n[j].offset, n[j].size, Removal::kUvarint, 0};
        if (n[j].type == "int32") {
          int64_t v = 0;
          for (size_t k = 0; k < 4; ++k) v = v << 8 | frame[n[j].offset + k];
          x.enc = Removal::kInt32;
          x.value = static_cast<int32_t>(v) - 1;
        } else {
          uint64_t v = 0;
          if (UvarintAt(frame, n[j].offset, &v) == 0 || v == 0) break;
          x.value = static_cast<int64_t>(v) - 1;
        }
        if (x.value >= 0) out.push_back(x);
        break;
      }
    } else if (n[i].kind == K::kField) {
      // A string or bytes value emptied: its length says 0.
      Removal x{0, 0, n[i].offset, 0, Removal::kUvarint, 1};
      if (n[i].detail.rfind("(compact, len+1=", 0) == 0) {
        uint64_t v = 0;
        x.size = UvarintAt(frame, n[i].offset, &v);
        if (v < 2) continue;
      } else if (n[i].detail.rfind("(int16 len=", 0) == 0) {
        x.size = 2;
        x.enc = Removal::kInt16;
        x.value = 0;
      } else if (n[i].detail.rfind("(int32 len=", 0) == 0) {
        x.size = 4;
        x.enc = Removal::kInt32;
        x.value = 0;
      } else {
        continue;
      }
      if (x.size == 0 || n[i].size <= x.size) continue;
      x.cut = n[i].offset + x.size;
      x.cut_size = n[i].size - x.size;
      out.push_back(x);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Removal& a, const Removal& b) { return a.cut_size > b.cut_size; });
  return out;
}

}  // namespace

Minimized Minimize(const Mutant& m, const StillFails& still_fails, size_t budget) {
  Minimized r;
  r.frame = m.frame;
  std::set<std::vector<uint8_t>> tried;
  auto attempt = [&](const std::vector<uint8_t>& c) {
    if (r.evaluations >= budget || !tried.insert(c).second) return false;
    ++r.evaluations;
    return still_fails(c);
  };

  // Structure pass: at most 60% of the budget.
  const size_t structure_budget = budget - budget * 2 / 5;
  if (std::optional<Structured> s = Structure(m, r.frame)) {
    for (bool progress = true; progress && r.evaluations < structure_budget;) {
      progress = false;
      std::vector<Edit> edits = Edits(s->json);
      for (size_t i = 0; i < edits.size() && r.evaluations < structure_budget; ++i) {
        Structured c = *s;
        c.json = Apply(s->json, edits[i]);
        const std::optional<std::vector<uint8_t>> bytes = Encode(c);
        if (!bytes || bytes->size() > r.frame.size() ||
            (bytes->size() == r.frame.size() && c.json.dump().size() >= s->json.dump().size())) {
          continue;
        }
        if (!attempt(*bytes)) continue;
        *s = std::move(c);
        r.frame = *bytes;
        ++r.structural;
        progress = true;
        edits = Edits(s->json);  // go on from the same place in the new list
        if (i > 0) --i;
      }
    }
  }

  // Frames the JSON cannot hold (strings that are not UTF-8, non-canonical varints, ...):
  // the fuzz mutator's own changes that make them smaller (up to 70% of the budget), then
  // regions of the explanation removed with their count or length (up to 85%).
  const bool json_held = r.structural > 0 || Structure(m, r.frame).has_value();
  const size_t mutator_budget = budget - budget * 3 / 10;
  if (!json_held && r.evaluations < mutator_budget && MutatorReads(m, r.frame)) {
    const size_t tries = 10 * budget;  // mutations made, most not smaller: bounded work
    for (size_t k = 0; k < tries && r.evaluations < mutator_budget; ++k) {
      std::optional<std::vector<uint8_t>> c = SmallerMutation(m, r.frame, Mix(k));
      if (!c || !attempt(*c)) continue;
      r.frame = std::move(*c);
      ++r.structural;
    }
  }

  const size_t layout_budget = budget - budget * 3 / 20;
  for (bool progress = !json_held; progress && r.evaluations < layout_budget;) {
    progress = false;
    const int64_t d = SizePrefixDelta(r.frame);
    for (const Removal& x : Removals(m, r.frame)) {
      if (r.evaluations >= layout_budget) break;
      std::vector<uint8_t> c = Apply(r.frame, x, d);
      if (c.size() >= r.frame.size() || !attempt(c)) continue;
      r.frame = std::move(c);
      ++r.structural;
      progress = true;
      break;  // the explanation changed
    }
  }

  // Byte pass.
  const int64_t delta = SizePrefixDelta(r.frame);
  const size_t start = m.response ? 4 : 8;
  for (size_t chunk = r.frame.size() > start ? (r.frame.size() - start) / 2 : 0; chunk >= 1 && r.evaluations < budget;
       chunk /= 2) {
    for (size_t pos = r.frame.size() >= chunk ? r.frame.size() - chunk : 0;
         pos >= start && pos + chunk <= r.frame.size() && r.evaluations < budget;) {
      std::vector<uint8_t> c = r.frame;
      c.erase(c.begin() + static_cast<ptrdiff_t>(pos), c.begin() + static_cast<ptrdiff_t>(pos + chunk));
      FixSizePrefix(c, delta);
      if (attempt(c)) {
        r.frame = std::move(c);
        ++r.bytes;
      }
      if (pos < start + chunk) break;
      pos -= chunk;
      if (pos + chunk > r.frame.size()) pos = r.frame.size() - chunk;
    }
  }
  return r;
}

}  // namespace kwire::diff
