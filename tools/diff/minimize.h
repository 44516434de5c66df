// Minimizing a finding of `kwire diff`: the frame made smaller while a predicate (the
// testees still answer with the finding's signature) holds.
#ifndef KWIRE_TOOLS_DIFF_MINIMIZE_H_
#define KWIRE_TOOLS_DIFF_MINIMIZE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "tools/diff/mutants.h"

namespace kwire::diff {

/// True when `candidate` (a frame of the same direction, API key and version as the
/// mutant being minimized) still shows the finding. Each call is an evaluation.
using StillFails = std::function<bool(const std::vector<uint8_t>& candidate)>;

/// What Minimize did.
struct Minimized {
  std::vector<uint8_t> frame;  ///< The smallest frame found that still fails.
  size_t evaluations = 0;      ///< Calls of the predicate.
  size_t structural = 0;       ///< Candidates taken from the structure pass.
  size_t bytes = 0;            ///< Candidates taken from the byte pass.
};

/// Shrinks `m.frame` with at most `budget` evaluations of `still_fails`, deterministically.
/// First structure-aware, when kwire reads the frame (strictly, else with every Java quirk)
/// and its JSON mapping (conformance/FORMAT.md) encodes back to the same bytes — or the
/// same holds for the frame up to where a strict decode finds trailing bytes, those bytes
/// kept as they are: array elements removed (all, half, one), members dropped (defaults;
/// tagged fields and unknown tags absent), strings and bytes emptied, numbers zeroed,
/// booleans false; each candidate is the encoding of the smaller JSON. Then, when the fuzz
/// mutator reads the frame and writes it back as it is (strings that are not UTF-8
/// included), its structure-aware mutations that make the frame smaller (the API and
/// version kept); and array elements, tagged fields and string or bytes contents removed
/// at the offsets of kwire's explanation (codec/harness/explain.h, Java quirks), the count
/// or length before them rewritten (these two only when the JSON could not hold the
/// frame). Then byte by byte:
/// chunks deleted, halving in size down to one byte, from the end towards the start,
/// after the request header's API key and version (a response's size prefix), with the
/// size prefix kept as far from the byte count as it was. A candidate is tried only when
/// it is smaller (bytes, then the JSON's text).
Minimized Minimize(const Mutant& m, const StillFails& still_fails, size_t budget);

}  // namespace kwire::diff

#endif  // KWIRE_TOOLS_DIFF_MINIMIZE_H_
