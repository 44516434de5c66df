// The seeds of a differential campaign (`kwire diff --seeds`): whole frames from vector
// files (conformance/vectors/*.jsonl, FORMAT.md: any record with a frame, whatever it
// expects) and from fuzz corpus folders (corpus/request_frame_fuzzer: one request frame per
// file; corpus/response_frame_fuzzer: int16 API key, int16 version, then one response
// frame; fuzz/frame_mutator.h).
#ifndef KWIRE_TOOLS_DIFF_SEEDS_H_
#define KWIRE_TOOLS_DIFF_SEEDS_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kwire::diff {

/// One frame to start mutants from.
struct Seed {
  std::string id;         ///< The vector's id, or "<folder>/<file name>" for a corpus file.
  bool response = false;  ///< A response frame (its API and version are below, not in it).
  /// The API key and version: a response's from the vector or the corpus input's prefix;
  /// a request's from its header (the vector's when the frame is too short to have one).
  int16_t api_key = 0;
  int16_t version = 0;
  std::vector<uint8_t> frame;  ///< The whole frame, int32 size prefix included.
};

/// Which seeds to keep: empty sets and an unset direction keep everything.
struct SeedFilter {
  std::set<int16_t> api_keys;
  std::optional<bool> request;
};

/// Loads every path of `paths` in order: a *.jsonl file; a folder holding *.jsonl files
/// (those files, sorted); any other folder as a fuzz corpus (its files, recursively,
/// sorted by path). A corpus file is a response input when its name or the nearest folder
/// whose name says "request" or "response" says "response", a request frame when it says
/// "request"; otherwise it is taken as a request frame if its size prefix counts the bytes
/// after it, else as a response input if the int32 after the 4-byte prefix does, and is
/// skipped if neither. Files that cannot be read, malformed records and paths that do not
/// exist go to `errors`; skipped files are counted in `*skipped`. Duplicate frames (same
/// direction, API, version and bytes) are kept once.
std::vector<Seed> LoadSeeds(const std::vector<std::string>& paths, const SeedFilter& filter,
                            std::vector<std::string>& errors, size_t* skipped = nullptr);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_SEEDS_H_
