#!/usr/bin/env bash
# Fuzzes wasmgpu's input-facing code with libFuzzer (docs/testing.md, "Fuzzing").
#
#   scripts/fuzz.sh build                 builds the fuzz targets into build-fuzz/
#                                         (clang-19, ASan+UBSan, coverage)
#   scripts/fuzz.sh seeds                 writes the seed corpora to build-fuzz/seeds/
#                                         (needs the normal build in build/ for the
#                                         project's kernels and shaders)
#   scripts/fuzz.sh run TARGET [SECONDS] [WORKERS]
#                                         fuzzes one target (decoder, compiler,
#                                         metadata, reflect) for SECONDS (default 600)
#                                         with WORKERS processes (default: all cores);
#                                         the compiler gets fresh `wasm-opt -ttf`
#                                         modules every round
#
# Crashes, hangs and sanitizer reports land in build-fuzz/artifacts/TARGET/;
# the grown corpus stays in build-fuzz/corpus/TARGET/ for the next run. Each
# input that found a bug is kept, once fixed, in tests/fuzz/regressions/TARGET/,
# which the fuzz.replay test runs on every CI build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz_build="${WASMGPU_FUZZ_BUILD_DIR:-$root/build-fuzz}"
targets=(decoder compiler metadata reflect)

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

case "${1:-}" in
  build)
    cmake -S "$root" -B "$fuzz_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
      -DWASMGPU_FUZZ=ON -DWASMGPU_BUILD_TESTS=OFF -DWASMGPU_BUILD_EXAMPLES=OFF
    cmake --build "$fuzz_build" --target fuzz_targets
    ;;
  seeds)
    python3 "$root/tests/fuzz/corpus.py" prepare --build "$root/build" \
      --spec-tests "$root/../shared/wasm-spec-tests" --spec-tests "$root/../shared/wasm-spec-tests-3.0" \
      --out "$fuzz_build/seeds" --ttf 200
    ;;
  run)
    target="${2:-}"
    seconds="${3:-600}"
    workers="${4:-$(nproc)}"
    if [[ ! " ${targets[*]} " =~ " $target " ]]; then
      echo "fuzz.sh: unknown target '$target' (one of: ${targets[*]})" >&2
      exit 2
    fi
    binary="$fuzz_build/src/fuzz_$target"
    [ -x "$binary" ] || { echo "fuzz.sh: $binary missing: run 'scripts/fuzz.sh build' first" >&2; exit 2; }
    [ -d "$fuzz_build/seeds/$target" ] || { echo "fuzz.sh: no seeds: run 'scripts/fuzz.sh seeds' first" >&2; exit 2; }
    corpus="$fuzz_build/corpus/$target"
    artifacts="$fuzz_build/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    # Few rounds for most targets; the compiler gets new valid modules each round,
    # since mutations of a valid module are mostly invalid ones.
    rounds=1
    if [ "$target" = compiler ]; then
      if command -v wasm-opt >/dev/null; then
        rounds=4
      else
        echo "fuzz.sh: no wasm-opt (binaryen) here: no fresh -ttf modules, only the seeds' ones"
      fi
    fi
    per_round=$(( seconds / rounds ))
    for round in $(seq 1 $rounds); do
      extra=()
      if [ "$target" = compiler ] && [ $rounds -gt 1 ]; then
        fresh="$fuzz_build/ttf-round/$target"
        rm -rf "$fresh"; mkdir -p "$fresh"
        for i in $(seq 1 100); do
          head -c 4096 /dev/urandom > "$fresh/in"
          wasm-opt -ttf "$fresh/in" -o "$fresh/ttf-$round-$i.wasm" 2>/dev/null || true
        done
        rm -f "$fresh/in"
        extra=("$fresh")
      fi
      echo "fuzz.sh: $target round $round/$rounds, $per_round s, $workers workers"
      # -fork keeps fuzzing after a crash (each one saved under artifacts/);
      # 60 s per input and 2 GiB are far above what any input needs, even under
      # ASan on a loaded machine (a 0.5 s compile took over 10 s there).
      "$binary" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$per_round" -timeout=60 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 \
        "$corpus" "$fuzz_build/seeds/$target" "${extra[@]}" 2>&1 | grep -v '^#[0-9]*\s*\(NEW\|REDUCE\|pulse\)' || true
    done
    echo "fuzz.sh: artifacts of $target: $(ls "$artifacts" | wc -l) in $artifacts"
    ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
