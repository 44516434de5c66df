// The `kwire` command line tool, as a function so that tests run it in process.
//
//   kwire apis
//   kwire minimal <api key|name> <version|max> <request|response>
//   kwire decode <request|response> [--api K --version V] [--binary] [--quirks LIST]
//   kwire explain <request|response> [--api K --version V] [--binary] [--quirks LIST]
//                 [--show-secrets]
//   kwire conformance [dir] [--expected-failures FILE] [--junit FILE] [--json FILE]
//
// Every command has --help. Exit status: 0 success, 1 failure (bytes that do not decode
// or re-encode identically, a failing conformance vector), 2 usage error.
#ifndef KWIRE_TOOLS_KWIRE_CLI_H_
#define KWIRE_TOOLS_KWIRE_CLI_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace kwire::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
/// `kwire decode request`: every frame reads, but a broker refuses part of one (a Produce
/// partition whose records it answers with an error code: codec/protocol/refusal.h).
inline constexpr int kExitRefused = 3;

/// Runs `kwire <args...>` (`args` excludes the program name) reading frames from `in`.
/// Returns the exit status.
int Run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

}  // namespace kwire::cli

#endif  // KWIRE_TOOLS_KWIRE_CLI_H_
