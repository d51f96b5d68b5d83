# `cmake --install`: the CLI, the kernel-side header wasmgpu.h, the host
# library libwasmgpu.so with its public headers (include/wasmgpu/*.hpp), a
# CMake package (find_package(wasmgpu) -> wasmgpu::wasmgpu, and
# wasmgpu_add_kernel() from cmake/wasmgpuKernel.cmake) and a pkg-config
# file (wasmgpu.pc).
#
# The shared library is the public API (src/api) linked with its Vulkan
# device (src/vulkan) and the internal stages; their symbols stay hidden (--exclude-libs), so only the API's
# classes and functions are exported and an application cannot clash with
# the SPIRV-Tools or volk copies inside.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_target_property(wasmgpu_api_sources wasmgpu_api_core SOURCES)
get_target_property(wasmgpu_api_source_dir wasmgpu_api_core SOURCE_DIR)
list(TRANSFORM wasmgpu_api_sources PREPEND "${wasmgpu_api_source_dir}/" REGEX "^[^/]")
add_library(wasmgpu_library SHARED ${wasmgpu_api_sources})
get_target_property(wasmgpu_api_links wasmgpu_api_core LINK_LIBRARIES)
target_link_libraries(wasmgpu_library PRIVATE ${wasmgpu_api_links} wasmgpu_vulkan ${wasmgpu_cpu_device})
target_include_directories(wasmgpu_library
  PUBLIC "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>" "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>"
         "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
  PRIVATE "${PROJECT_SOURCE_DIR}/src")
target_compile_features(wasmgpu_library PUBLIC cxx_std_20)
target_link_options(wasmgpu_library PRIVATE "LINKER:--exclude-libs,ALL" "LINKER:--no-undefined")
# Inline functions of internal classes the API instantiates (destructors of
# runtime types, for one) stay hidden too; the public headers' own inline
# functions are compiled into each user anyway.
set_target_properties(wasmgpu_library PROPERTIES
  VISIBILITY_INLINES_HIDDEN ON
  OUTPUT_NAME wasmgpu
  EXPORT_NAME wasmgpu
  VERSION "${PROJECT_VERSION}"
  SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
add_library(wasmgpu::wasmgpu ALIAS wasmgpu_library)

install(TARGETS wasmgpu RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS wasmgpu_library EXPORT wasmgpuTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(FILES include/wasmgpu.h include/wasmgpu_runtime.c include/wasmgpu_heap.c DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY include/wasmgpu DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.hpp")
# The interface types, which <wasmgpu/interface.hpp> includes by a path
# relative to itself (in the source tree they are internal: src/interface).
install(FILES src/interface/kernel_interface.h DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/wasmgpu/interface")

set(wasmgpu_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/wasmgpu")
install(EXPORT wasmgpuTargets NAMESPACE wasmgpu:: DESTINATION "${wasmgpu_cmake_dir}")
configure_package_config_file(cmake/wasmgpuConfig.cmake.in "${PROJECT_BINARY_DIR}/wasmgpuConfig.cmake"
  INSTALL_DESTINATION "${wasmgpu_cmake_dir}" PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/wasmgpuConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/wasmgpuConfig.cmake" "${PROJECT_BINARY_DIR}/wasmgpuConfigVersion.cmake"
              cmake/wasmgpuKernel.cmake
  DESTINATION "${wasmgpu_cmake_dir}")
configure_file(cmake/wasmgpu.pc.in "${PROJECT_BINARY_DIR}/wasmgpu.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/wasmgpu.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
