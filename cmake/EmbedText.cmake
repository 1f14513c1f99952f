# Embeds one text file into the binary as a std::string_view returned by a function, so a
# document kept in the repository (docs/openapi.json) is served byte for byte as committed.
function(occtune_embed_text output input function)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DFUNCTION=${function}
            -P ${PROJECT_SOURCE_DIR}/cmake/generate-embedded-text.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/generate-embedded-text.cmake
    COMMENT "Embedding ${input}" VERBATIM)
endfunction()
