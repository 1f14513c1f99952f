// The OpenAPI 3.1 document of the service: docs/openapi.json, embedded at build time and served
// as is at /openapi.json (cmake/EmbedText.cmake).
#pragma once

#include <string_view>

namespace occtune::service {

std::string_view openapi_document();

}  // namespace occtune::service
