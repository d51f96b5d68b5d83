#!/usr/bin/env python3
"""Differential testing: random valid programs run on the device through
`wasmgpu` and in wabt's interpreter, their bits compared.

Two sources of programs nobody here wrote:
- csmith: a Csmith C program (Debian's `csmith`), its checksum returned by an
  exported `checksum()`, compiled by clang-19 to wasm32 at each -O level;
- ttf: binaryen's `wasm-opt -ttf` turning random bytes into a valid module,
  its imports removed (`--remove-imports`: calls to them become nops).

csmith programs run as `wasmgpu call PROG checksum` against
`wasm-interp --run-all-exports`. ttf modules run as a spec script: the
exports without parameters called in order on one instance, as
`wasm-interp --run-all-exports` calls them, the integer values (or traps) it
gave as the assertions, through `wasmgpu spectest`, which keeps the
instance's state between calls the way wasm-interp does. wasm-interp prints
floats rounded, so float results are called but not compared (their effects
on memory reach `hashMemory`, which is).

Each program has a bounded size and its own timeout. Outcomes are counted
apart: match, mismatch (the bits differ: a bug or an undocumented
deviation), device trap where the reference ran, device timeout, device
error (refused or failed), and left out (too large, or the reference itself
timed out or trapped). The report is JSON (--report) plus a summary line.

  difftest.py --wasmgpu build/src/cli/wasmgpu --libc build/wasm32-libc/libc.a \\
      --include include --source csmith --count 100 --opt O0,O2 --work /tmp/diff
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

KERNEL_TAIL = r"""
#include <wasmgpu.h>
/* The checksum of every global, as Csmith's main computes it. */
__attribute__((export_name("checksum"))) unsigned checksum(void) {
  csmith_main(0, 0);
  return crc32_context ^ 0xFFFFFFFFu;
}
"""
# Csmith includes stdio.h for printf; the kernel side has no stdio.
STDIO_STUB = "int printf(const char *, ...);\n"
PRINTF_STUB = "int printf(const char *format, ...) { (void)format; return 0; }\n"


def run(command, timeout, cwd=None):
    """(returncode or None on timeout, stdout + stderr, seconds)."""
    start = time.monotonic()
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return r.returncode, r.stdout + r.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, time.monotonic() - start


class Csmith:
    name = "csmith"

    def __init__(self, args):
        self.args = args
        # Csmith's programs include csmith.h, which Debian packages apart
        # (libcsmith-dev): without it every program would fail to compile and
        # count as left out, so a run would test nothing and pass.
        if not os.path.exists("/usr/include/csmith/csmith.h"):
            sys.exit("difftest: /usr/include/csmith/csmith.h is missing (libcsmith-dev; scripts/install-deps.sh "
                     "installs it)")
        self.include = os.path.join(args.work, "include")
        os.makedirs(self.include, exist_ok=True)
        with open(os.path.join(self.include, "stdio.h"), "w") as f:
            f.write(STDIO_STUB)
        self.stubs = os.path.join(args.work, "stubs.o")
        stubs_c = os.path.join(args.work, "stubs.c")
        with open(stubs_c, "w") as f:
            f.write(PRINTF_STUB)
        rc, out, _ = run(["clang-19", "--target=wasm32", "-nostdlib", "-O2", "-c", stubs_c, "-o", self.stubs], 60)
        if rc != 0:
            sys.exit("difftest: cannot compile the printf stub:\n" + out)

    def programs(self, seed):
        """[(name, wasm path)] for one seed, or a left-out reason."""
        d = os.path.join(self.args.work, f"csmith-{seed}")
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "program.c")
        limits = ["--max-funcs", str(self.args.csmith_max_funcs)] if self.args.csmith_max_funcs else []
        rc, out, _ = run(["csmith", "--seed", str(seed)] + limits + ["-o", src], 60, cwd=d)  # it writes platform.info
        if rc != 0:
            return [], f"csmith failed: {out.strip()[:200]}"
        with open(src) as f:
            program = f.read()
        kernel = os.path.join(d, "kernel.c")
        with open(kernel, "w") as f:
            f.write(program + KERNEL_TAIL)  # -Dmain=csmith_main below
        built = []
        for opt in self.args.opt:
            obj, wasm = os.path.join(d, f"kernel.{opt}.o"), os.path.join(d, f"kernel.{opt}.wasm")
            rc, out, _ = run(["clang-19", "--target=wasm32", "-nostdlib", "-ffreestanding", "-w", f"-{opt}",
                              "-idirafter", "/usr/include/wasm32-wasi", "-I", self.include,
                              "-I", "/usr/include/csmith", "-I", self.args.include, "-DNOT_PRINT_CHECKSUM",
                              "-Dmain=csmith_main", "-c", kernel, "-o", obj], 120)
            if rc != 0:
                built.append((f"csmith-{seed}.{opt}", None, f"clang failed: {out.strip()[:200]}"))
                continue
            rc, out, _ = run(["wasm-ld-19", "--no-entry", obj, self.stubs, self.args.libc, "-o", wasm], 60)
            if rc != 0:
                built.append((f"csmith-{seed}.{opt}", None, f"wasm-ld failed: {out.strip()[:200]}"))
                continue
            built.append((f"csmith-{seed}.{opt}", wasm, None))
        return built, None

    def reference(self, wasm):
        """What wasm-interp gives: {"expected": checksum}, or a left-out entry."""
        rc, out, ref_s = run(["wasm-interp", wasm, "--run-all-exports"], self.args.reference_timeout)
        if rc is None:
            return {"outcome": "left out", "why": "reference timed out"}
        m = re.search(r"^checksum\(\) => i32:(\d+)", out, re.M)
        if not m:
            return {"outcome": "left out", "why": "reference gave no checksum: " + out.strip()[-200:]}
        return {"expected": int(m.group(1)) & 0xFFFFFFFF, "reference_s": round(ref_s, 3)}

    @staticmethod
    def on_device(a, wasm, ref):
        expected = ref["expected"]
        rc, out, dev_s = run([a.wasmgpu, "call", wasm, "checksum", "--timeout", str(a.timeout)],
                             a.timeout + a.compile_allowance)
        result = dict(ref, device_s=round(dev_s, 3))
        if rc is None:
            return dict(result, outcome="device timeout")
        text = out.strip()
        if rc != 0:
            trap = re.search(r"trap: (.*)", text)
            if trap:
                return dict(result, outcome="device trap", why=trap.group(1)[:200])
            return dict(result, outcome="device error", why=text[-300:])
        try:
            got = int(text.split()[0], 0) & 0xFFFFFFFF
        except (ValueError, IndexError):
            return dict(result, outcome="device error", why="unparsed output: " + text[-200:])
        result["got"] = got
        return dict(result, outcome="match" if got == expected else "mismatch")


class Ttf:
    name = "ttf"

    def __init__(self, args):
        self.args = args

    def programs(self, seed):
        d = os.path.join(self.args.work, f"ttf-{seed}")
        os.makedirs(d, exist_ok=True)
        raw, wasm = os.path.join(d, "random.bin"), os.path.join(d, "module.wasm")
        rng = random.Random(seed)
        with open(raw, "wb") as f:
            f.write(bytes(rng.getrandbits(8) for _ in range(self.args.ttf_bytes)))
        # No SIMD, threads or reference types: what wasmgpu runs today.
        rc, out, _ = run(["wasm-opt", raw, "-ttf", "--remove-imports", "--disable-simd", "--disable-threads",
                          "--disable-reference-types", "--disable-exception-handling", "-o", wasm], 60)
        if rc != 0:
            return [], f"wasm-opt failed: {out.strip()[:200]}"
        return [(f"ttf-{seed}", wasm, None)], None

    @staticmethod
    def wast_value(typed):
        kind, _, value = typed.partition(":")
        if kind not in ("i32", "i64", "f32", "f64"):
            return None
        # wasm-interp prints a NaN without its payload ("f32:-nan"), and a
        # NaN passed through (a constant, a load, a copysign) keeps a
        # signalling payload, which no wast NaN pattern accepts: a NaN result
        # is as unchecked as the rounded floats (reference()).
        return f"({kind}.const {value})"

    # wasm-interp's words for three traps, and the spec tests' (which
    # `wasmgpu spectest` matches): the same traps, named differently.
    INTERP_TRAPS = {
        "undefined table index": "undefined element",
        "uninitialized table element": "uninitialized element",
        "indirect call signature mismatch": "indirect call type mismatch",
    }

    @classmethod
    def spec_trap(cls, message):
        for interp, spec in cls.INTERP_TRAPS.items():
            if message.startswith(interp):
                return spec
        return message

    @classmethod
    def wast_values(cls, listed):
        """wasm-interp's "i32:1, f64:2.5" as wast constants, and the first
        value that has none (or None)."""
        values = []
        for typed in filter(None, (x.strip() for x in listed.split(","))):
            v = cls.wast_value(typed)
            if v is None:
                return values, typed
            values.append(v)
        return values, None

    def reference(self, wasm):
        """The spec script of what wasm-interp gives ({"script": path}), or a
        left-out entry."""
        rc, out, ref_s = run(["wasm-interp", wasm, "--run-all-exports"], self.args.reference_timeout)
        if rc is None:
            return {"outcome": "left out", "why": "reference timed out"}
        lines, unchecked = [], []
        for line in out.splitlines():
            m = re.match(r"^(\w+)\((.*)\) =>\s*(.*)$", line)
            if not m:
                continue
            name, params, results = m.groups()
            args, bad = self.wast_values(params)
            if bad:
                return {"outcome": "left out", "why": f"parameter {bad} of {name}"}
            invoke = f'(invoke "{name}" {" ".join(args)})'
            if not results.strip():
                lines.append(invoke)  # no results: run for its effects
                continue
            if results.startswith("error:"):
                lines.append(f'(assert_trap {invoke} "{self.spec_trap(results[6:].strip())}")')
                continue
            values, bad = self.wast_values(results)
            if bad:
                return {"outcome": "left out", "why": f"result {bad} of {name}"}
            # wasm-interp prints floats rounded (`f64:-131072.000000`), so
            # float results are not compared: the call still runs, in order,
            # and its effects on memory and globals reach what is compared
            # later (hashMemory, integer results).
            if any(v.startswith("(f") for v in values):
                lines.append(invoke)
                unchecked.append(name)
            else:
                lines.append(f"(assert_return {invoke} {' '.join(values)})")
        if not lines:
            return {"outcome": "left out", "why": "no export ran in the reference"}
        script = os.path.join(os.path.dirname(wasm), "module.wast")
        with open(wasm, "rb") as f:
            binary = "".join(f"\\{b:02x}" for b in f.read())
        with open(script, "w") as f:
            f.write(f'(module binary "{binary}")\n' + "\n".join(lines) + "\n")
        return {"script": script, "reference_s": round(ref_s, 3), "calls": len(lines),
                "float_results_unchecked": len(unchecked)}

    @staticmethod
    def on_device(a, wasm, ref):
        script = os.path.join(os.path.dirname(wasm), os.path.basename(ref["script"]))
        rc, out, dev_s = run([a.wasmgpu, "spectest", "--wast2json", a.wast2json, "--timeout", str(a.timeout),
                              "--file-timeout", str(a.timeout + a.compile_allowance), script],
                             a.timeout + a.compile_allowance + 30)
        result = dict(ref, device_s=round(dev_s, 3))
        if rc is None:
            return dict(result, outcome="device timeout")
        summary = re.search(r"(\d+) passed, (\d+) failed", out)
        if rc == 0 and summary and summary.group(2) == "0":
            return dict(result, outcome="match")
        if "timed out" in out or "did not finish" in out:
            return dict(result, outcome="device timeout", why=out.strip()[-300:])
        if summary and int(summary.group(2)) > 0 and "FAILED:" not in out:
            return dict(result, outcome="mismatch", why=out.strip()[-600:])
        return dict(result, outcome="device error", why=out.strip()[-400:])


def parse_seeds(text):
    """"1-20,33" -> [1, ..., 20, 33]."""
    seeds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        first, _, last = part.partition("-")
        seeds += range(int(first), int(last or first) + 1)
    return seeds


OUTCOMES = ["match", "mismatch", "device trap", "device timeout", "device error", "build error", "left out"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wasmgpu", required=True, help="the wasmgpu CLI")
    parser.add_argument("--libc", help="the kernels' libc.a (build/wasm32-libc/libc.a); csmith only")
    parser.add_argument("--include", help="the directory of wasmgpu.h (include/); csmith only")
    parser.add_argument("--source", choices=["csmith", "ttf", "both"], default="both")
    parser.add_argument("--count", type=int, default=10, help="seeds per source (default 10)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--csmith-seeds", help="csmith seeds instead of --first-seed/--count: 1-20,33")
    parser.add_argument("--ttf-seeds", help="ttf seeds instead of --first-seed/--count")
    parser.add_argument("--opt", default="O0,O2", help="csmith's -O levels, comma-separated (default O0,O2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds one launch may run (default 60)")
    parser.add_argument("--compile-allowance", type=float, default=600,
                        help="seconds a program may take on top of --timeout to compile (default 600)")
    # Csmith programs that terminate run in milliseconds in wasm-interp; a few
    # never end (an unconditional loop), and are left out.
    parser.add_argument("--reference-timeout", type=float, default=10, help="seconds for wasm-interp (default 10)")
    parser.add_argument("--max-bytes", type=int, default=256 << 10, help="larger modules are left out")
    parser.add_argument("--csmith-max-funcs", type=int, help="csmith's --max-funcs (default: csmith's own)")
    parser.add_argument("--ttf-bytes", type=int, default=8192, help="random bytes per ttf module")
    parser.add_argument("--jobs", type=int, default=1, help="programs at a time (default 1)")
    parser.add_argument("--work", help="a scratch directory (kept: the failing programs are there)")
    parser.add_argument("--report", help="write every program's outcome here (JSON)")
    parser.add_argument("--wast2json", default="wast2json", help="wabt's wast2json (ttf scripts)")
    parser.add_argument("--prepare-only", action="store_true",
                        help="make the programs and their references in --work and stop (prepared.json, rewritten after "
                             "each seed; a later run with the same --work goes on where it stopped)")
    parser.add_argument("--run-prepared", metavar="DIR",
                        help="run programs a --prepare-only run made in DIR on the device (needs only wasmgpu)")
    parser.add_argument("--limit", type=int, help="with --run-prepared: only the first N prepared programs")
    parser.add_argument("--expect-all-match", action="store_true",
                        help="exit 1 unless every program that was not left out matched (for the test suite)")
    args = parser.parse_args()
    args.opt = [o.strip() for o in args.opt.split(",") if o.strip()]
    if args.run_prepared:
        return run_prepared(args)
    if not args.work:
        sys.exit("difftest: --work DIR is needed to make programs")
    os.makedirs(args.work, exist_ok=True)
    for tool in ["wasm-interp"] + (["csmith", "clang-19", "wasm-ld-19"] if args.source != "ttf" else []) + \
            (["wasm-opt"] if args.source != "csmith" else []):
        if not shutil.which(tool):
            sys.exit(f"difftest: {tool} is not installed (scripts/install-deps.sh installs it)")
    if args.source != "ttf" and not (args.libc and args.include):
        sys.exit("difftest: csmith programs need --libc and --include")

    sources = []
    if args.source in ("csmith", "both"):
        sources.append(Csmith(args))
    if args.source in ("ttf", "both"):
        sources.append(Ttf(args))

    jobs = []
    report = []
    prepared_path = os.path.join(args.work, "prepared.json")
    done_seeds = set()
    if args.prepare_only and os.path.exists(prepared_path):
        # A --prepare-only run that stopped early: keep what it made.
        with open(prepared_path) as f:
            earlier = json.load(f)
        jobs, report = earlier["jobs"], earlier["left_out"]
        done_seeds = set(earlier.get("seeds", []))
        print(f"difftest: {len(done_seeds)} seeds already prepared in {args.work}", file=sys.stderr)

    def save_prepared():
        # Rewritten after every seed, so that a stopped run keeps its work.
        with open(prepared_path + ".tmp", "w") as f:
            json.dump({"jobs": jobs, "left_out": report, "seeds": sorted(done_seeds)}, f, indent=1)
        os.replace(prepared_path + ".tmp", prepared_path)

    for source in sources:
        chosen = getattr(args, f"{source.name}_seeds")
        for seed in (parse_seeds(chosen) if chosen else range(args.first_seed, args.first_seed + args.count)):
            if f"{source.name}-{seed}" in done_seeds:
                continue
            built, why = source.programs(seed)
            if why:
                report.append({"program": f"{source.name}-{seed}", "outcome": "left out", "why": why})
            for name, wasm, why in built:
                if wasm is None:  # clang or wasm-ld refused a valid C program: a harness fault
                    report.append({"program": name, "outcome": "build error", "why": why})
                elif os.path.getsize(wasm) > args.max_bytes:
                    report.append({"program": name, "outcome": "left out",
                                   "why": f"{os.path.getsize(wasm)} bytes, over --max-bytes"})
                else:
                    ref = source.reference(wasm)
                    if ref.get("outcome") == "left out":
                        report.append(dict(ref, program=name))
                    else:
                        jobs.append({"source": source.name, "program": name,
                                     "wasm": os.path.relpath(wasm, args.work), "reference": ref})
            if args.prepare_only:
                done_seeds.add(f"{source.name}-{seed}")
                save_prepared()
                print(f"difftest: prepared {source.name} seed {seed}: {len(jobs)} programs so far, "
                      f"{len(report)} left out", file=sys.stderr, flush=True)
    if args.prepare_only:
        save_prepared()
        print(f"difftest: {len(jobs)} programs prepared in {args.work} ({len(report)} left out); run them with "
              f"--run-prepared {args.work}")
        return 0
    return finish(args, run_jobs(args, args.work, jobs) + report)


def run_jobs(args, work, jobs):
    """Runs the jobs, --jobs at a time, each reported as it finishes. With
    --report, every finished entry is also appended at once to REPORT.partial
    (one JSON object a line), so that a run stopped early keeps its results."""
    kinds = {"csmith": Csmith, "ttf": Ttf}

    def one(job):
        wasm = os.path.join(work, job["wasm"])
        return dict(kinds[job["source"]].on_device(args, wasm, job["reference"]), program=job["program"], wasm=wasm)

    partial = open(args.report + ".partial", "w") if args.report else None
    done, entries = 0, []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for future in concurrent.futures.as_completed([pool.submit(one, job) for job in jobs]):
            entry = future.result()
            done += 1
            entries.append(entry)
            if partial:
                partial.write(json.dumps(entry) + "\n")
                partial.flush()
            detail = f" ({entry['why'][:120]})" if entry["outcome"] != "match" and "why" in entry else ""
            print(f"difftest [{done}/{len(jobs)}] {entry['program']}: {entry['outcome']} "
                  f"{entry.get('device_s', 0):.1f} s{detail}", file=sys.stderr, flush=True)
    if partial:
        partial.close()
    return entries


def run_prepared(args):
    """The device half on another machine: programs and references were
    made where csmith, clang and wasm-interp are (--prepare-only)."""
    with open(os.path.join(args.run_prepared, "prepared.json")) as f:
        prepared = json.load(f)
    jobs = [j for j in prepared["jobs"] if args.source in ("both", j["source"])]
    left_out = prepared["left_out"]
    if args.limit is not None:
        jobs, left_out = jobs[:args.limit], []
        print(f"difftest: the first {len(jobs)} prepared programs (--limit); the left-out ones are not counted",
              file=sys.stderr)
    return finish(args, run_jobs(args, args.run_prepared, jobs) + left_out)


def finish(args, report):
    counts = {o: sum(1 for e in report if e["outcome"] == o) for o in OUTCOMES}
    device_s = [e["device_s"] for e in report if "device_s" in e]
    summary = ", ".join(f"{n} {o}" for o, n in counts.items()) + \
        (f"; device time {sum(device_s):.0f} s in all, longest {max(device_s):.0f} s" if device_s else "")
    print(f"difftest: {len(report)} programs: {summary}")
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"counts": counts, "programs": report}, f, indent=1)
    if args.expect_all_match:
        bad = [e for e in report if e["outcome"] not in ("match", "left out")]
        for e in bad:
            print(f"difftest: {e['program']} ({e['wasm']}): {e['outcome']}: {e.get('why', '')}", file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
