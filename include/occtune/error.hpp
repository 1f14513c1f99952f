// The one exception type of occtune and its exit codes (docs/architecture.md, README "Exit
// codes"). Everything in the library throws occtune::Error with the code it means; the CLI's
// main() is the single catch-all that maps it to the process exit code. Public API: C++17, no
// third-party headers.
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

// Error messages are one line by contract (stderr, logs, HTTP bodies) and often quote what the
// user wrote, which may hold a newline or other control bytes: those are shown escaped ("\n",
// "\x07"), so no input can split or corrupt the line. Bytes >= 0x80 (UTF-8) are kept.
inline std::string one_line(const std::string& text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message)
      : std::runtime_error(one_line(message)), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

[[noreturn]] inline void fail(ExitCode code, const std::string& message) { throw Error(code, message); }

}  // namespace occtune
