#!/usr/bin/env bash
# Configures and builds wasmgpu into ./build (or $WASMGPU_BUILD_DIR): every
# target, or only the targets named as arguments (and what they need).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WASMGPU_BUILD_DIR:-$root/build}"
jobs="${WASMGPU_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ $# -gt 0 ]; then
  cmake --build "$build" -j "$jobs" --target "$@"
else
  cmake --build "$build" -j "$jobs"
fi
