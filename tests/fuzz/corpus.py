#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, and their deterministic replay.

  corpus.py prepare --build BUILD --spec-tests DIR --out DIR [--ttf N]
      writes one directory per target under --out:
        decoder, compiler, metadata: every module of the official spec suite
          (wast2json, binary modules of assert_invalid/assert_malformed too),
          the project's kernels from the build, and N modules that binaryen's
          `wasm-opt -ttf` made from fixed random bytes (compiler only);
        reflect: the SPIR-V the build made (foreign fixtures, bench GLSL,
          the probe's shaders, example shaders).
  corpus.py replay --build BUILD --spec-tests DIR --work DIR [--ttf N]
      prepares the corpora, then runs each target's replay binary
      (fuzz_replay_<target>) on its corpus and on the kept regression inputs
      (tests/fuzz/regressions/<target>/). Fails when a target fails on any.

No randomness that differs between runs: the ttf inputs come from a seeded
generator, so CI replays the same inputs every time (docs/testing.md).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

TARGETS = ["decoder", "compiler", "metadata", "reflect"]
HERE = Path(__file__).resolve().parent
# Kernel and shader outputs of the build, relative to the build directory.
WASM_DIRS = ["tests/kernels", "examples", "bench", "api_kernels", "src/probe"]
SPIRV_DIRS = ["spirv_fixtures", "bench", "src/probe", "examples"]


def files_under(root, suffix):
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*" + suffix) if p.is_file())


def copy_unique(sources, dest, prefix):
    dest.mkdir(parents=True, exist_ok=True)
    for i, source in enumerate(sources):
        shutil.copyfile(source, dest / f"{prefix}-{i:05d}-{source.name}")
    return len(sources)


def spec_modules(spec_dirs, work):
    """Every binary module wast2json writes for the spec scripts."""
    out = work / "spec-json"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    modules = []
    for spec_dir in spec_dirs:
        for wast in sorted(Path(spec_dir).glob("*.wast")):
            dest = out / spec_dir.name / wast.stem
            dest.mkdir(parents=True)
            # The 3.0 scripts need their proposals; scripts wabt 1.0.32 cannot
            # read are left out (counted), they only seed the corpus.
            done = subprocess.run(["wast2json", "--enable-all", str(wast), "-o", str(dest / "script.json")],
                                  capture_output=True)
            if done.returncode != 0:
                continue
            modules += sorted(dest.glob("*.wasm"))
    return modules


def ttf_modules(count, work):
    out = work / "ttf"
    out.mkdir(parents=True, exist_ok=True)
    modules = []
    for seed in range(1, count + 1):
        module = out / f"ttf-{seed}.wasm"
        if not module.exists():
            data = random.Random(seed).randbytes(2048)
            raw = out / f"ttf-{seed}.bytes"
            raw.write_bytes(data)
            done = subprocess.run(["wasm-opt", "-ttf", str(raw), "-o", str(module)], capture_output=True)
            raw.unlink()
            if done.returncode != 0:
                print(f"corpus.py: wasm-opt -ttf failed for seed {seed}: {done.stderr.decode()[:200]}",
                      file=sys.stderr)
                continue
        modules.append(module)
    return modules


def prepare(build, spec_dirs, out, ttf_count):
    build = Path(build)
    out = Path(out)
    for target in TARGETS:
        if (out / target).exists():
            shutil.rmtree(out / target)
    kernels = [p for d in WASM_DIRS for p in files_under(build / d, ".wasm")]
    spirv = [p for d in SPIRV_DIRS for p in files_under(build / d, ".spv")]
    spec = spec_modules([Path(d) for d in spec_dirs], out)
    ttf = ttf_modules(ttf_count, out)
    counts = {
        "decoder": copy_unique(spec, out / "decoder", "spec") + copy_unique(kernels, out / "decoder", "kernel"),
        "compiler": copy_unique(spec, out / "compiler", "spec") + copy_unique(kernels, out / "compiler", "kernel")
        + copy_unique(ttf, out / "compiler", "ttf"),
        "metadata": copy_unique(kernels, out / "metadata", "kernel"),
        "reflect": copy_unique(spirv, out / "reflect", "spirv"),
    }
    for target in TARGETS:
        print(f"corpus.py: {target}: {counts[target]} seed inputs")
        if counts[target] == 0:
            sys.exit(f"corpus.py: no seed inputs for {target}: is --build a built tree?")
    return counts


def replay(build, spec_dirs, work, ttf_count):
    prepare(build, spec_dirs, work, ttf_count)
    failed = []
    for target in TARGETS:
        binary = Path(build) / "src" / f"fuzz_replay_{target}"
        inputs = [str(Path(work) / target)]
        regressions = HERE / "regressions" / target
        if regressions.is_dir():
            inputs.append(str(regressions))
        start = time.monotonic()
        done = subprocess.run([str(binary)] + inputs, capture_output=True, text=True)
        took = time.monotonic() - start
        print(f"corpus.py: {target}: {done.stdout.strip()} in {took:.1f} s, exit {done.returncode}")
        if done.returncode != 0:
            lines = done.stderr.splitlines()
            named = [line for line in lines if line.startswith("input: ")]
            report = [line for line in lines if not line.startswith("input: ")]
            print(f"corpus.py: {target} failed on {named[-1][7:] if named else '?'}:", file=sys.stderr)
            print("\n".join(report)[-4000:], file=sys.stderr)
            failed.append(target)
    if failed:
        sys.exit(f"corpus.py: replay failed for {', '.join(failed)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["prepare", "replay"])
    parser.add_argument("--build", required=True, help="the build directory (kernels and shaders, replay binaries)")
    parser.add_argument("--spec-tests", action="append", default=[], help="a directory of .wast scripts (repeatable)")
    parser.add_argument("--out", "--work", dest="out", required=True, help="where the corpora go")
    parser.add_argument("--ttf", type=int, default=40, help="how many wasm-opt -ttf modules seed the compiler")
    args = parser.parse_args()
    for tool in ["wast2json", "wasm-opt"]:
        if shutil.which(tool) is None:
            sys.exit(f"corpus.py: {tool} not found (scripts/install-deps.sh installs wabt and binaryen)")
    if args.command == "prepare":
        prepare(args.build, args.spec_tests, args.out, args.ttf)
    else:
        replay(args.build, args.spec_tests, args.out, args.ttf)


if __name__ == "__main__":
    main()
