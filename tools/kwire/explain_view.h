// What `kwire explain` prints of an explained frame (codec/harness/explain.h): the
// whole text by default, or, for large frames, a part of it:
//
//   --no-bytes   the object tree alone, no byte layout;
//   --depth N    the tree to N levels (counted from the root, which is level 0: level 1 is
//                Frame, the header and the body; or from the --path node), each deeper
//                subtree collapsed into one "…" row saying how many rows and bytes it holds;
//   --path P     the subtree at P and its ancestors' rows (the siblings left out), and the
//                byte layout's rows that hold its bytes.
//
// The view filters the node list (std::vector<PrintNode>) and hands it to the codec's own
// renderers (RenderObjectTree, RenderByteLayout), so columns, guides and notes are theirs.
#ifndef KWIRE_TOOLS_KWIRE_EXPLAIN_VIEW_H_
#define KWIRE_TOOLS_KWIRE_EXPLAIN_VIEW_H_

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codec/harness/render.h"
#include "absl/status/statusor.h"
#include "codec/harness/explain.h"
#include "codec/harness/print.h"

namespace kwire::cli {

/// The parts of an explanation to print.
struct ExplainView {
  bool bytes = true;         ///< Print the byte layout (--no-bytes: false).
  std::optional<int> depth;  ///< Levels of the tree shown below the root or the --path node.
  /// A node path, as in decode errors (`MetadataResponse.Topics[3].Name`,
  /// `RequestHeader.ClientId`), in the tree (`Body.Topics[3]`, `RequestHeader.client_id`),
  /// in the JSON mapping and conformance verdicts (`body.Topics[3]`, `header.ClientId`),
  /// or relative to the body (`Topics[3]`); compared ignoring case and underscores. A path
  /// selects its node's subtree; when no node has it, every node whose path starts with it
  /// (`Topics[1` selects Topics[1] and Topics[10] to [19]); else every node whose path ends
  /// with it (`Batch[0].Records.Record[1]`). Empty: the whole tree.
  std::string path;
  /// The tree's range column: hex offsets (default, the documented form) or decimal, as
  /// errors and hints give bytes (--offsets dec).
  OffsetBase offsets = OffsetBase::kHex;
};

/// The nodes `view` selects (pre-order, as in FrameExplanation::nodes): with a path, the
/// matching subtrees and their ancestors; with a depth, each subtree deeper than
/// it replaced by one summary row ("…", note "N rows, M bytes below --depth D"; marked
/// failed when a failed node is inside). `ranges`, when not null, receives the byte
/// ranges [offset, offset + size) of the selected subtrees (the whole frame without a
/// path). NotFound, naming the body's fields, when the path matches no node.
absl::StatusOr<std::vector<PrintNode>> SelectNodes(
    const std::vector<PrintNode>& nodes, const ExplainView& view,
    std::vector<std::pair<size_t, size_t>>* ranges = nullptr);

/// The text of `kwire explain` for one frame: title, byte layout (unless !view.bytes;
/// with a path, only its rows that hold selected bytes, a "…" row for each gap), "object
/// tree" and the selected tree fitted in `width` columns (0: no limit). The error, if any,
/// is the caller's to print. Fails like SelectNodes.
absl::StatusOr<std::string> RenderExplainView(const FrameExplanation& ex, const ExplainView& view,
                                              size_t width);

}  // namespace kwire::cli

#endif  // KWIRE_TOOLS_KWIRE_EXPLAIN_VIEW_H_
