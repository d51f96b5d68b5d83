#!/usr/bin/env python3
"""Golden SPIR-V: every kernel of the examples and bench modules, compiled
under every option set the runtime can choose, compared with the text kept
in tests/golden/ (or, for kernels too large to keep as text, with a hash and
per-opcode instruction counts).

  golden.py check  --wasmgpu PATH --golden DIR WASM|DIR...   fails on any change
  golden.py update --wasmgpu PATH --golden DIR WASM|DIR...   rewrites DIR

Each module's golden directory holds a manifest (manifest.json: the wasm's
SHA-256, and for each kernel and option set the file that holds its SPIR-V)
and one .spvasm per distinct output, named after the first option set that
produces it. Option sets that give the same words share a file, so an option
that does not touch a kernel costs nothing. A wasm whose hash differs from
the manifest's was built by a different clang (or its source changed): the
check says so instead of reporting code generation changes.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

# What the runtime chooses per device (src/runtime/device_compile_options.h)
# and what the user chooses (the float mode). Fast mode has no f64
# subnormal path: the option only changes exact mode.
FLOAT_MODES = ["exact", "fast"]
DRIVER_SETTINGS = [  # (name, wasmgpu compile flags)
    ("default", []),
    ("no-loop-exit-breaks", ["--no-loop-exit-breaks"]),
    ("no-subgroup-vote", ["--no-subgroup-vote"]),
    ("no-loop-exit-breaks.no-subgroup-vote", ["--no-loop-exit-breaks", "--no-subgroup-vote"]),
]
F64_SUBNORMALS = [("", []), ("checked-f64-subnormals", ["--checked-f64-subnormals"])]

# Disassembly larger than this is kept as a hash and instruction counts
# (the compile bench's generated kernel is tens of megabytes).
TEXT_LIMIT = 1 << 20


def option_sets():
    for mode in FLOAT_MODES:
        for driver, driver_flags in DRIVER_SETTINGS:
            for f64, f64_flags in (F64_SUBNORMALS if mode == "exact" else F64_SUBNORMALS[:1]):
                name = ".".join(part for part in (mode, "" if driver == "default" else driver, f64) if part)
                yield name, ["--float-mode", mode] + driver_flags + f64_flags


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"golden: {' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def kernels_of(wasmgpu, wasm):
    return [k["name"] for k in json.loads(run([wasmgpu, "reflect", wasm]))["kernels"]]


def compile_text(wasmgpu, wasm, kernel, flags, scratch):
    out = os.path.join(scratch, f"{threading.get_ident()}.spvasm")
    # Every golden output is validated (spirv-val runs inside compile).
    run([wasmgpu, "compile", wasm, "-k", kernel, "--emit", "spvasm", "-o", out] + flags)
    with open(out, encoding="utf-8") as f:
        return f.read()


def summary(text):
    """Hash and per-opcode counts, for kernels too large to keep as text."""
    counts = collections.Counter(re.findall(r"\b(Op[A-Za-z0-9]+)\b", text))
    lines = [f"sha256 {sha256(text.encode())}", f"bytes {len(text.encode())}"]
    lines += [f"{op} {n}" for op, n in sorted(counts.items())]
    return "\n".join(lines) + "\n"


def build_module(wasmgpu, wasm, scratch, progress):
    """The golden files of one module: {file name: text} and its manifest."""
    with open(wasm, "rb") as f:
        manifest = {"wasm_sha256": sha256(f.read()), "kernels": {}}
    files = {}
    for kernel in kernels_of(wasmgpu, wasm):
        by_output = {}  # text hash -> file name
        chosen = {}
        progress(f"{module_key(wasm)}: {kernel}")
        sets = list(option_sets())
        # One compile per option set, as many at once as there are cores.
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            texts = list(pool.map(lambda s: compile_text(wasmgpu, wasm, kernel, s[1], scratch), sets))
        for (name, _), text in zip(sets, texts):
            key = sha256(text.encode())
            if key not in by_output:
                large = len(text.encode()) > TEXT_LIMIT
                file = f"{kernel}.{name}.{'summary' if large else 'spvasm'}"
                by_output[key] = file
                files[file] = summary(text) if large else text
            chosen[name] = by_output[key]
        manifest["kernels"][kernel] = chosen
    return files, manifest


def module_key(wasm):
    """bench/mandelbrot for .../bench/mandelbrot.wasm: examples and bench
    kernels share some names."""
    return os.path.join(os.path.basename(os.path.dirname(os.path.abspath(wasm))),
                        os.path.splitext(os.path.basename(wasm))[0])


def module_dir(golden, wasm):
    return os.path.join(golden, module_key(wasm))


def read_golden(directory):
    files = {}
    for name in sorted(os.listdir(directory)):
        if name != "manifest.json":
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                files[name] = f.read()
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        return files, json.load(f)


def first_difference(old, new):
    a, b = old.splitlines(), new.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: golden `{x.strip()}`, now `{y.strip()}`"
    return f"golden has {len(a)} lines, now {len(b)}"


def check(args, modules):
    problems = []
    for wasm, (files, manifest) in modules.items():
        directory = module_dir(args.golden, wasm)
        where = os.path.relpath(directory)
        if not os.path.isfile(os.path.join(directory, "manifest.json")):
            problems.append(f"{where}: no golden (run scripts/update-golden.sh)")
            continue
        old_files, old_manifest = read_golden(directory)
        if old_manifest.get("wasm_sha256") != manifest["wasm_sha256"]:
            problems.append(f"{where}: {os.path.basename(wasm)} is not the module the golden was made from "
                            "(its source or the clang that built it changed); regenerate with "
                            "scripts/update-golden.sh and review the diff")
            continue
        for kernel, chosen in manifest["kernels"].items():
            old_chosen = old_manifest["kernels"].get(kernel)
            if old_chosen is None:
                problems.append(f"{where}: kernel {kernel} has no golden")
                continue
            for option_set, file in chosen.items():
                old_file = old_chosen.get(option_set)
                if old_file is None:
                    problems.append(f"{where}: {kernel} under {option_set} has no golden")
                elif old_files.get(old_file) != files[file]:
                    problems.append(f"{where}/{old_file}: {kernel} under {option_set} changed: "
                                    + first_difference(old_files.get(old_file, ""), files[file]))
        for kernel in old_manifest["kernels"]:
            if kernel not in manifest["kernels"]:
                problems.append(f"{where}: kernel {kernel} is gone")
    if problems:
        print("golden SPIR-V differs; if the change is intended, run scripts/update-golden.sh and commit "
              "the diff:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    count = sum(len(m["kernels"]) for _, m in modules.values())
    print(f"golden SPIR-V: {count} kernels of {len(modules)} modules under "
          f"{len(list(option_sets()))} option sets, all as kept")
    return 0


def update(args, modules):
    for wasm, (files, manifest) in modules.items():
        directory = module_dir(args.golden, wasm)
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):
            os.remove(os.path.join(directory, name))
        for name, text in files.items():
            with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
                f.write(text)
        with open(os.path.join(directory, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write("\n")
    print(f"golden SPIR-V written for {len(modules)} modules under {os.path.relpath(args.golden)}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["check", "update"])
    parser.add_argument("--wasmgpu", required=True, help="the wasmgpu CLI")
    parser.add_argument("--golden", required=True, help="tests/golden")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("wasm", nargs="+", help="the modules, or directories of them (the examples and bench kernels as built)")
    args = parser.parse_args()
    # A directory stands for the .wasm files in it.
    wasms = []
    for path in args.wasm:
        if os.path.isdir(path):
            wasms += sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".wasm"))
        else:
            wasms.append(path)
    args.wasm = wasms
    keys = [module_key(w) for w in args.wasm]
    if len(set(keys)) != len(keys):
        sys.exit("golden: two modules share a name: " + ", ".join(sorted(keys)))

    def progress(text):
        if not args.quiet:
            print(f"golden: {text}", file=sys.stderr, flush=True)

    # The compile cache would hand back words from an earlier build.
    os.environ["WASMGPU_CACHE"] = "0"
    with tempfile.TemporaryDirectory() as scratch:
        modules = {w: build_module(args.wasmgpu, w, scratch, progress) for w in args.wasm}
    return check(args, modules) if args.mode == "check" else update(args, modules)


if __name__ == "__main__":
    sys.exit(main())
