// Threads (issue 15 item 7): what codec/protocol/frame.h says about concurrency,
// exercised. Every conformance vector, each cut one byte short (the error path: Status
// payloads, abseil's cordz sampling), and a rich frame of every API × version ×
// direction (random record batches, validated) are decoded, re-encoded into a per-thread
// Writer, and explained, first on one thread for the expected outcomes, then from four
// threads at once, each starting at a different place, sharing the input bytes and two
// const FrameOptions (one with borrowed records), or with a FrameOptions of its own that
// names its own records scratch (RecordsOptions::scratch: no per-thread state touched).
// Each thread also splits the concatenation of every frame. In the test preset this
// checks the results; in the tsan preset ThreadSanitizer also checks every access.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "codec/harness/explain.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/frame_test_util.h"
#include "codec/protocol/registry.h"
#include "conformance/check.h"

#ifndef KWIRE_CONFORMANCE_DIR
#error "KWIRE_CONFORMANCE_DIR must name conformance/vectors"
#endif

namespace kwire {
namespace {

constexpr int kThreads = 4;

struct Input {
  std::string id;
  int16_t api_key = 0;
  int16_t version = 0;
  Direction dir = Direction::kRequest;
  std::vector<uint8_t> bytes;
};

struct Outcome {
  std::string status;  // absl::Status::ToString, payload included
  std::vector<uint8_t> encoded;
  std::string explained;
  bool operator==(const Outcome&) const = default;
};

std::vector<Input> Inputs() {
  std::vector<Input> in;
  const std::string dir = KWIRE_CONFORMANCE_DIR;
  for (const char* file : {"minimal.txt", "minimal-removed.txt", "seeds.txt"}) {
    const conformance::VectorFile f = conformance::LoadVectorFile(dir + "/" + file);
    EXPECT_TRUE(f.errors.empty()) << file;
    for (const conformance::Vector& v : f.vectors) {
      in.push_back({v.Id(), v.api_key, v.version, v.dir, v.bytes});
      Input cut = in.back();
      cut.id += " cut";
      cut.bytes.pop_back();
      frame_testing::FixSizePrefix(cut.bytes);
      in.push_back(std::move(cut));
    }
  }
  for (const frame_testing::Case& c : frame_testing::AllCases()) {
    in.push_back({c.Name() + " rich", c.api->api_key, c.version, c.dir,
                  frame_testing::EncodeFrame(c, frame_testing::Rich(c, 1))});
  }
  return in;
}

Outcome RunOne(const Input& in, const FrameOptions& options, Writer& w) {
  Outcome o;
  w.Clear();
  if (in.dir == Direction::kRequest) {
    auto f = DecodeRequestFrame(in.bytes, options);
    o.status = f.status().ToString();
    if (f.ok() && AppendRequestFrame(f->header, f->body, &w).ok()) {
      o.encoded.assign(w.bytes().begin(), w.bytes().end());
    }
    o.explained = RenderFrameExplanation(ExplainRequestFrame(in.bytes));
  } else {
    auto f = DecodeResponseFrame(in.bytes, in.api_key, in.version, options);
    o.status = f.status().ToString();
    if (f.ok() && AppendResponseFrame(f->header, in.api_key, in.version, f->body, &w).ok()) {
      o.encoded.assign(w.bytes().begin(), w.bytes().end());
    }
    o.explained =
        RenderFrameExplanation(ExplainResponseFrame(in.bytes, in.api_key, in.version));
  }
  return o;
}

TEST(Concurrency, EveryVectorDecodedEncodedAndExplainedFromFourThreadsAtOnce) {
  const std::vector<Input> inputs = Inputs();
  ASSERT_GT(inputs.size(), 2000u);
  const FrameOptions defaults;
  FrameOptions shared_options;
  shared_options.borrow_records = true;
  const FrameOptions& shared = shared_options;

  std::vector<Outcome> expected;
  size_t failing = 0;
  Writer w;
  for (const Input& in : inputs) {
    expected.push_back(RunOne(in, defaults, w));
    if (expected.back().encoded.empty()) ++failing;
  }
  // The cut frames fail, the others re-encode to their own bytes.
  EXPECT_GE(failing, inputs.size() / 3);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!expected[i].encoded.empty()) {
      EXPECT_EQ(expected[i].encoded, inputs[i].bytes) << inputs[i].id;
    }
  }
  std::vector<uint8_t> stream;
  for (const Input& in : inputs) stream.insert(stream.end(), in.bytes.begin(), in.bytes.end());

  std::atomic<size_t> mismatches{0};
  std::mutex first_mu;
  std::string first;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Threads 0 and 2 share `defaults`, 1 shares `shared`, 3 owns its scratch.
      RecordSet scratch;
      FrameOptions own = shared;
      own.records.scratch = &scratch;
      const FrameOptions& options = t == 3 ? own : t % 2 == 0 ? defaults : shared;
      Writer mine;
      const size_t n = inputs.size();
      for (size_t k = 0; k < n; ++k) {
        const size_t i = (k + static_cast<size_t>(t) * n / kThreads) % n;
        if (!(RunOne(inputs[i], options, mine) == expected[i])) {
          if (mismatches.fetch_add(1) == 0) {
            std::lock_guard<std::mutex> lock(first_mu);
            first = inputs[i].id;
          }
        }
      }
      // Split the stream of every frame back into frames.
      size_t frames = 0;
      std::span<const uint8_t> rest(stream);
      for (SplitResult r = SplitFrame(rest); r.status == SplitResult::kFrame;
           r = SplitFrame(rest)) {
        if (r.frame.size() != inputs[frames].bytes.size()) break;
        rest = rest.subspan(r.frame.size());
        ++frames;
      }
      if (frames != n || !rest.empty()) mismatches.fetch_add(1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0u) << "first: " << first;
  std::printf("[ measured ] %zu frames (%zu failing) x %d threads: every outcome as on one "
              "thread\n",
              inputs.size(), failing, kThreads);
}

}  // namespace
}  // namespace kwire
