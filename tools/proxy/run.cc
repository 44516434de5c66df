// RunUntilSignal: `kwire proxy`'s loop (proxy.h).
#include <csignal>
#include <cstdio>
#include <fstream>
#include <ostream>

#include <utility>  // before Boost.Asio 1.74: its awaitable.hpp uses std::exchange
#include <boost/asio.hpp>

#include "absl/strings/str_format.h"
#include "tools/proxy/proxy.h"

namespace kwire::proxy {

int RunUntilSignal(Options options, std::ostream& log, std::ostream& err,
                   const std::string& port_file, const std::string& summary_json) {
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  options.on_report = [&log](const Json& j) { log << j.dump() << '\n' << std::flush; };
  // Once the proxy stops (a signal, or fail-fast), the signal wait is the only work left.
  options.on_stop = [&signals] {
    boost::system::error_code ignored;
    signals.cancel(ignored);
  };
  Proxy proxy(io, std::move(options));
  if (absl::Status started = proxy.Start(); !started.ok()) {
    err << "kwire proxy: " << started.message() << "\n";
    return 2;
  }
  if (!port_file.empty()) {
    // Written whole under another name, then renamed: a reader never sees half of it.
    const std::string partial = port_file + ".partial";
    std::ofstream(partial) << proxy.port() << "\n";
    if (std::rename(partial.c_str(), port_file.c_str()) != 0) {
      err << "kwire proxy: cannot write --port-file " << port_file << "\n";
      return 2;
    }
  }
  err << absl::StrFormat("kwire proxy: listening on port %d\n", proxy.port());
  signals.async_wait([&proxy](const boost::system::error_code& ec, int) {
    if (!ec) proxy.Stop();
  });
  io.run();
  const traffic::Summary& summary = proxy.summary();
  err << summary.Table();
  if (proxy.stream_errors() > 0) {
    err << absl::StrFormat("%d stream%s could not be split into frames (the stream_error lines)\n",
                           proxy.stream_errors(), proxy.stream_errors() == 1 ? "" : "s");
  }
  if (!summary_json.empty()) {
    std::ofstream out(summary_json);
    Json j = summary.ToJson();
    j["stream_errors"] = proxy.stream_errors();
    out << j.dump(2) << "\n";
    if (!out) err << "kwire proxy: cannot write --summary-json " << summary_json << "\n";
  }
  return proxy.failed() || summary.failures() > 0 ? 1 : 0;
}

}  // namespace kwire::proxy
