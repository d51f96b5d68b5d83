#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds tests/package, a small
# project outside the tree, against the installed CMake package only, then
# runs it on the Vulkan device (its kernels built by the installed
# wasmgpu_add_kernel); also compiles a program through pkg-config.
# Usage: package_test.sh BUILD_DIR
set -euo pipefail
build="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/wasmgpu.h include/wasmgpu/wasmgpu.hpp include/wasmgpu/interface/kernel_interface.h lib/libwasmgpu.so \
         lib/cmake/wasmgpu/wasmgpuConfig.cmake lib/cmake/wasmgpu/wasmgpuKernel.cmake lib/pkgconfig/wasmgpu.pc; do
  test -e "$prefix/$f" || { echo "missing after install: $f"; exit 1; }
done
# Only the public API is exported: no SPIRV-Tools, volk or internal symbols.
if nm -D --defined-only "$prefix/lib/libwasmgpu.so" | grep -E ' (spv|volk|_ZN7wasmgpu7runtime|_ZN8spvtools)' | head -3 | grep -q .; then
  echo "libwasmgpu.so exports internal symbols"; exit 1
fi
cmake -S "$here/package" -B "$scratch/user" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/user" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$scratch/user/package_user" "$scratch/user"
# pkg-config: the same library and headers without CMake.
printf '#include <wasmgpu/wasmgpu.hpp>\n#include <cstdio>\nint main() { for (auto& d : wasmgpu::devices()) std::printf("%%s\\n", d.name.c_str()); }\n' > "$scratch/list.cpp"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" c++ "$scratch/list.cpp" -o "$scratch/list" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs wasmgpu)
LD_LIBRARY_PATH="$prefix/lib" "$scratch/list" | grep -q . || { echo "pkg-config program listed no device"; exit 1; }
echo "installed package works (CMake and pkg-config)"
