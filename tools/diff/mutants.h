// Mutants of `kwire diff`: a seed frame changed one to four times over. Each step is one of
//   structure  kwire's structure-aware mutator (fuzz/frame_mutator.h, fuzz/mutate.h): the
//              frame decoded, a field value, array, string, records batch, tagged field or
//              unknown tag changed (or the version or the API), and encoded again with
//              every size, count and CRC recomputed; now and then a byte-level change on top
//   length     a length, count or size that the frame's explanation (codec/protocol/
//              explain.h) shows (an array count, a string, bytes or records length, a
//              tagged-field count or size, a nullable struct's marker, the frame's size
//              prefix) set to another value: boundaries (−2, −1, 0, ±1, 2^15−1, 2^31−1,
//              2^32−1), non-canonical or over-long varints
//   bytes      a bit flipped, a byte set, bytes inserted, deleted, duplicated or appended
//              (trailing bytes), the frame cut short
// and, after a length or bytes step, most often the frame's size prefix made to count the
// bytes again. A mutant depends only on the seeds, the campaign seed and its index:
// MakeMutant(seeds, s, i) is the same mutant in every run.
#ifndef KWIRE_TOOLS_DIFF_MUTANTS_H_
#define KWIRE_TOOLS_DIFF_MUTANTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/diff/seeds.h"

namespace kwire::diff {

/// One input sent to every testee.
struct Mutant {
  uint64_t index = 0;  ///< Its number in the campaign (0-based).
  size_t seed = 0;     ///< Index into the seeds it came from.
  bool response = false;
  /// What the testee request says: a request's from its header (bytes 4–7) when the frame
  /// has them, else the seed's; a response's are the seed's, or another API's when a
  /// structure step chose one.
  int16_t api_key = 0;
  int16_t version = 0;
  std::vector<uint8_t> frame;      ///< Size prefix included.
  std::vector<std::string> steps;  ///< What was done, e.g. "structure", "length Topics.length=-1".
};

/// The mutant `index` of a campaign seeded with `campaign_seed` over `seeds` (not empty).
Mutant MakeMutant(const std::vector<Seed>& seeds, uint64_t campaign_seed, uint64_t index);

/// `frame` with its int32 size prefix set to count the bytes after it plus `delta` (a
/// frame shorter than 4 bytes is returned as it is).
void FixSizePrefix(std::vector<uint8_t>& frame, int64_t delta = 0);

/// The size prefix minus the bytes after it (0 for a consistent frame; 0 when the frame is
/// shorter than 4 bytes).
int64_t SizePrefixDelta(const std::vector<uint8_t>& frame);

/// Reads a request frame's API key and version from bytes 4–7 into `m` when it has them.
void TakeRequestIds(Mutant& m);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_MUTANTS_H_
