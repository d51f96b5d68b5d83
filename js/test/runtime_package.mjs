// node js/test/runtime_package.mjs WASMGPU BUILD_DIR SOURCE_DIR
//
// The CTest driver `webgpu.runtime`: the js/ package (lib/wasmgpu.mjs through
// lib/node.mjs, Dawn) runs kernel bundles from `wasmgpu compile --target wgsl
// --bundle` and must give the Vulkan runtime's bytes (`wasmgpu run
// --float-mode exact`): saxpy, the triad, mandelbrot (1-D and as a grid), a
// command buffer with two dependent launches; the divide kernel's trap must
// be reported as `wasmgpu run` reports it, with nothing written back; and the
// argument errors must carry the C++ API's messages (the texts that
// src/api/module_test.cpp and buffer_test.cpp assert).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { create } from 'webgpu';
// Through the package's own name and exports (js/package.json).
import { openNodeDevice, loadBundleFile, Launch, TrapError, WasmgpuError, ErrorKind, arg } from 'wasmgpu-webgpu/node';
import * as browserPath from 'wasmgpu-webgpu';

const [wasmgpu, build, source] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'wasmgpu-js-runtime-'));
const started = Date.now();
let passed = 0;
let failed = 0;

function check(name, problems) {
  if (problems.length) {
    failed++;
    console.log(`FAIL ${name}\n  ${problems.join('\n  ')}`);
  } else {
    passed++;
    console.log(`ok   ${name}`);
  }
}

// Deterministic floats in [-scale, scale) (a 32-bit LCG), as compare_with_vulkan.mjs.
function floats(count, seed, scale) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * 2 * scale;
  }
  return out;
}

function bundle(wasm, name) {
  const out = join(dir, `${name}.bundle.json`);
  const r = spawnSync(wasmgpu, ['compile', join(build, wasm), '--target', 'wgsl', '--bundle', '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`compile --bundle ${wasm}: ${r.stderr.trim()}`);
  return loadBundleFile(out);
}

// `wasmgpu run` on Vulkan: args are strings (scalars) or typed arrays,
// passed as inout: files; returns { status, stderr, outputs: [bytes per array] }.
let fileCount = 0;
function vulkan(wasm, kernel, n, args) {
  const files = [];
  const cli = args.map((a) => {
    if (typeof a === 'string') return a;
    const path = join(dir, `arg${fileCount++}.bin`);
    writeFileSync(path, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    files.push(path);
    return `inout:${path}`;
  });
  const r = spawnSync(wasmgpu, ['run', join(build, wasm), kernel, '--n', String(n), '--float-mode', 'exact', ...cli], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr.trim(), outputs: files.map((f) => new Uint8Array(readFileSync(f))) };
}

function sameBytes(what, a, b) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (x.length !== y.length) return [`${what}: ${x.length} bytes, Vulkan ${y.length}`];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return [`${what} differs from Vulkan's from byte ${i}`];
  return [];
}

const bytesOf = (typed) => new Uint8Array(typed.buffer.slice(typed.byteOffset, typed.byteOffset + typed.byteLength));

async function thrown(body) {
  try {
    await body();
  } catch (e) {
    return e;
  }
  return null;
}

{
  // The bundle's refusals: clear one-line errors, refused kernels listed.
  const run = (...args) => spawnSync(wasmgpu, ['compile', ...args], { encoding: 'utf8' });
  const out = join(dir, 'refused.json');
  const problems = [];
  const expect = (r, text) => {
    if (r.status === 0 || !r.stderr.includes(text)) problems.push(`expected a failure with '${text}', got ${r.status}: ${r.stderr.trim()}`);
  };
  expect(run(join(build, 'examples/saxpy.wasm'), '--bundle', '-o', out), '--bundle writes a WGSL kernel bundle: give --target wgsl');
  // The image blur: images are not written (barriers and atomics are, so the histogram no longer serves).
  expect(run(join(build, 'examples/blur.wasm'), '--target', 'wgsl', '--bundle', '-o', out),
         "the WGSL back end wrote none of its kernels:\n  function 'blur_pass' calls wasmgpu.image_size (images are not written yet): not handled by the WGSL back end yet");
  expect(run(join(build, 'examples/saxpy.wasm'), '--target', 'wgsl', '--bundle', '-k', 'nope', '-o', out), "'nope' is not a kernel");
  check('compile --bundle refuses bad input with clear errors', problems);
}

const dev = await openNodeDevice();
console.log(`device: ${dev.label}`);
const saxpyModule = await dev.load(await bundle('examples/saxpy.wasm', 'saxpy'));
const triadModule = await dev.load(await bundle('bench/triad.wasm', 'triad'));
const mandelModule = await dev.load(await bundle('examples/mandelbrot.wasm', 'mandelbrot'));
const trapsModule = await dev.load(await bundle('tests/kernels/traps.O2.wasm', 'traps'));
const saxpy = saxpyModule.kernel('saxpy');
const triad = triadModule.kernel('triad');
const mandelbrot = mandelModule.kernel('mandelbrot');
const divide = trapsModule.kernel('divide');

const n = 4099;
{
  // saxpy on device buffers.
  const hx = floats(n, 1, 10), hy = floats(n, 2, 10);
  const x = dev.buffer(hx), y = dev.buffer(hy);
  await saxpy(n, 2.5, x, y);
  const got = await y.read(Float32Array);
  const ref = vulkan('examples/saxpy.wasm', 'saxpy', n, ['2.5', hx, hy]);
  check('saxpy: outputs byte-identical with Vulkan', ref.status ? [`wasmgpu run: ${ref.stderr}`] : sameBytes('y', got, ref.outputs[1]));
}
{
  // The triad, workgroups of 256 as the bench launches it.
  const ha = floats(n, 3, 1), hb = floats(n, 4, 100), hc = floats(n, 5, 100);
  const a = dev.buffer(ha), b = dev.buffer(hb), c = dev.buffer(hc);
  await triad(Launch.invocations(n, 256), a, b, c, 1.75, n);
  const got = await a.read();
  const ref = vulkan('bench/triad.wasm', 'triad', n, [ha, hb, hc, '1.75', String(n)]);
  check('triad: outputs byte-identical with Vulkan', ref.status ? [`wasmgpu run: ${ref.stderr}`] : sameBytes('a', got, ref.outputs[0]));
}
{
  // Mandelbrot (no metadata: buffers for i32 parameters), 96x64, 200
  // iterations, into a typed array written back; then as a grid of 16x1
  // workgroups, whose linearised index is the pixel's.
  const [w, h] = [96, 64];
  const rgba = new Uint32Array(w * h);
  await mandelbrot(w * h, rgba, w, h, 200, 0.0333);
  const grid = dev.buffer(Uint32Array, w * h);
  await mandelbrot(Launch.grid([w / 16, h, 1], [16, 1, 1]), grid, w, h, 200, 0.0333);
  const fromGrid = await grid.read();
  const ref = vulkan('examples/mandelbrot.wasm', 'mandelbrot', w * h, [new Uint32Array(w * h), String(w), String(h), '200', '0.0333']);
  const problems = ref.status ? [`wasmgpu run: ${ref.stderr}`] : sameBytes('rgba', rgba, ref.outputs[0]);
  problems.push(...sameBytes('the grid launch', fromGrid, ref.outputs[0]));
  if (rgba.every((p) => p === rgba[0])) problems.push('every pixel is the same');
  check('mandelbrot 96x64: 1-D and grid launches byte-identical with Vulkan', problems);
}
{
  // An -O0 kernel: its frame on the shadow stack, a slot per invocation in
  // the stack binding the package creates; 1-D, then as a grid of 125
  // workgroups of 16 (the slot is the linearised index within the dispatch).
  const cf = (await dev.load(await bundle('tests/kernels/control_flow.O0.wasm', 'control_flow_O0'))).kernel('control_flow');
  const count = 2000;
  const input = new Uint32Array(Array.from({ length: count }, (_, i) => (Math.imul(i, 2654435761) >>> 9) % 100019));
  const out = new Uint32Array(6 * count);
  await cf(count, input, out);
  const grid = dev.buffer(Uint32Array, 6 * count);
  await cf(Launch.grid([125, 1, 1], [16, 1, 1]), input, grid);
  const fromGrid = await grid.read();
  const ref = vulkan('tests/kernels/control_flow.O0.wasm', 'control_flow', count, [input, new Uint32Array(6 * count)]);
  const problems = ref.status ? [`wasmgpu run: ${ref.stderr}`] : sameBytes('out', out, ref.outputs[1]);
  problems.push(...sameBytes('the grid launch', fromGrid, ref.outputs[1]));
  if (out.every((v) => v === 0)) problems.push('the kernel wrote nothing');
  check('control_flow -O0 (shadow stack): 1-D and grid launches byte-identical with Vulkan', problems);
}
{
  // Two dependent launches in one command buffer: saxpy writes y, the triad
  // reads it (out = y + s * x); against two chained `wasmgpu run`s.
  const hx = floats(n, 6, 10), hy = floats(n, 7, 10);
  const x = dev.buffer(hx), y = dev.buffer(hy), out = dev.buffer(Float32Array, n);
  const commands = dev.commandBuffer();
  commands.launch(saxpy, n, 2.5, x, y);
  commands.launch(triad, n, out, y, x, -0.5, n);
  const copy = dev.buffer(Float32Array, n);
  commands.copy(out, copy);
  await commands.submit();
  const got = await copy.read();
  const first = vulkan('examples/saxpy.wasm', 'saxpy', n, ['2.5', hx, hy]);
  const yAfter = new Float32Array(first.outputs[1].buffer.slice(0));
  const second = vulkan('bench/triad.wasm', 'triad', n, [new Float32Array(n), yAfter, hx, '-0.5', String(n)]);
  const problems = first.status || second.status ? [`wasmgpu run: ${first.stderr} ${second.stderr}`] : sameBytes('out', got, second.outputs[0]);
  problems.push(...sameBytes('y', await y.read(), yAfter));
  // Submitted again: saxpy runs once more on the y it left.
  await commands.submit();
  const third = vulkan('examples/saxpy.wasm', 'saxpy', n, ['2.5', hx, yAfter]);
  problems.push(...sameBytes('y after a second submit', await y.read(), third.outputs[1]));
  check('command buffer: saxpy then a triad reading its y, byte-identical with chained Vulkan runs', problems);
}
{
  // The divide kernel, zero divisors from invocation 37 on: the same report
  // as `wasmgpu run`, and the typed array is not written back.
  const count = 300;
  const num = Int32Array.from({ length: count }, (_, i) => 1000 - 7 * i);
  const den = Int32Array.from({ length: count }, (_, i) => (i >= 37 && i % 5 === 2 ? 0 : (i % 13) - 6 || 3));
  const quot = new Int32Array(count).fill(-12345);
  const e = await thrown(() => divide(count, num, den, quot));
  const ref = vulkan('tests/kernels/traps.O2.wasm', 'divide', count, [num, den, new Int32Array(count)]);
  const problems = [];
  if (!(e instanceof TrapError)) problems.push(`no TrapError: ${e}`);
  else {
    if (`wasmgpu: error: ${e.message}` !== ref.stderr) problems.push(`reports differ:\n    js:     ${e.message}\n    vulkan: ${ref.stderr}`);
    if (e.kind !== ErrorKind.Trap || e.trap !== 'integer divide by zero' || e.invocation !== 37 || e.trappedInvocations !== 53 || e.launchIndex !== 0)
      problems.push(`fields: ${JSON.stringify({ kind: e.kind, trap: e.trap, invocation: e.invocation, count: e.trappedInvocations, launch: e.launchIndex })}`);
  }
  if (!quot.every((v) => v === -12345)) problems.push('the typed array was written back after the trap');
  check(`divide by zero: ${e && e.message}`, problems);

  // In a command buffer, the trapping launch is named by its position.
  const x = dev.buffer(floats(16, 8, 1)), y = dev.buffer(Float32Array, 16);
  const commands = dev.commandBuffer();
  commands.launch(saxpy, 16, 1, x, y);
  commands.launch(divide, count, num, den, dev.buffer(Int32Array, count));
  const e2 = await thrown(() => commands.submit());
  const want = "kernel 'divide' (launch 1 of the command buffer) trapped: integer divide by zero at invocation 37 (53 invocations trapped)";
  check('a trap in a command buffer names its launch', e2 && e2.message === want && e2.launchIndex === 1 ? [] : [`got: ${e2 && e2.message}`]);
}
{
  // Argument errors. `cpp` is the C++ API's text for the same mistake (as
  // src/api/*_test.cpp asserts it, which this test checks); `js` what the
  // package says: the same, but where a value is described by its JS type.
  const literals = new Set();
  for (const file of ['src/api/module_test.cpp', 'src/api/buffer_test.cpp']) {
    const text = readFileSync(join(source, file), 'utf8');
    for (const run of text.matchAll(/"(?:[^"\\]|\\.)*"(?:\s*"(?:[^"\\]|\\.)*")*/g))
      literals.add([...run[0].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1')).join(''));
  }
  const x = dev.buffer(Float32Array, 16), y = dev.buffer(Float32Array, 16), doubles = dev.buffer(Float64Array, 16);
  const cases = [
    { what: 'wrong count', run: () => saxpy(16, 2, x), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer (read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 2 were given: no argument for 'y'" },
    { what: 'extra arguments', run: () => saxpy(16, 2, x, y, y, 3), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer (read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 5 were given: arguments 4 to 5 match no parameter" },
    { what: 'a scalar for a buffer', run: () => saxpy(16, 2, 7, y), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy', parameter 'x' (argument 2 of 3): expected a Buffer (read-only) of float (4-byte elements), but int32 7 was given",
      js: "kernel 'saxpy', parameter 'x' (argument 2 of 3): expected a Buffer (read-only) of float (4-byte elements), but number 7 was given" },
    { what: 'a 64-bit integer for f32', run: () => saxpy(16, 2n, x, y), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but double 2 was given",
      js: "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but bigint 2 was given" },
    { what: 'element sizes', run: () => saxpy(16, 2, x, doubles), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy', parameter 'y' (argument 3 of 3): expected a Buffer of float (4-byte elements), but a Buffer of 16 8-byte elements was given (element sizes differ)" },
    { what: 'a typed array of other elements', run: () => saxpy(16, 2, x, new Float64Array(16)), kind: ErrorKind.InvalidArgument,
      js: "kernel 'saxpy', parameter 'y' (argument 3 of 3): expected a Buffer of float (4-byte elements), but a Float64Array of 16 8-byte elements was given (element sizes differ)" },
    { what: 'an unknown name', run: () => saxpy(16, { a: 1, x, z: y }), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy' has no parameter named 'z' (its parameters: 'a', 'x', 'y')" },
    { what: 'named and positional', run: () => saxpy(16, 1, arg('x', x), y), kind: ErrorKind.InvalidArgument,
      cpp: "kernel 'saxpy': 1 of the 3 arguments are named; name all of them or none" },
    { what: 'a missing name', run: () => saxpy(16, arg('a', 1), arg('x', x)), kind: ErrorKind.InvalidArgument,
      js: "kernel 'saxpy': no argument for parameter(s) 'y' (takes a: f32 (float), x: a Buffer (read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements))" },
    { what: 'a fraction for u32', run: () => triad(16, y, x, x, 1, 2.5), kind: ErrorKind.InvalidArgument,
      js: "kernel 'triad', parameter 'n' (argument 5 of 5): expected u32 (unsigned), but number 2.5 was given" },
    { what: 'a negative count', run: () => saxpy(-1, 1, x, y), kind: ErrorKind.InvalidArgument,
      js: 'a launch of -1 invocations: the count must be between 0 and 4294967295' },
    { what: 'a workgroup past the limit', run: () => saxpy(Launch.invocations(16, 4096), 1, x, y), kind: ErrorKind.InvalidArgument,
      js: `kernel 'saxpy': workgroup size 4096 exceeds the device's limit of ${Math.min(dev.limits.maxComputeWorkgroupSizeX, dev.limits.maxComputeInvocationsPerWorkgroup)}` },
    { what: 'a buffer write too large', run: () => dev.buffer(Float32Array, 8).write(new Float32Array(9).fill(1)), kind: ErrorKind.BufferTooSmall,
      cpp: 'Buffer::write of 36 bytes at offset 0 does not fit the 32-byte buffer' },
    { what: 'a buffer read too large', run: () => dev.buffer(Float32Array, 8).read(new Float32Array(4), 5), kind: ErrorKind.BufferTooSmall,
      cpp: 'Buffer::read of 16 bytes at offset 20 does not fit the 32-byte buffer' },
    { what: 'a destroyed buffer', run: () => { const gone = dev.buffer(Float32Array, 16); gone.destroy(); return saxpy(16, 1, gone, y); },
      kind: ErrorKind.UseAfterMove, cpp: "kernel 'saxpy', parameter 'x' (argument 2 of 3): the Buffer was moved from or destroyed" },
  ];
  const problems = [];
  for (const c of cases) {
    if (c.cpp && !literals.has(c.cpp)) problems.push(`${c.what}: the C++ text is not asserted by src/api's tests: ${c.cpp}`);
    const e = await thrown(c.run);
    const want = c.js || c.cpp;
    if (!(e instanceof WasmgpuError)) problems.push(`${c.what}: threw ${e}`);
    else if (e.message !== want || e.kind !== c.kind) problems.push(`${c.what}:\n    got:  ${e.kind}: ${e.message}\n    want: ${c.kind}: ${want}`);
  }
  if ((await y.read()).some((v) => v !== 0)) problems.push('a refused launch ran');
  // A buffer of another device.
  const other = await openNodeDevice();
  const foreign = other.buffer(Float32Array, 16);
  const e = await thrown(() => saxpy(16, 1, x, foreign));
  const want = `kernel 'saxpy', parameter 'y' (argument 3 of 3): the Buffer belongs to ${other.label}, but the kernel runs on ${dev.label}`;
  if (!e || e.message !== want || e.kind !== ErrorKind.WrongDevice) problems.push(`another device's buffer: ${e && e.message}`);
  other.destroy();
  check(`argument errors: ${cases.length + 1} messages as the C++ API's`, problems);
}
{
  // Unaligned writes of 1-byte elements merge with their neighbours.
  const bytes = dev.buffer(new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
  await bytes.write(new Uint8Array([9, 9, 9]), 2);
  const got = [...(await bytes.read())].join(',');
  check('unaligned byte writes', got === '1,2,9,9,9,6,7' ? [] : [`read ${got}`]);
}

{
  // The browser path: the package's main entry imports nothing (no Node
  // module), and Device.open() with no argument takes navigator.gpu, here
  // Dawn's GPU standing in for a browser's.
  const problems = [];
  const main = readFileSync(new URL('../lib/wasmgpu.mjs', import.meta.url), 'utf8');
  if (/^\s*import\b|\bimport\(|\brequire\(|\bprocess\.|node:/m.test(main)) problems.push('lib/wasmgpu.mjs imports or uses Node');
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]) }, configurable: true });
  const page = await browserPath.Device.open();
  const module = await page.load(readFileSync(join(dir, 'saxpy.bundle.json'), 'utf8'));
  const hy = floats(1000, 9, 10);
  const y = page.buffer(hy);
  await module.kernel('saxpy')(1000, 2.5, page.buffer(floats(1000, 10, 10)), y);
  const ref = vulkan('examples/saxpy.wasm', 'saxpy', 1000, ['2.5', floats(1000, 10, 10), hy]);
  problems.push(...sameBytes('y', await y.read(), ref.outputs[1]));
  page.destroy();
  check('the browser entry on navigator.gpu, with a bundle given as text', problems);
}

dev.destroy();
console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exitCode = failed ? 1 : 0;
