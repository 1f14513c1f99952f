// output_target.hpp: buffered in memory, renamed into place at the end.
#include "autotuner/cli/output_target.hpp"

#include <iostream>

#include "autotuner/output/gate_output.hpp"

namespace occtune::cli {

OutputTarget::OutputTarget(std::string path) : path_(path == "-" ? "" : std::move(path)) {}

std::ostream& OutputTarget::stream() { return to_file() ? buffer_ : std::cout; }

void OutputTarget::commit() {
  if (to_file()) output::write_file_atomically(path_, buffer_.str());
}

}  // namespace occtune::cli
