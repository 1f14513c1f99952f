// A unique temporary directory for a test, removed with everything in it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace occtune::testing {

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("occtune_service_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path path;
};

}  // namespace occtune::testing
