#!/usr/bin/env python3
"""Disassemble the machine code (SASS) of the Vulkan pipelines NVIDIA's driver compiled.

NVIDIA's Vulkan driver reports no internal representation through
VK_KHR_pipeline_executable_properties (WASMGPU_PIPELINE_IR stays empty), but it keeps
every pipeline it compiles in its shader disk cache. This reads that cache: each entry
of a `.bin` file holds a u32 compressed size, a u32 size and a zstd frame; the frame holds
a blob that starts with "NVDANVVM", whose code section is located by the u32 size at
0x4c and the u32 offset (minus 8) at 0x50. The layout was worked out from driver
580.159.04 (H200); a blob that does not match it is reported and skipped.

Usage (see docs/performance.md, "Reading NVIDIA's machine code"):
  mkdir -p /tmp/nvcache
  __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \\
  WASMGPU_CACHE=off wasmgpu bench --quick --only stencil
  bench/nvidia_sass.py /tmp/nvcache out/
writes out/NN_NAME.sass (or .bin, the raw code, without nvdisasm) per pipeline and
prints a line per pipeline with its size and the count of a few telling instructions.
Needs the `zstd` program and, for the disassembly, `nvdisasm` from the CUDA toolkit.
"""
import argparse
import collections
import os
import re
import shutil
import struct
import subprocess
import sys

ZSTD_MAGIC = bytes.fromhex("28b52ffd")
BLOB_MAGIC = b"NVDANVVM"
COUNTED = ("LDG", "STG", "LDS", "STS", "BAR", "BSSY", "WARPSYNC", "CALL", "FFMA", "IMAD")


def cache_entries(data):
    """Yields the zstd frames of a cache file, each with its decompressed size."""
    at = data.find(ZSTD_MAGIC)
    while at >= 8:
        compressed, size = struct.unpack_from("<II", data, at - 8)
        if compressed == 0:
            at = data.find(ZSTD_MAGIC, at + 1)
            continue
        # The recorded size runs 4 bytes past the frame (into the next entry's
        # header, or past the end of the file for the last entry).
        yield data[at:at + compressed], size
        at = data.find(ZSTD_MAGIC, at + compressed - 4)


def decompress(zstd, frame, size):
    # zstd exits non-zero on the bytes after the frame once it has written the
    # frame's content: the output is used when it has the recorded size.
    out = subprocess.run([zstd, "-d", "-c", "-q"], input=frame, capture_output=True).stdout
    return out if len(out) == size else None


def code_of(blob):
    if not blob.startswith(BLOB_MAGIC) or len(blob) < 0x54:
        return None
    size, offset = struct.unpack_from("<II", blob, 0x4c)
    start = offset + 8
    if size == 0 or size % 16 or start + size > len(blob):
        return None
    return blob[start:start + size]


def name_of(blob):
    """The first function name NVIDIA's front end kept (`NAME_ID` followed by `nv.`)."""
    for match in re.finditer(rb"([A-Za-z_][A-Za-z0-9_.]*?)_\d+nv\.", blob):
        name = match.group(1).decode()
        if not name.startswith(("nv", "wasmgpu", "main", "_")):
            return name.replace(".", "_")
    return "main"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cache", help="the driver's shader cache directory (__GL_SHADER_DISK_CACHE_PATH)")
    parser.add_argument("out", help="directory for the .sass (or raw .bin) files")
    parser.add_argument("--arch", default="SM90", help="nvdisasm's -b architecture (default SM90: Hopper)")
    parser.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or "/usr/local/cuda/bin/nvdisasm")
    parser.add_argument("--zstd", default=shutil.which("zstd") or "zstd")
    args = parser.parse_args()

    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.cache) for f in fs if f.endswith(".bin"))
    if not files:
        sys.exit(f"no .bin files under {args.cache}: run a Vulkan program with __GL_SHADER_DISK_CACHE_PATH set "
                 "to an existing directory (the driver does not create it) and no VkPipelineCache "
                 "(WASMGPU_CACHE=off), so that its pipelines are compiled")
    disassemble = os.access(args.nvdisasm, os.X_OK)
    os.makedirs(args.out, exist_ok=True)
    count = 0
    for path in files:
        for frame, size in cache_entries(open(path, "rb").read()):
            blob = decompress(args.zstd, frame, size)
            code = code_of(blob) if blob else None
            if code is None:
                print(f"skipped an entry of {path}: not a blob this script understands", file=sys.stderr)
                continue
            stem = os.path.join(args.out, f"{count:02d}_{name_of(blob)}")
            count += 1
            if not disassemble:
                open(stem + ".bin", "wb").write(code)
                print(f"{os.path.basename(stem)}: {len(code)} bytes of code (no nvdisasm: raw .bin)")
                continue
            open(stem + ".code", "wb").write(code)
            result = subprocess.run([args.nvdisasm, "-b", args.arch, stem + ".code"], capture_output=True, text=True)
            os.remove(stem + ".code")
            if result.returncode != 0:
                print(f"{os.path.basename(stem)}: nvdisasm failed: {result.stderr.strip()}", file=sys.stderr)
                continue
            open(stem + ".sass", "w").write(result.stdout)
            ops = collections.Counter(m.group(1) for m in re.finditer(r"\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*)", result.stdout))
            summary = " ".join(f"{op} {ops[op]}" for op in COUNTED if ops[op])
            print(f"{os.path.basename(stem)}: {len(code)} bytes, {len(code) // 16} instructions; {summary}")
    if count == 0:
        sys.exit("no pipeline found in the cache")


if __name__ == "__main__":
    main()
