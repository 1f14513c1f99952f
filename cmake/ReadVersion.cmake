# The project version is kept in one place, the public header include/occtune/version.hpp; this
# reads it (before project()) into OCCTUNE_HEADER_VERSION and checks the header agrees with itself.
set(version_header ${CMAKE_CURRENT_LIST_DIR}/../include/occtune/version.hpp)
file(STRINGS ${version_header} version_lines
     REGEX "^#define OCCTUNE_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
foreach(part MAJOR MINOR PATCH)
  if(NOT version_lines MATCHES "OCCTUNE_VERSION_${part} ([0-9]+)")
    message(FATAL_ERROR "${version_header}: no numeric OCCTUNE_VERSION_${part}")
  endif()
  set(version_${part} ${CMAKE_MATCH_1})
endforeach()
set(OCCTUNE_HEADER_VERSION ${version_MAJOR}.${version_MINOR}.${version_PATCH})
if(NOT version_lines MATCHES "OCCTUNE_VERSION_STRING \"${OCCTUNE_HEADER_VERSION}\"")
  message(FATAL_ERROR "${version_header}: OCCTUNE_VERSION_STRING differs from "
                      "MAJOR.MINOR.PATCH (${OCCTUNE_HEADER_VERSION}); make them agree")
endif()
