# install(EXPORT) of the libraries and headers, with a package config and a
# version file, so an application can find_package(memtune) and link
# memtune::memtune. tests/cmake/test_export checks this from a separate project.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS memtune memtune_templates memtune_tuner memtune_model memtune_search memtune_io
        EXPORT memtuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS memtune_cli memtune_worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir io/include search/include tuner/include tuner/model/include templates/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/memtune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/targets DESTINATION ${CMAKE_INSTALL_DATADIR}/memtune)

install(EXPORT memtuneTargets NAMESPACE memtune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/memtune)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/memtuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/memtuneConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/memtune)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memtuneConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/memtuneConfig.cmake ${PROJECT_BINARY_DIR}/memtuneConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/memtune)
