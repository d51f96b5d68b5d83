// node js/test/compare_with_vulkan.mjs WASMGPU BUILD_DIR [--suite sync] [NAME_SUBSTRING]
// Runs kernels through the WGSL back end on Node + Dawn (js/run_wgsl.mjs)
// and through the Vulkan runtime (`wasmgpu run`, exact float mode), and
// compares the output bytes, or the trap reports (kind, lowest invocation,
// count), or the refusals, exactly. `--suite sync`: the barrier, shared
// memory, atomic and subgroup kernels of tests/kernels/sync.c
// (webgpu.compare_vulkan_sync); without it, the others (webgpu.compare_vulkan).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const argv = process.argv.slice(2);
const suiteAt = argv.indexOf('--suite');
const suite = suiteAt >= 0 ? argv.splice(suiteAt, 2)[1] : 'default';
const [wasmgpu, build, only] = argv;
const runner = new URL('../run_wgsl.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'wasmgpu-wgsl-'));

// Deterministic floats in [-scale, scale) (a 32-bit LCG).
function floats(count, seed, scale) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * 2 * scale;
  }
  return out;
}
function ints(values) {
  return new Int32Array(values);
}
function file(name, typed) {
  const path = join(dir, name);
  writeFileSync(path, new Uint8Array(typed.buffer));
  return path;
}

// Bodies of tests/kernels/kernel_params.h: position, velocity (f64), mass
// (f32), 24 bytes each.
function bodies(count) {
  const view = new DataView(new ArrayBuffer(24 * count));
  for (let i = 0; i < count; i++) {
    view.setFloat64(24 * i, (i - 250) * 0.37, true);
    view.setFloat64(24 * i + 8, Math.sin(i) * 3, true);
    view.setFloat32(24 * i + 16, 1 + (i % 7) * 0.5, true);
  }
  return new Uint8Array(view.buffer);
}

// Words for integer operands: an LCG's, with every fifth one an edge value
// (0, 1, all ones, the sign bit and its neighbours).
function intWords(count, seed) {
  const edges = [0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 0x80000001, 2];
  const out = new Uint32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = i % 5 === 3 ? edges[(s >>> 8) % edges.length] : s;
  }
  return out;
}
const intItems = 600;

// f64 operand pairs as bits (tests/kernels/f64_ops.c): every pair of a list
// of edge values (zeros, subnormals, the normal range's ends, infinities,
// NaNs with payloads and signs, ties of the rounding functions, the
// conversions' range bounds), then random patterns: exponents near 1023 and
// anywhere, and second operands one ulp-scale step from the first, for
// cancellation.
const f64Edges = [
  0x0000000000000000n, 0x8000000000000000n, 0x0000000000000001n, 0x800fffffffffffffn, 0x0010000000000000n,
  0x7fefffffffffffffn, 0x7ff0000000000000n, 0xfff0000000000000n, 0x7ff8000000000000n, 0xfff4000000000123n,
  0x7ff0000000000001n, 0x3ff0000000000000n, 0xbff0000000000000n, 0x3fe0000000000000n, 0x3ff8000000000000n,
  0x4004000000000000n, 0xc00c000000000000n, 0x432fffffffffffffn, 0xc32fffffffffffffn, 0x4340000000000000n,
  0x41e0000000000000n, 0xc1e0000000200000n, 0xc1dfffffffffffffn, 0x41efffffffffffffn, 0x41f0000000000000n,
  0x43e0000000000000n, 0xc3e0000000000000n, 0x43f0000000000000n, 0x3fdfffffffffffffn, 0x000ffffffffffffen,
  0x3ca0000000000000n, 0x7fe0000000000000n, 0x0008000000000000n, 0x36a0000000000000n, 0x47efffffe0000000n,
  0x380fffffffffffffn, 0x3690000000000001n,
];
const f64Items = f64Edges.length * f64Edges.length + 3000;
function f64Pairs(seed) {
  const out = new BigUint64Array(2 * f64Items);
  for (let i = 0; i < f64Edges.length; i++)
    for (let j = 0; j < f64Edges.length; j++) {
      out[2 * (i * f64Edges.length + j)] = f64Edges[i];
      out[2 * (i * f64Edges.length + j) + 1] = f64Edges[j];
    }
  let s = BigInt(seed);
  const next = () => (s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn);
  for (let k = f64Edges.length * f64Edges.length; k < f64Items; k++) {
    const pick = (r) => {
      const kind = Number(r & 3n);
      if (kind === 0) return next();  // anywhere
      const exponent = 1023n + ((r >> 8n) % 121n) - 60n;
      return (next() & 0x800fffffffffffffn) | (exponent << 52n);
    };
    const a = pick(next());
    const r = next();
    let b = pick(r >> 3n);
    if ((r & 7n) === 5n) b = (a ^ 0x8000000000000000n) + ((r >> 16n) & 0xffn) - 0x80n;  // -a, nearly
    if ((r & 7n) === 6n) b = a + ((r >> 16n) & 0xffffn);
    out[2 * k] = a;
    out[2 * k + 1] = b & 0xffffffffffffffffn;
  }
  return out;
}
const f64Truncations = new Float64Array(Array.from({ length: 400 }, (_, i) =>
  i >= 90 && i % 23 === 4 ? NaN : i >= 130 && i % 17 === 3 ? 2147483648.0 + i : (i - 200) * 1.0e7 + 0.75));

// Each case: a module, kernel, --n, and arguments; `io:NAME` arguments are
// buffers written back (inout), copied apart for the two runs.
const n = 4099;
const cases = [
  {
    name: 'saxpy', wasm: 'examples/saxpy.wasm', kernel: 'saxpy', n,
    args: ['2.5', `in:${file('x', floats(n, 1, 10))}`, { io: file('y', floats(n, 2, 10)) }],
  },
  {
    name: 'triad', wasm: 'bench/triad.wasm', kernel: 'triad', n,
    args: [{ io: file('a', floats(n, 3, 1)) }, `in:${file('b', floats(n, 4, 100))}`, `in:${file('c', floats(n, 5, 100))}`,
           '1.75', String(n)],
  },
  {
    // br_table, loops left early and a goto out of two loops: the pending branches.
    name: 'control flow', wasm: 'tests/kernels/control_flow.O2.wasm', kernel: 'control_flow', n: 2000,
    args: [`in:${file('cf_in', new Uint32Array(Array.from({ length: 2000 }, (_, i) => (Math.imul(i, 2654435761) >>> 7) % 100003)))}`,
           { io: file('cf_out', new Uint32Array(6 * 2000)) }],
  },
  {
    // The same kernel at -O0: every local in its frame on the shadow stack,
    // one slot per invocation in the stack binding.
    name: 'control flow -O0 (shadow stack)', wasm: 'tests/kernels/control_flow.O0.wasm', kernel: 'control_flow', n: 2000,
    args: [`in:${file('cf0_in', new Uint32Array(Array.from({ length: 2000 }, (_, i) => (Math.imul(i, 2654435761) >>> 9) % 100019)))}`,
           { io: file('cf0_out', new Uint32Array(6 * 2000)) }],
  },
  {
    // -O0 again, over more than one dispatch of 65,535 workgroups of 1: each
    // dispatch's invocations reuse the stack slots from 0.
    name: 'pointer params -O0 sum4_strided (shadow stack, 2 dispatches)', wasm: 'tests/kernels/pointer_params.O0.wasm',
    kernel: 'sum4_strided', n: 70000, workgroup: 1,
    args: [`in:${file('ss_src', new Uint32Array(Array.from({ length: 4 * 70000 }, (_, i) => Math.imul(i, 40503) >>> 3)))}`,
           { io: file('ss_dst', new Uint32Array(70000)) }, '1'],
  },
  {
    // Every i32 and i64 operation (i64 as two u32 words in WGSL): 48 results
    // per invocation from two i32 and two i64 operands.
    name: 'integer ops -O2 (i64 on u32 pairs)', wasm: 'tests/kernels/integer_ops.O2.wasm', kernel: 'integer_ops', n: intItems,
    args: [`in:${file('io_a32', intWords(2 * intItems, 11))}`, `in:${file('io_a64', intWords(4 * intItems, 12))}`,
           { io: file('io_out', new Uint32Array(2 * 48 * intItems)) }],
  },
  {
    // u64 and i64 to f32 (rounded to nearest even on the words) and f32 to
    // both (split into words): edge-valued integers, floats up to 2^64.
    name: 'i64 <-> f32 conversions', wasm: 'tests/kernels/int64_float.O2.wasm', kernel: 'int64_float', n: intItems,
    args: [`in:${file('if_ints', intWords(2 * intItems, 15))}`,
           `in:${file('if_floats', floats(intItems, 16, 1.9e19))}`,
           { io: file('if_out_f', new Uint32Array(2 * intItems)) }, { io: file('if_out_i', new Uint32Array(4 * intItems)) }],
  },
  {
    // f32 iterations in a loop with an early exit; integer colours.
    name: 'mandelbrot', wasm: 'examples/mandelbrot.wasm', kernel: 'mandelbrot', n: 96 * 64,
    args: [{ io: file('rgba', new Uint32Array(96 * 64)) }, '96', '64', '200', '0.0333'],
  },
  {
    // y holds 1000 floats: invocations 1000.. store out of bounds and trap.
    name: 'saxpy out of bounds', wasm: 'examples/saxpy.wasm', kernel: 'saxpy', n: 1100, trap: true,
    args: ['2.5', `in:${file('x2', floats(1100, 6, 10))}`, { io: file('y2', floats(1000, 7, 10)) }],
  },
  {
    // The divide kernel at -O0 (its operands go through the shadow stack).
    name: 'divide by zero -O0', wasm: 'tests/kernels/traps.O0.wasm', kernel: 'divide', n: 300, trap: true,
    args: [`in:${file('num0', ints(Array.from({ length: 300 }, (_, i) => 1000 - 7 * i)))}`,
           `in:${file('den0', ints(Array.from({ length: 300 }, (_, i) => (i >= 41 && i % 7 === 6 ? 0 : (i % 11) - 5 || 2))))}`,
           { io: file('quot0', new Int32Array(300)) }],
  },
  {
    // Loads from addresses the kernel reads: from invocation 50 on, every 3rd
    // one lies in the stack region below the -O0 kernel's window (wasm-ld's
    // stack [1024, 66560), the window its top 32 bytes): a shadow stack
    // overflow in both back ends; the others read the module memory.
    name: 'shadow stack overflow -O0', wasm: 'tests/kernels/traps.O0.wasm', kernel: 'read_at', n: 200, trap: true,
    args: [`in:${file('addrs', new Uint32Array(Array.from({ length: 200 }, (_, i) => (i >= 50 && i % 3 === 1 ? 60000 + 4 * i : 4 * i))))}`,
           { io: file('read', new Uint32Array(200)) }],
  },
  {
    // i64 division (long division on u32 pairs in WGSL): den = 0 from
    // invocation 61 on, every 9th one; the others divide exactly as Vulkan does.
    name: 'i64 divide by zero', wasm: 'tests/kernels/traps.O2.wasm', kernel: 'divide64', n: 300, trap: true,
    args: [`in:${file('num64', new BigInt64Array(Array.from({ length: 300 }, (_, i) => BigInt(i) * 0x123456789n - 77n)))}`,
           `in:${file('den64', new BigInt64Array(Array.from({ length: 300 }, (_, i) => (i >= 61 && i % 9 === 7 ? 0n : BigInt((i % 13) - 6 || 3) * 1000003n))))}`,
           { io: file('quot64', new BigInt64Array(300)) }],
  },
  {
    // The same divisions with no zero divisor: the quotients, byte for byte.
    name: 'i64 division', wasm: 'tests/kernels/traps.O2.wasm', kernel: 'divide64', n: 300,
    args: [`in:${file('num64b', new BigInt64Array(Array.from({ length: 300 }, (_, i) => (BigInt(i) - 150n) * 0x7654321987n)))}`,
           `in:${file('den64b', new BigInt64Array(Array.from({ length: 300 }, (_, i) => BigInt((i % 17) - 8 || 5) * (i % 2 ? 1n : 0x10000001n))))}`,
           { io: file('quot64b', new BigInt64Array(300)) }],
  },
  {
    // num / den with den = 0 from invocation 37 on, every 5th one.
    name: 'divide by zero', wasm: 'tests/kernels/traps.O2.wasm', kernel: 'divide', n: 300, trap: true,
    args: [`in:${file('num', ints(Array.from({ length: 300 }, (_, i) => 1000 - 7 * i)))}`,
           `in:${file('den', ints(Array.from({ length: 300 }, (_, i) => (i >= 37 && i % 5 === 2 ? 0 : (i % 13) - 6 || 3))))}`,
           { io: file('quot', new Int32Array(300)) }],
  },
  {
    // Every f64 operation (f64 on u32 words in WGSL, tests/kernels/f64_ops.c):
    // 28 results per pair, edge values and random bits.
    name: 'f64 ops -O2 (f64 on u32 words)', wasm: 'tests/kernels/f64_ops.O2.wasm', kernel: 'f64_ops', n: f64Items,
    args: [`in:${file('f64_in', f64Pairs(31))}`, { io: file('f64_out', new BigUint64Array(28 * f64Items)) }],
  },
  {
    // f64 loads, a Taylor series in a loop and constants from the data segment.
    name: 'double precision example', wasm: 'examples/double_precision.wasm', kernel: 'exp_taylor', n: 1000,
    args: [`in:${file('dp_x', new Float64Array(Array.from({ length: 1000 }, (_, i) => (i - 500) / 37)))}`,
           { io: file('dp_y', new Float64Array(2 * 1000)) }, { io: file('dp_bits', new BigInt64Array(1000)) }],
  },
  {
    // f64 and i64 kernel parameters (two launch words each) beside f32 and
    // pointers: WASMGPU_DEFINE_KERNEL's integrate over 24-byte structs.
    name: 'f64 and i64 parameters (integrate)', wasm: 'tests/kernels/kernel_params.O2.wasm', kernel: 'integrate', n: 500,
    args: [`in:${file('ip_bodies', bodies(500))}`, '0.0625', '-4294967290', '0.75', { io: file('ip_states', new Float64Array(3 * 500)) }, '480'],
  },
  {
    // i32.trunc_f64_s traps: NaN from invocation 90 on (every 23rd), values
    // past 2^31 from 130 on (every 17th).
    name: 'f64 truncation traps', wasm: 'tests/kernels/f64_ops.O2.wasm', kernel: 'f64_to_i32_trapping', n: 400, trap: true,
    args: [`in:${file('f64_tr', f64Truncations)}`, { io: file('f64_tr_out', new Int32Array(400)) }],
  },
  {
    // The same kernel where no value traps (the first 90 invocations).
    name: 'f64 truncation', wasm: 'tests/kernels/f64_ops.O2.wasm', kernel: 'f64_to_i32_trapping', n: 90,
    args: [`in:${file('f64_tr2', f64Truncations)}`, { io: file('f64_tr2_out', new Int32Array(400)) }],
  },
];

// Words of an LCG, as bytes of a Uint32Array.
function lcgWords(count, seed, modulo) {
  const out = new Uint32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = modulo ? (s >>> 8) % modulo : s;
  }
  return out;
}

// tests/kernels/sync.c, at -O2 (its barrier kernels are refused at -O0,
// where every local goes through the shadow stack and loop bounds are loads
// the uniformity check cannot follow), in workgroups of 64.
const syncN = 1024;
const syncCases = [
  {
    // A tree reduction through shared memory, a barrier per level; bytes
    // stored into shared words by neighbouring invocations.
    name: 'workgroup sum (shared memory, barriers)', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'workgroup_sum',
    n: 512, workgroup: 64,
    args: [`in:${file('ws_in', lcgWords(512, 41, 100000))}`, { io: file('ws_sums', new Uint32Array(8).fill(0xdead)) },
           { io: file('ws_words', new Uint32Array(512)) }],
  },
  {
    // 1000 of 1024 invocations count 32 bins in shared memory and add them
    // to device memory; signed and unsigned min and max in shared and
    // device memory (CAS loops in WGSL for the signed ones), sub, xor, or,
    // and, and f32 adds of 1.0.
    name: 'atomic histogram (contention, min/max)', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'atomic_histogram',
    n: syncN, workgroup: 64,
    args: [`in:${file('ah_values', lcgWords(syncN, 42))}`, '1000', { io: file('ah_bins', new Uint32Array(32)) },
           { io: file('ah_extremes', new Int32Array([0x7fffffff, -0x80000000, -1, 0, 0x7fffffff, -0x80000000, -1, 0, 0, 0, 0, -1])) },
           { io: file('ah_count', new Float32Array(1)) }],
  },
  {
    // Compare-exchange and exchange on each invocation's own word (known old
    // values), and a compare-exchange loop adding under contention.
    name: 'compare exchange', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'compare_exchange', n: 256, workgroup: 64,
    args: [{ io: file('ce_slots', new Int32Array(256)) }, { io: file('ce_olds', new Int32Array(768)) },
           { io: file('ce_total', new Int32Array([5])) }],
  },
  {
    // The same at -O0 (no barrier: written with its frames on the shadow stack).
    name: 'compare exchange -O0', wasm: 'tests/kernels/sync.O0.wasm', kernel: 'compare_exchange', n: 256, workgroup: 64,
    args: [{ io: file('ce0_slots', new Int32Array(256)) }, { io: file('ce0_olds', new Int32Array(768)) },
           { io: file('ce0_total', new Int32Array([5])) }],
  },
  {
    // C11 atomics (-matomics): 32-, 16- and 8-bit read-modify-writes on
    // device and shared memory, a byte compare-exchange beside three others
    // in its word.
    name: 'C11 atomics (8, 16, 32 bits)', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'c11_atomics', n: 512, workgroup: 64,
    args: [{ io: file('c11_words', new Uint32Array(12)) }, { io: file('c11_bytes', new Uint8Array(32 + 512)) },
           { io: file('c11_halves', new Uint16Array(12)) }],
  },
  {
    // Subgroup reductions, scans, broadcast, shuffles, ballot and votes, the
    // ids, and a sum in divergent control flow.
    name: 'subgroup operations', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'subgroup_ops', n: 256, workgroup: 64,
    args: [`in:${file('sg_in', lcgWords(256, 43, 9))}`, { io: file('sg_out', new Uint32Array(16 * 256)) }],
  },
  {
    // A barrier kernel launched over a partial workgroup: both refuse it.
    name: 'barrier kernel over a partial workgroup', wasm: 'tests/kernels/sync.O2.wasm', kernel: 'workgroup_sum', n: 500,
    workgroup: 64, refuse: 'must be a multiple of the workgroup size (64)',
    args: [`in:${file('wp_in', lcgWords(512, 44, 100))}`, { io: file('wp_sums', new Uint32Array(8)) },
           { io: file('wp_words', new Uint32Array(512)) }],
  },
];

// "kind at invocation L (C invocations trapped)" from either report.
// The package lists every kind that trapped with its lowest invocation; the
// C++ runtime names the kind of the lowest trapped invocation.
function trapOf(text) {
  let m = /trapped: (.+) at invocation (\d+) \((\d+) invocations? trapped\)/.exec(text);
  if (m) return `${m[1]} at ${m[2]}, ${m[3]} trapped`;
  m = /trapped in (\d+) invocation\(s\): (.+)$/m.exec(text);
  if (!m) return null;
  const kinds = [...m[2].matchAll(/([^,]+?) \(lowest invocation (\d+)\)/g)].map((k) => [k[1].trim(), Number(k[2])]);
  if (!kinds.length) return null;
  const [kind, lowest] = kinds.reduce((a, b) => (b[1] < a[1] ? b : a));
  return `${kind} at ${lowest}, ${m[1]} trapped`;
}

let passed = 0;
let failed = 0;
const suites = { default: cases, sync: syncCases };
if (!suites[suite]) throw new Error(`no suite '${suite}' (${Object.keys(suites).join(', ')})`);
for (const c of suites[suite].filter((x) => !only || x.name.includes(only))) {
  const started = Date.now();
  const wgsl = join(dir, `${c.kernel}.wgsl`);
  const wasm = join(build, c.wasm);
  const compiled = spawnSync(wasmgpu, ['compile', wasm, '--target', 'wgsl', '-k', c.kernel, '-o', wgsl], { encoding: 'utf8' });
  const outputs = { dawn: [], vulkan: [] };
  const argsFor = (side) => c.args.map((a, i) => {
    if (typeof a === 'string') return a;
    const copy = `${a.io}.${side}`;
    copyFileSync(a.io, copy);
    outputs[side].push(copy);
    return `inout:${copy}`;
  });
  const problems = [];
  if (compiled.status !== 0) problems.push(`compile: ${compiled.stderr.trim()}`);
  const wg = c.workgroup ? ['--workgroup-size', String(c.workgroup)] : [];
  const dawn = spawnSync(process.execPath, [runner, wgsl, '--n', String(c.n), ...wg, ...argsFor('dawn')], { encoding: 'utf8' });
  const vulkan = spawnSync(wasmgpu, ['run', wasm, c.kernel, '--n', String(c.n), '--float-mode', 'exact', ...wg, ...argsFor('vulkan')],
                           { encoding: 'utf8' });
  if (c.refuse) {
    for (const [side, run] of [['run_wgsl', dawn], ['wasmgpu run', vulkan]])
      if (run.status === 0 || !run.stderr.includes(c.refuse))
        problems.push(`${side} did not refuse (exit ${run.status}): ${run.stderr.trim()}`);
  } else if (c.trap) {
    const a = trapOf(dawn.stderr), b = trapOf(vulkan.stderr);
    if (!a || !b || a !== b) problems.push(`trap reports differ:\n    dawn:   ${dawn.stderr.trim().split('\n').pop()}\n    vulkan: ${vulkan.stderr.trim()}`);
    else console.log(`  both report: ${a}`);
    if (dawn.status !== 1) problems.push(`run_wgsl exited ${dawn.status ?? dawn.signal}, not 1`);
  } else {
    if (dawn.status !== 0) problems.push(`run_wgsl exited ${dawn.status ?? dawn.signal}: ${dawn.stderr.trim()}`);
    if (vulkan.status !== 0) problems.push(`wasmgpu run exited ${vulkan.status}: ${vulkan.stderr.trim()}`);
    const inputs = c.args.filter((x) => typeof x !== 'string');
    outputs.dawn.forEach((path, i) => {
      const a = readFileSync(path), b = readFileSync(outputs.vulkan[i]), before = readFileSync(inputs[i].io);
      if (!a.equals(b)) {
        let at = 0;
        while (at < a.length && a[at] === b[at]) at++;
        problems.push(`output ${i} differs from byte ${at} (${a.length} and ${b.length} bytes)`);
      } else if (a.equals(before)) {
        problems.push(`output ${i} is unchanged by the kernel`);
      }
    });
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${c.name}\n  ${problems.join('\n  ')}`);
  } else {
    passed++;
    console.log(`ok   ${c.name}${c.trap || c.refuse ? '' : ': outputs byte-identical'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
