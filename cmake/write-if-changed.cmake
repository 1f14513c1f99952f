# occtune_write_if_changed(PATH CONTENT): writes CONTENT to PATH only when it differs from what is
# there, so the generated file keeps its time stamp and its dependants are not rebuilt for
# nothing. Shared by the generate-*.cmake scripts (run with cmake -P).
function(occtune_write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()
