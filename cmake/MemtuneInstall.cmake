# install(EXPORT) of the libraries and headers, with a package config and a
# version file, so an application can find_package(memtune) and link
# memtune::memtune; the build tree exports the same package
# (-Dmemtune_DIR=<build>). Nothing installed names the source or build tree:
# the catalogue and the worker are found relative to the program or the
# package (model/include/memtune/model/install_layout.hpp), so a prefix can be moved.
# tests/cmake/test_export.cmake checks all of this from a separate project.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(memtune_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/memtune)
set(memtune_libraries memtune_io memtune_search memtune_cuda memtune_model memtune_compile memtune_description
    memtune_measure memtune_output memtune_profile memtune_probe memtune_isolate memtune_tune memtune_launch)
install(TARGETS memtune memtune_templates ${memtune_libraries}
        EXPORT memtuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS memtune_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The worker is started by memtune, never by a user: libexec, as the FHS has it.
install(TARGETS memtune_worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/memtune)
foreach(library IN LISTS memtune_libraries ITEMS memtune_templates)
  string(REPLACE "memtune_" "" dir ${library})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/include/memtune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/targets DESTINATION ${CMAKE_INSTALL_DATADIR}/memtune)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/memtune_package_prefix.cpp DESTINATION ${CMAKE_INSTALL_DATADIR}/memtune)

install(EXPORT memtuneTargets NAMESPACE memtune:: DESTINATION ${memtune_package_dir})
set(MEMTUNE_DATA_DIR ${CMAKE_INSTALL_DATADIR}/memtune)
set(MEMTUNE_WORKER ${CMAKE_INSTALL_LIBEXECDIR}/memtune/memtune-worker)
set(MEMTUNE_PREFIX_SOURCE ${CMAKE_INSTALL_DATADIR}/memtune/memtune_package_prefix.cpp)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/memtuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/install-package/memtuneConfig.cmake INSTALL_DESTINATION ${memtune_package_dir}
  PATH_VARS MEMTUNE_DATA_DIR MEMTUNE_WORKER MEMTUNE_PREFIX_SOURCE)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memtuneConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install-package/memtuneConfig.cmake ${PROJECT_BINARY_DIR}/memtuneConfigVersion.cmake
        DESTINATION ${memtune_package_dir})

# The build tree as a package: the same config, its prefix the build folder,
# where the data is staged (below) and the worker copied (cli/CMakeLists.txt).
export(EXPORT memtuneTargets NAMESPACE memtune:: FILE ${PROJECT_BINARY_DIR}/memtuneTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/memtuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/memtuneConfig.cmake INSTALL_DESTINATION . INSTALL_PREFIX ${PROJECT_BINARY_DIR}
  PATH_VARS MEMTUNE_DATA_DIR MEMTUNE_WORKER MEMTUNE_PREFIX_SOURCE)
