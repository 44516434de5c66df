// kwire: command line tool for the Kafka wire protocol codec (see cli.h).
#include <iostream>
#include <string>
#include <vector>

#include "tools/kwire/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int rc = kwire::cli::Run(args, std::cin, std::cout, std::cerr);
  std::cout.flush();
  return rc;
}
