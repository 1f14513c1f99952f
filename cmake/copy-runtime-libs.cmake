# Script mode: copies LIBRARY and the shared objects it needs into DEST, each under its real
# file name with a link by its SONAME, leaving out what every Debian system has (glibc, the GCC
# runtime, zlib). Touches STAMP when done.
file(REAL_PATH "${LIBRARY}" real)
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES "${real}"
  RESOLVED_DEPENDENCIES_VAR deps
  UNRESOLVED_DEPENDENCIES_VAR missing
  POST_EXCLUDE_REGEXES
    "/(ld-linux[^/]*|libc|libm|libdl|libpthread|librt|libstdc\\+\\+|libgcc_s|libz)\\.so[^/]*$")
if(missing)
  message(FATAL_ERROR "cannot resolve ${missing}, needed by ${real}")
endif()
file(MAKE_DIRECTORY "${DEST}")
foreach(object IN LISTS real deps)
  file(REAL_PATH "${object}" file)
  get_filename_component(file_name "${file}" NAME)
  file(COPY_FILE "${file}" "${DEST}/${file_name}" ONLY_IF_DIFFERENT)
  execute_process(COMMAND "${READELF}" -d "${file}" OUTPUT_VARIABLE dynamic
                  COMMAND_ERROR_IS_FATAL ANY)
  if(dynamic MATCHES "Library soname: \\[([^]]+)\\]")
    set(soname "${CMAKE_MATCH_1}")
    if(NOT soname STREQUAL file_name)
      file(CREATE_LINK "${file_name}" "${DEST}/${soname}" SYMBOLIC)
    endif()
  endif()
endforeach()
file(TOUCH "${STAMP}")
