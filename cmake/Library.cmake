# occtune_add_library(COMPONENTS lib...): the occtune library, built twice from the objects of the
# internal static libraries named: libocctune.so (target occtune_shared, exported as
# occtune::occtune) and libocctune.a (occtune_static, exported as occtune::occtune_static). Both
# land in ${CMAKE_BINARY_DIR}/lib, next to the carried libraries (cmake/CarriedLibs.cmake).
# Why objects and not archives: docs/architecture.md, "Packaging (issue #12)".

# Everything outside the project that the components' objects need at link time, once, for both:
# the shared object links them (--no-undefined proves the list complete), and the static
# library's users get them through occtuneConfig.cmake. CLI11, nlohmann-json, toml++ and spdlog
# are used header-only. cpp-httplib is named by its absolute path: it has no CMake package.
# cuBLAS is not among them: it is loaded on first use (autotuner/cuda/cublas_on_demand.cpp).
set(OCCTUNE_LIBRARY_DEPENDENCIES CUDA::cudart_static SQLiteCpp SQLite::SQLite3
    fmt::fmt ${OCCTUNE_HTTPLIB_SO} Threads::Threads ${CMAKE_DL_LIBS})

# The ABI version in the SONAME: MAJOR, or MAJOR.MINOR before 1.0, when a minor release may
# change the ABI (libocctune.so.0.1 for 0.1.x).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(OCCTUNE_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(OCCTUNE_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

function(occtune_add_library)
  cmake_parse_arguments(ARG "" "" "COMPONENTS" ${ARGN})
  set(objects "")
  foreach(component IN LISTS ARG_COMPONENTS)
    # A shared object needs position-independent code in every part.
    set_target_properties(${component} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND objects $<TARGET_OBJECTS:${component}>)
  endforeach()
  set(map ${PROJECT_SOURCE_DIR}/cmake/libocctune.map)
  set(public_include $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                     $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

  add_library(occtune_shared SHARED ${objects})
  add_library(occtune_static STATIC ${objects})
  foreach(target occtune_shared occtune_static)
    add_dependencies(${target} ${ARG_COMPONENTS})
    target_include_directories(${target} INTERFACE ${public_include})
    target_compile_features(${target} INTERFACE cxx_std_17)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME occtune LINKER_LANGUAGE CXX
                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
                          ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  endforeach()

  target_link_libraries(occtune_shared PRIVATE ${OCCTUNE_LIBRARY_DEPENDENCIES})
  # DT_RPATH, not RUNPATH: the carried libcpp-httplib's own dependencies (libssl, ...) are found
  # through it too (cmake/CarriedLibs.cmake). Installed, the carried copies sit in lib/occtune/.
  target_link_options(occtune_shared PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined"
                      "LINKER:--exclude-libs,ALL" "LINKER:--disable-new-dtags")
  set_target_properties(occtune_shared PROPERTIES
    EXPORT_NAME occtune VERSION ${PROJECT_VERSION} SOVERSION ${OCCTUNE_SOVERSION}
    LINK_DEPENDS ${map} BUILD_RPATH "\$ORIGIN" INSTALL_RPATH "\$ORIGIN;\$ORIGIN/occtune"
    INSTALL_RPATH_USE_LINK_PATH ON)
  add_dependencies(occtune_shared occtune_carried_libs)

  target_link_libraries(occtune_static INTERFACE ${OCCTUNE_LIBRARY_DEPENDENCIES})
  set_target_properties(occtune_static PROPERTIES EXPORT_NAME occtune_static)
endfunction()
