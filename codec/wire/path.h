// The field path of a decode or encode (PathNode), rendered into errors: shared by
// Reader and Writer, and by the checks that run outside them (record batches, records
// policies), so that every error names its field the same way, e.g.
// `FetchRequest.Topics[0].Partitions[2].FetchOffset`.
#ifndef KWIRE_CODEC_WIRE_PATH_H_
#define KWIRE_CODEC_WIRE_PATH_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/wire/error.h"

namespace kwire {

/// One level of the field path, kept on the decoder's (or encoder's) stack and linked to
/// its parent. Rendered only when an error is recorded, e.g.
/// `FetchRequest.Topics[0].Partitions[2].FetchOffset`.
struct PathNode {
  const PathNode* parent = nullptr;
  const char* name = nullptr;  ///< Message/struct name at the root, field name below.
  int64_t index = -1;          ///< Array element index, or -1.
};

/// Renders a path chain root-first: "A.B[3].C". Empty for nullptr.
std::string RenderPath(const PathNode* leaf);

/// An Error of `kind` at absolute offset `at`, its path rendered from `path` (may be
/// nullptr), for checks that run outside a Reader (record batches, records policies).
Error MakeError(ErrorKind kind, size_t at, const PathNode* path, std::string detail);

}  // namespace kwire

#endif  // KWIRE_CODEC_WIRE_PATH_H_
