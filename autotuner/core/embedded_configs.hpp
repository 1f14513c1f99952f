// The TOML files of configs/ compiled into the binary (see cmake/EmbedConfigs.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace occtune {

struct EmbeddedFile {
  std::string_view path;      // relative to configs/, e.g. "profiles/h100.toml"
  std::string_view contents;
};

const std::vector<EmbeddedFile>& embedded_configs();

}  // namespace occtune
