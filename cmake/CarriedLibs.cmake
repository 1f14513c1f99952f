# cpp-httplib exists in Debian only as a shared object, and the GPU machines that run a carried
# build/ directory have no libcpp-httplib (and may lack the OpenSSL and Brotli libraries it
# needs). At build time the resolved objects are copied into ${CMAKE_BINARY_DIR}/lib, with their
# SONAME links, and every target that links httplib gets an RPATH of $ORIGIN/<path to lib>.
# RPATH rather than RUNPATH (--disable-new-dtags): RUNPATH applies only to the executable's own
# dependencies, while libcpp-httplib's dependencies (libssl.so.3, ...) must be found there too.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
find_library(OCCTUNE_HTTPLIB_SO NAMES cpp-httplib HINTS ${HTTPLIB_LIBRARY_DIRS} REQUIRED)
find_program(OCCTUNE_READELF NAMES readelf REQUIRED)

set(OCCTUNE_CARRIED_LIB_DIR ${CMAKE_BINARY_DIR}/lib)
set(carried_stamp ${OCCTUNE_CARRIED_LIB_DIR}/.carried-libs.stamp)
add_custom_command(
  OUTPUT ${carried_stamp}
  COMMAND ${CMAKE_COMMAND} -DLIBRARY=${OCCTUNE_HTTPLIB_SO} -DDEST=${OCCTUNE_CARRIED_LIB_DIR}
          -DREADELF=${OCCTUNE_READELF} -DSTAMP=${carried_stamp}
          -P ${PROJECT_SOURCE_DIR}/cmake/copy-runtime-libs.cmake
  DEPENDS ${OCCTUNE_HTTPLIB_SO} ${PROJECT_SOURCE_DIR}/cmake/copy-runtime-libs.cmake
  COMMENT "Copying libcpp-httplib and its dependencies into ${OCCTUNE_CARRIED_LIB_DIR}" VERBATIM)
add_custom_target(occtune_carried_libs DEPENDS ${carried_stamp})

# For an executable that links httplib (directly or through occtune_service).
function(occtune_use_carried_libs target)
  add_dependencies(${target} occtune_carried_libs)
  get_target_property(dir ${target} RUNTIME_OUTPUT_DIRECTORY)
  if(NOT dir)
    set(dir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  file(RELATIVE_PATH rel ${dir} ${CMAKE_BINARY_DIR}/lib)
  set_property(TARGET ${target} APPEND PROPERTY BUILD_RPATH "\$ORIGIN/${rel}")
  target_link_options(${target} PRIVATE "LINKER:--disable-new-dtags")
endfunction()
