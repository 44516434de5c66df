// <kwire/explain.h>: object trees of frames, the library behind `kwire explain`.
//
// Brings (namespace kwire): ExplainRequestFrame / ExplainResponseFrame (a FrameExplanation:
// the decoder's verdict and one PrintNode{offset, size, path, type, value} per field),
// RenderFrameExplanation (the text `kwire explain` prints), and DiagnoseRequestFrame /
// DiagnoseResponseFrame (hints toward a likelier cause after a failure). Sources:
// codec/harness/explain.h, codec/harness/diagnose.h.
// Not part of the core library: link kwire::explain besides kwire::kwire (whose include
// path this file's folder is on).
#ifndef KWIRE_EXPLAIN_H_
#define KWIRE_EXPLAIN_H_

#include "codec/harness/diagnose.h"
#include "codec/harness/explain.h"

#endif  // KWIRE_EXPLAIN_H_
