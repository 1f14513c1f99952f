// Runs the built occtune binary as a user would and captures exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace occtune::testing {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `args` is appended to the binary path as shell words; `env` is a prefix like "A=1 B=2".
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path();
  auto err_path = dir / ("occtune_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string cmd = env + " " + OCCTUNE_BINARY + " " + args + " 2>" + err_path.string() + " </dev/null";
  CliResult r;
  if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    int status = ::pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  r.err = slurp(err_path);
  std::filesystem::remove(err_path);
  return r;
}

// True when a GPU is visible to the binary (then GPU-free error paths cannot be exercised).
inline bool gpu_visible() { return run_cli("devices").code == 0; }

}  // namespace occtune::testing
