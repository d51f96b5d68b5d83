#!/usr/bin/env bash
# Installs what wasmgpu needs, builds it, and runs the demo: a Mandelbrot kernel
# written in C, compiled to wasm and run on the default Vulkan device.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build="${WASMGPU_BUILD_DIR:-$root/build}"
"$build/examples/mandelbrot" "$@"
