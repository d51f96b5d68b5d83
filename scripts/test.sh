#!/usr/bin/env bash
# Installs what wasmgpu needs, builds it, and runs the whole test suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build="${WASMGPU_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure -j "${WASMGPU_JOBS:-$(nproc)}" "$@"
