// Where a member of the conformance JSON mapping (conformance/FORMAT.md) stands in a
// frame's explanation: its object tree path and node, so that a difference found in a
// decoded value ("body.Topics[1].Name") can be shown at its bytes.
#ifndef KWIRE_CODEC_HARNESS_TREE_PATH_H_
#define KWIRE_CODEC_HARNESS_TREE_PATH_H_

#include <string>
#include <string_view>

#include "codec/harness/explain.h"
#include "codec/wire/types.h"

namespace kwire {

/// The object tree path (PrintNode::path) of a JSON mapping path of a frame:
/// "header.ClientId" -> "RequestHeader.client_id" (ResponseHeader for responses; header
/// fields are named as the reference pages name them, PrintBuilder::SnakeCase),
/// "body.Topics[0].Name" -> "Body.Topics[0].Name"; "" for a path that starts with
/// neither "header" nor "body".
std::string TreePathOfJsonPath(std::string_view json_path, Direction dir);

/// The node of `ex` for `tree_path`: the node with that path or, failing that, the node
/// of its nearest ancestor path ("Body.Topics[3].Name" -> "Body.Topics[3]" -> ...), else
/// the root; nullptr when `ex` has no node.
const PrintNode* FindTreeNode(const FrameExplanation& ex, std::string_view tree_path);

}  // namespace kwire

#endif  // KWIRE_CODEC_HARNESS_TREE_PATH_H_
