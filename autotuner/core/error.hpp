// The one exception type of occtune and the exit codes of design.md section 3. Every front end
// throws occtune::Error with the code it means; main() is the single catch-all that maps it.
#pragma once

#include <stdexcept>
#include <string>

namespace occtune {

enum class ExitCode : int {
  kOk = 0,
  kRegression = 1,  // regression or failed check
  kUsage = 2,       // usage error or bad input (arguments, config file, shape)
  kNotFound = 3,    // no cache entry, schema or device mismatch
  kRuntime = 4,     // no GPU or driver, CUDA error, database I/O
  kInterrupted = 130,
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

[[noreturn]] inline void fail(ExitCode code, const std::string& message) { throw Error(code, message); }

}  // namespace occtune
