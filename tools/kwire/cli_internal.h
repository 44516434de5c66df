// The `kwire` commands' shared parts (cli.cc dispatches; each command or family of
// commands has its own file): the parsed arguments and usage errors, the option
// resolution every command shares (options.cc), the frame commands' input (frame_input.cc)
// and the commands themselves. Internal to kwire_cli.
#ifndef KWIRE_TOOLS_KWIRE_CLI_INTERNAL_H_
#define KWIRE_TOOLS_KWIRE_CLI_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "codec/protocol/correlator.h"
#include "codec/protocol/frame.h"
#include "codec/protocol/refusal.h"
#include "codec/protocol/registry.h"
#include "tools/kwire/cli.h"

namespace kwire::cli::internal {

// ---- Arguments and usage errors (options.cc).

/// A command's parsed arguments: positional ones, --name VALUE options and --flags.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  bool help = false;

  /// The value of --name, if given.
  std::optional<std::string> Get(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

/// A usage error: set by the helpers below, printed with the command's usage (exit 2).
struct Usage {
  std::string error;
  /// Records the first error; returns false (for `return u.Fail(...)`).
  bool Fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  /// No usage error so far.
  bool ok() const { return error.empty(); }
};

/// Parses `args[from..]` for a command that takes the options `valued` (--name VALUE or
/// --name=VALUE, at most once unless in `repeatable`: then joined by '\n') and `flags`
/// (--name). Returns false with `error` set on bad usage.
bool Parse(const std::vector<std::string>& args, size_t from, const std::set<std::string>& valued,
           const std::set<std::string>& flags, Args& out, std::string& error,
           const std::set<std::string>& repeatable = {});

// ---- Option resolution shared by the commands (options.cc). Each returns false with a
// usage error in `u` when the value is not one it knows.

/// A decimal integer of at most 12 characters (a leading '-' allowed); nullopt otherwise.
std::optional<long> ParseNumber(const std::string& s);
/// An API key or name (`kwire apis`) into `api`.
bool ResolveApi(const std::string& s, const ApiInfo*& api, Usage& u);
/// "request" or "response" into `dir`.
bool ResolveDirection(const std::string& s, Direction& dir, Usage& u);
/// A version of `api` in direction `dir` ("max": its newest) into `version`.
bool ResolveVersion(const ApiInfo& api, Direction dir, const std::string& s, int16_t& version,
                    Usage& u);
/// --quirks LIST (names joined by ',') into `q`.
bool ResolveQuirks(const std::string& list, uint32_t& q, Usage& u);
/// --records validate|opaque into `mode` (left as it is when the option is absent).
bool ResolveRecords(const Args& a, RecordsMode& mode, Usage& u);
/// Reads `in` as hex (whitespace ignored) or raw bytes. Returns false with `error` set.
bool ReadInput(std::istream& in, bool binary, std::vector<uint8_t>& out, std::string& error);
/// At most `n` positional arguments.
bool RequireNoPositional(const Args& a, size_t n, Usage& u);

// ---- The frame commands' input (frame_input.cc): decode and explain.

/// What decode and explain read: the direction, API and version options and the bytes.
struct FrameInput {
  Direction dir = Direction::kRequest;
  const ApiInfo* api = nullptr;    // --api
  std::optional<int16_t> version;  // --version
  bool version_auto = false;       // --version auto (responses): the version that decodes
  uint32_t quirks = 0;
  RecordsMode records = RecordsMode::kValidate;  // --records
  bool json = false;                             // --json (decode)
  std::vector<uint8_t> bytes;
};

/// Reads the frame input of `cmd` (stdin and <request|response> --api --version, or
/// --vector FILE:LINE) into `f`. Returns an exit status to stop with, or -1.
int ReadFrameInput(const Args& a, std::istream& in, std::ostream& err, const char* cmd,
                   FrameInput& f, Usage& u);
/// For requests: checks that the header (`key`, `version`) agrees with --api / --version;
/// false, with the message on `err`, when it does not.
bool CheckRequestHeader(const FrameInput& f, int16_t key, int16_t version, std::ostream& err,
                        const char* cmd);

// One frame of an input stream: its bytes and the offset of its first byte in the stream.
struct StreamFrame {
  size_t at = 0;
  std::span<const uint8_t> bytes;
};

/// Splits `in` into size-prefixed frames (SplitFrame). When the first frame is not whole,
/// the whole input is the one "frame", so that the decoder reports the fault precisely.
/// When a later one is not, `error` says why and the result holds the whole ones before it.
std::vector<StreamFrame> SplitStream(std::span<const uint8_t> in, std::string& error);
/// "frame 2 at byte 140: " for streams of several frames, or of one frame and a rest that
/// does not split (`split_error`); "" for one frame alone.
std::string FramePrefix(const std::vector<StreamFrame>& frames, size_t i, bool split_error);

// --requests FILE: responses matched by correlation id in any order; as many requests as
// the file holds (its size bounds them).
inline constexpr Correlator::Options kFileRequests{.max_pending = SIZE_MAX, .in_order = false};

/// The verdict on a request a broker reads (decode, explain), each line after `prefix`:
/// one "refused: <Refusal::ToString()>" line per refusal, then, when any, how a broker
/// answers it ("a broker reads this request and answers 1 partition with the error code
/// above, appending the others") and what kwire refuses that Kafka 4.4 appends, with
/// `summary_note` appended to that sentence. "" when nothing is refused.
std::string RefusalVerdict(const BrokerRead& read, const std::string& prefix,
                           const std::string& summary_note = "");

/// The FrameOptions of the frame commands' --quirks and --records.
FrameOptions FrameOptionsOf(const FrameInput& f);
/// For responses: the (api, version) of frame `bytes`, from --api/--version (or --version
/// auto: `note` says what it chose) or the --requests correlator. False with `error` set.
bool ResponseApi(const FrameInput& f, Correlator* requests, std::span<const uint8_t> bytes,
                 int16_t& key, int16_t& version, std::string& error, std::string& note);
/// The error of a frame that failed to decode with `status`, as printed: with the count of
/// the array element it failed in (diagnose.h's ErrorInContext).
std::string FailureText(const FrameInput& f, std::span<const uint8_t> bytes, int16_t key,
                        int16_t version, const absl::Status& status);
/// After a frame failed: the hints of codec/harness/diagnose.h, one text each (what
/// PrintHints prints after "hint: "). `following`: the stream after the frame.
std::vector<std::string> HintTexts(const FrameInput& f, std::span<const uint8_t> bytes,
                                   std::span<const uint8_t> following, int16_t key,
                                   int16_t version);
/// After a frame failed: HintTexts on `err`, one line each.
void PrintHints(const FrameInput& f, const char* cmd, const std::string& prefix,
                std::span<const uint8_t> bytes, std::span<const uint8_t> following,
                int16_t key, int16_t version, std::ostream& err);
/// Reads --requests (if given) into `requests` (`use` points at it then, else null).
/// Returns an exit status to stop with, or -1.
int LoadRequests(const Args& a, const FrameInput& f, std::ostream& err, const char* cmd,
                 Correlator& requests, Correlator*& use, Usage& u);
/// Writes `text` to the file `path` ("-": to `out`); false, with a message, when it cannot.
bool WriteText(const std::string& path, const std::string& text, std::ostream& out,
               std::ostream& err, const char* cmd);

// ---- The commands: each returns its exit status; usage errors go to `u`.

/// `kwire apis [API]` (cmd_apis.cc).
int Apis(const Args& a, std::ostream& out, Usage& u);
/// `kwire minimal` (cmd_apis.cc).
int Minimal(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire decode` (cmd_decode.cc).
int Decode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire encode` (cmd_decode.cc).
int Encode(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire explain` (cmd_explain.cc).
int Explain(const Args& a, std::istream& in, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire site` (cmd_explain.cc).
int Site(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// Where `kwire conformance` looks for vectors when given no directory (cmd_conformance.cc).
std::string DefaultVectorsDir();
/// `kwire conformance` (cmd_conformance.cc).
int Conformance(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire testee` (cmd_conformance.cc).
int Testee(const Args& a, std::istream& in, std::ostream& out, Usage& u);
/// `kwire proxy` (cmd_traffic.cc).
int Proxy(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire pcap` (cmd_traffic.cc).
int Pcap(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire diff` (cmd_fuzz.cc).
int Diff(const Args& a, std::ostream& out, std::ostream& err, Usage& u);
/// `kwire broker-fuzz` (cmd_fuzz.cc).
int BrokerFuzz(const Args& a, std::ostream& out, std::ostream& err, Usage& u);

}  // namespace kwire::cli::internal

#endif  // KWIRE_TOOLS_KWIRE_CLI_INTERNAL_H_
