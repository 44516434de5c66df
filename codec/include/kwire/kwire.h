// <kwire/kwire.h>: the whole core library in one include, as `#include <kwire/kwire.h>`.
//
// Brings (namespace kwire):
//   frames       DecodeRequestFrame / DecodeResponseFrame (+ ...As<T>, ...Into), Encode* /
//                Append*Frame, SplitFrame, FrameOptions        codec/protocol/frame.h
//   registry     API keys, versions, header versions, flexible versions
//                                                              codec/protocol/registry.h
//   messages     every generated message type (kwire::MetadataResponse, ...) with its
//                fields' versions, nullability and tags        codec/generated/messages.h
//   records      RecordBatch (v2 and legacy), Batches(), the four codecs, CRC-32C
//                                                              codec/records/record_batch.h
//   errors       Error, ErrorKind, ErrorFromStatus             codec/wire/error.h
//   bytes        Writer (output buffer), hex helpers           codec/wire/writer.h, hex.h
// Link the CMake target kwire::kwire (find_package(kwire), or add_subdirectory), or
// `pkg-config --cflags --libs kwire`; either puts this file's folder's parent on the
// include path. The object-tree explanations (`kwire explain`) are a library of their own:
// codec/harness/explain.h, target kwire::explain.
//
// Cost: every message type is ~300 headers; a translation unit that needs one message
// includes codec/protocol/frame.h and that message's header (codec/generated/<name>.h)
// instead.
#ifndef KWIRE_KWIRE_H_
#define KWIRE_KWIRE_H_

#include "codec/generated/messages.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/registry.h"
#include "codec/records/record_batch.h"
#include "codec/wire/error.h"
#include "codec/wire/hex.h"
#include "codec/wire/writer.h"

#endif  // KWIRE_KWIRE_H_
