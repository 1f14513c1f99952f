// Where a command's table, JSON or CSV goes: stdout, or with --output FILE a file written
// atomically when the command finishes, so a job writes results without shell redirection
// and never leaves half a file.
#pragma once

#include <ostream>
#include <sstream>
#include <string>

namespace occtune::cli {

class OutputTarget {
 public:
  explicit OutputTarget(std::string path);  // empty or "-": stdout
  std::ostream& stream();
  bool to_file() const { return !path_.empty(); }
  // Writes the file (nothing for stdout); Error(kRuntime) naming the path on failure.
  void commit();

 private:
  std::string path_;
  std::ostringstream buffer_;
};

}  // namespace occtune::cli
