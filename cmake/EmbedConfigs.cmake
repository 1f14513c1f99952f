# Embeds the shipped TOML files (device profiles, default job) into the binary, so
# `occtune plan --profile h100` and `occtune tune` work from any directory or install.
function(occtune_embed_configs output)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/configs
       ${PROJECT_SOURCE_DIR}/configs/*.toml)
  list(SORT files)
  set(deps "")
  foreach(f IN LISTS files)
    list(APPEND deps ${PROJECT_SOURCE_DIR}/configs/${f})
  endforeach()
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DCONFIG_DIR=${PROJECT_SOURCE_DIR}/configs "-DFILES=${files}"
            -DOUTPUT=${output} -P ${PROJECT_SOURCE_DIR}/cmake/generate-embedded-configs.cmake
    DEPENDS ${deps} ${PROJECT_SOURCE_DIR}/cmake/generate-embedded-configs.cmake
    COMMENT "Embedding configs/*.toml" VERBATIM)
endfunction()
