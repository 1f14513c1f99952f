# Attaches the ptxas resource capture to a CUDA target and generates kernel_manifest.cpp from
# it (registers per kernel and architecture, plus the kernel build id). See kernels/kernel_manifest.hpp.
function(occtune_kernel_manifest target)
  # EXTRA_TARGETS: CUDA object libraries compiled into `target` with architectures of their own
  # (kernels/tma.cu: sm_90a), whose kernels the manifest records too.
  cmake_parse_arguments(ARG "" "OUTPUT" "SOURCES;EXTRA_TARGETS" ${ARGN})
  set(object_dirs "")
  foreach(t IN ITEMS ${target} ${ARG_EXTRA_TARGETS})
    set_target_properties(${t} PROPERTIES
      CUDA_COMPILER_LAUNCHER "${PROJECT_SOURCE_DIR}/scripts/capture-ptxas.sh")
    target_compile_options(${t} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--resource-usage>)
    list(APPEND object_dirs "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${t}.dir")
  endforeach()
  string(REPLACE ";" "|" object_dirs "${object_dirs}")
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --version OUTPUT_VARIABLE nvcc_version)
  string(REGEX MATCH "Build [^\n]*" nvcc_build "${nvcc_version}")
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND}
      "-DOBJECT_DIRS=${object_dirs}"
      "-DSOURCES=${ARG_SOURCES}"
      "-DARCHS=${CMAKE_CUDA_ARCHITECTURES}"
      "-DFLAGS=${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${CMAKE_BUILD_TYPE}} ${CMAKE_BUILD_TYPE}"
      "-DCOMPILER=${nvcc_build}"
      -DOUTPUT=${ARG_OUTPUT}
      -P ${PROJECT_SOURCE_DIR}/cmake/generate-kernel-manifest.cmake
    DEPENDS ${target} ${ARG_EXTRA_TARGETS} ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/cmake/generate-kernel-manifest.cmake
            ${PROJECT_SOURCE_DIR}/cmake/parse-ptxas-report.cmake
    COMMENT "Generating the kernel manifest (registers per kernel, build id)"
    VERBATIM)
endfunction()
