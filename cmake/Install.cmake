# `cmake --install build --prefix P`: the library (shared and static), the public headers, the
# `occtune` CLI, the device profiles, the carried shared objects, the CMake package
# (lib/cmake/occtune: occtune::occtune, occtune::occtune_static) and lib/pkgconfig/occtune.pc.
# The tree is relocatable: the package and occtune.pc find the prefix from their own location.
include(CMakePackageConfigHelpers)
set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/occtune)

install(TARGETS occtune_shared EXPORT occtuneTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS occtune_static EXPORT occtuneStaticTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Every header of include/occtune/, whatever is added there later.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/occtune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh" PATTERN "*.h")

# The CLI finds libocctune.so in ../lib; the library finds the carried shared objects (libcpp-
# httplib and what it needs, which many machines lack) in lib/occtune/ through its own RPATH,
# out of the way of the system's copies.
file(RELATIVE_PATH bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
set_target_properties(occtune PROPERTIES INSTALL_RPATH "\$ORIGIN/${bin_to_lib}")
install(TARGETS occtune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# build/lib is cmake/CarriedLibs.cmake's OCCTUNE_CARRIED_LIB_DIR (a variable of autotuner/ only).
install(DIRECTORY ${CMAKE_BINARY_DIR}/lib/ DESTINATION ${CMAKE_INSTALL_LIBDIR}/occtune
        FILES_MATCHING PATTERN "*.so*" PATTERN "libocctune.*" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/profiles/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/occtune/profiles FILES_MATCHING PATTERN "*.toml")

install(EXPORT occtuneTargets NAMESPACE occtune:: DESTINATION ${config_dir}
       )
install(EXPORT occtuneStaticTargets NAMESPACE occtune:: DESTINATION ${config_dir}
       )
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/occtuneConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/occtuneConfig.cmake
                              INSTALL_DESTINATION ${config_dir})
# Before 1.0 a minor release may break the ABI (see OCCTUNE_SOVERSION), so only the same
# MAJOR.MINOR is compatible; from 1.0 on, the same MAJOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(compatibility SameMinorVersion)
else()
  set(compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/occtuneConfigVersion.cmake
                                 COMPATIBILITY ${compatibility})
install(FILES ${CMAKE_BINARY_DIR}/package/occtuneConfig.cmake
              ${CMAKE_BINARY_DIR}/package/occtuneConfigVersion.cmake
        DESTINATION ${config_dir})

# occtune.pc: -locctune links the shared library; Libs.private lists what the static one needs
# (`pkg-config --static`). The CUDA headers are in Cflags for code that passes CUDA types.
file(RELATIVE_PATH pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
list(GET CUDAToolkit_INCLUDE_DIRS 0 OCCTUNE_PC_CUDA_INCLUDE)
set(OCCTUNE_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lSQLiteCpp \
-lsqlite3 -lfmt ${OCCTUNE_HTTPLIB_SO} -lpthread -ldl -lrt")
configure_file(${PROJECT_SOURCE_DIR}/cmake/package/occtune.pc.in
               ${CMAKE_BINARY_DIR}/package/occtune.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/occtune.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
