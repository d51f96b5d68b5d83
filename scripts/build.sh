#!/usr/bin/env bash
# Configures and builds wasmgpu into ./build (or $WASMGPU_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WASMGPU_BUILD_DIR:-$root/build}"
jobs="${WASMGPU_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
