// Seeds of `kwire diff` (seeds.h).
#include "tools/diff/seeds.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/wire/hex.h"
#include "codec/wire/port.h"
#include "tools/json/json.h"

namespace kwire::diff {
namespace {

namespace fs = std::filesystem;

int32_t Be32(const uint8_t* p) { return kwire::LoadBigEndian<int32_t>(p); }
int16_t Be16(const uint8_t* p) { return kwire::LoadBigEndian<int16_t>(p); }

bool Keep(const Seed& s, const SeedFilter& f) {
  if (f.request && *f.request == s.response) return false;
  return f.api_keys.empty() || f.api_keys.count(s.api_key) > 0;
}

// A frame's size prefix counts the bytes after it.
bool SizeMatches(const std::vector<uint8_t>& b, size_t at) {
  return b.size() >= at + 4 && Be32(b.data() + at) == static_cast<int64_t>(b.size() - at - 4);
}

class Loader {
 public:
  Loader(const SeedFilter& f, std::vector<std::string>& errors, size_t* skipped)
      : filter_(f), errors_(errors), skipped_(skipped) {}

  void Add(Seed s) {
    const auto key = std::make_tuple(s.response, s.api_key, s.version, s.frame);
    if (!Keep(s, filter_) || !seen_.insert(key).second) return;
    out_.push_back(std::move(s));
  }

  void Jsonl(const fs::path& path) {
    std::ifstream in(path);
    if (!in) {
      errors_.push_back(absl::StrCat(path.string(), ": cannot read"));
      return;
    }
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
      ++line;
      if (text.empty()) continue;
      const Json r = Json::parse(text, nullptr, false);
      Seed s;
      std::string hex;
      try {
        if (!r.is_object()) throw std::invalid_argument("not a JSON object");
        s.id = r.at("id").get<std::string>();
        s.api_key = r.at("api_key").get<int16_t>();
        s.version = r.at("version").get<int16_t>();
        const std::string dir = r.at("direction").get<std::string>();
        if (dir != "request" && dir != "response") throw std::invalid_argument("direction");
        s.response = dir == "response";
        hex = r.at("frame").get<std::string>();
        if (!ParseHex(hex, s.frame)) throw std::invalid_argument("frame is not hex");
      } catch (const std::exception& e) {
        errors_.push_back(absl::StrCat(path.string(), ":", line, ": not a vector record (", e.what(), ")"));
        continue;
      }
      if (!s.response && s.frame.size() >= 8) {
        s.api_key = Be16(s.frame.data() + 4);
        s.version = Be16(s.frame.data() + 6);
      }
      Add(std::move(s));
    }
  }

  // A fuzz corpus file; `hint`: true response, false request, nullopt unknown.
  void CorpusFile(const fs::path& path, const std::string& id, std::optional<bool> hint) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      errors_.push_back(absl::StrCat(path.string(), ": cannot read"));
      return;
    }
    const std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!hint) {
      if (SizeMatches(b, 0)) {
        hint = false;
      } else if (SizeMatches(b, 4)) {
        hint = true;
      }
    }
    const bool response = hint.value_or(false);
    if (!hint || b.size() < (response ? 12u : 8u)) {
      if (skipped_) ++*skipped_;
      return;
    }
    Seed s;
    s.id = id;
    s.response = response;
    if (response) {
      s.api_key = Be16(b.data());
      s.version = Be16(b.data() + 2);
      s.frame.assign(b.begin() + 4, b.end());
    } else {
      s.api_key = Be16(b.data() + 4);
      s.version = Be16(b.data() + 6);
      s.frame = b;
    }
    Add(std::move(s));
  }

  void Path(const std::string& p) {
    std::error_code ec;
    const fs::path path(p);
    if (fs::is_regular_file(path, ec)) {
      if (path.extension() == ".jsonl") {
        Jsonl(path);
      } else {
        CorpusFile(path, path.filename().string(), HintOf(path));
      }
      return;
    }
    if (!fs::is_directory(path, ec)) {
      errors_.push_back(absl::StrCat(p, ": no such file or folder"));
      return;
    }
    std::vector<fs::path> jsonl, files;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".jsonl") jsonl.push_back(it->path());
    }
    if (!jsonl.empty()) {
      std::sort(jsonl.begin(), jsonl.end());
      for (const fs::path& f : jsonl) Jsonl(f);
      return;
    }
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file() && it->path().filename().string()[0] != '.') files.push_back(it->path());
    }
    if (ec) errors_.push_back(absl::StrCat(p, ": ", ec.message()));
    std::sort(files.begin(), files.end());
    const std::string base = path.filename().empty() ? path.parent_path().filename().string()
                                                     : path.filename().string();
    for (const fs::path& f : files) {
      CorpusFile(f, absl::StrCat(base, "/", fs::relative(f, path, ec).string()), HintOf(f));
    }
  }

  std::vector<Seed> Take() { return std::move(out_); }

 private:
  // The file name, then its folders upwards: the first that names a direction decides.
  static std::optional<bool> HintOf(const fs::path& f) {
    for (fs::path p = f; !p.empty() && p != p.root_path(); p = p.parent_path()) {
      const std::string name = p.filename().string();
      if (absl::StrContains(name, "response")) return true;
      if (absl::StrContains(name, "request")) return false;
      if (p == p.parent_path()) break;
    }
    return std::nullopt;
  }

  const SeedFilter& filter_;
  std::vector<std::string>& errors_;
  size_t* skipped_;
  std::vector<Seed> out_;
  std::set<std::tuple<bool, int16_t, int16_t, std::vector<uint8_t>>> seen_;
};

}  // namespace

std::vector<Seed> LoadSeeds(const std::vector<std::string>& paths, const SeedFilter& filter,
                            std::vector<std::string>& errors, size_t* skipped) {
  Loader l(filter, errors, skipped);
  for (const std::string& p : paths) l.Path(p);
  return l.Take();
}

}  // namespace kwire::diff
