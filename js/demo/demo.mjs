// The demo page's script (js/demo/index.html): the wasm kernels of the
// examples (mandelbrot.c, saxpy.c), compiled to WGSL bundles by
// `wasmgpu compile --target wgsl --bundle` and served next to this page in
// bundles/, run through the package's browser entry on navigator.gpu.
// Mandelbrot is drawn to the canvas and compared with the same loop computed
// here in JavaScript; saxpy's result is compared with the values computed
// here. The last line (#status) reads "correct", or says what was wrong.
// window.demoFinished resolves to what the page found (the browser test,
// js/test/browser_page.mjs, waits for it).
import { Device } from '../lib/wasmgpu.mjs';

const kMaxIterations = 200;

function show(id, text) {
  document.getElementById(id).textContent = text;
}

async function fetchBundle(name) {
  const response = await fetch(`bundles/${name}.bundle.json`);
  if (!response.ok) throw new Error(`bundles/${name}.bundle.json: HTTP ${response.status}`);
  return response.text();
}

// mandelbrot.c's loop and palette, in f32 (Math.fround after every operation:
// a float operation rounded from double is the float operation, for + - *).
function mandelbrotPixel(px, py, height, maxIterations, scale) {
  const f = Math.fround;
  const cx = f(f(-2.2) + f(f(px + 0.5) * scale));
  const cy = f(f(f(py - f(0.5 * height)) + 0.5) * scale);
  let x = 0, y = 0, n = 0;
  while (n < maxIterations) {
    const xx = f(x * x), yy = f(y * y);
    if (f(xx + yy) > 4) break;
    const xy = f(x * y);
    x = f(f(xx - yy) + cx);
    y = f(f(xy + xy) + cy);
    ++n;
  }
  if (n >= maxIterations) return 0xff000000;
  const t = Math.floor((n * 255) / maxIterations);
  const cube = 255 * 255 * 255;
  const r = Math.floor((9 * (255 - t) * t * t * t) / cube);
  const g = Math.floor((15 * (255 - t) * (255 - t) * t * t) / cube);
  const b = Math.floor((8 * (255 - t) * (255 - t) * (255 - t) * t) / cube);
  return (0xff000000 | (b << 16) | (g << 8) | r) >>> 0;
}

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

async function main() {
  const problems = [];
  const found = { device: null, mandelbrot: null, saxpy: null };
  const dev = await Device.open(); // navigator.gpu
  found.device = dev.label;
  show('device', `device: ${dev.label}`);

  {
    const canvas = document.getElementById('mandelbrot');
    const [width, height] = [canvas.width, canvas.height];
    const scale = Math.fround(3.2 / width);
    const module = await dev.load(await fetchBundle('mandelbrot'));
    const mandelbrot = module.kernel('mandelbrot');
    const rgba = new Uint32Array(width * height);
    const started = performance.now();
    await mandelbrot(width * height, rgba, width, height, kMaxIterations, scale);
    const ms = performance.now() - started;
    canvas.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), width, height), 0, 0);
    let differ = 0, first = -1;
    for (let i = 0; i < rgba.length; i++) {
      if (rgba[i] !== mandelbrotPixel(i % width, Math.floor(i / width), height, kMaxIterations, scale)) {
        if (first < 0) first = i;
        differ++;
      }
    }
    const line = differ
      ? `${differ} of ${rgba.length} pixels differ from JavaScript's, the first at (${first % width}, ${Math.floor(first / width)}): ` +
        `0x${rgba[first].toString(16)}, expected 0x${mandelbrotPixel(first % width, Math.floor(first / width), height, kMaxIterations, scale).toString(16)}`
      : `${width}x${height}, ${kMaxIterations} iterations, the same pixels as JavaScript's (${ms.toFixed(0)} ms)`;
    if (differ) problems.push(`mandelbrot: ${line}`);
    show('mandelbrot-line', `mandelbrot: ${line}`);
    found.mandelbrot = { width, height, maxIterations: kMaxIterations, scale, differ };
  }

  {
    const n = 10007, a = 2.5;
    const hx = floats(n, 1, 10), hy = floats(n, 2, 10);
    const module = await dev.load(await fetchBundle('saxpy'));
    const saxpy = module.kernel('saxpy');
    const x = dev.buffer(hx), y = dev.buffer(hy);
    await saxpy(n, a, x, y);
    const got = await y.read(Float32Array);
    let differ = 0, first = -1;
    const want = (i) => Math.fround(Math.fround(a * hx[i]) + hy[i]);
    for (let i = 0; i < n; i++) {
      if (!Object.is(got[i], want(i))) {
        if (first < 0) first = i;
        differ++;
      }
    }
    const line = differ
      ? `${differ} of ${n} values differ, the first y[${first}] = ${got[first]}, expected ${want(first)}`
      : `${n} values, the same as JavaScript's`;
    if (differ) problems.push(`saxpy: ${line}`);
    show('saxpy-line', `saxpy: ${line}`);
    found.saxpy = { n, differ };
  }
  dev.destroy();
  return { ...found, problems };
}

window.demoFinished = main().then(
  (found) => {
    show('status', found.problems.length ? `wrong: ${found.problems.join('; ')}` : 'correct');
    return found;
  },
  (error) => {
    show('status', `error: ${error && error.message ? error.message : String(error)}`);
    return { problems: [String(error && error.stack ? error.stack : error)] };
  });
