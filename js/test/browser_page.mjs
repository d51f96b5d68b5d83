// node js/test/browser_page.mjs WASMGPU BUILD_DIR SOURCE_DIR CHROMIUM
// node js/test/browser_page.mjs WASMGPU BUILD_DIR SOURCE_DIR --serve [PORT]
//
// The CTest driver `webgpu.browser`: the demo page (js/demo/) in Debian's
// headless Chromium with WebGPU. It compiles the bundles of the examples'
// mandelbrot and saxpy kernels with `wasmgpu compile --target wgsl --bundle`,
// serves the page, the package's browser entry (js/lib/wasmgpu.mjs) and the
// bundles from a local HTTP server (Node's http module), opens the page in
// Chromium (driven over the DevTools protocol on a pipe: js/test/chromium.mjs),
// and checks the page's own "correct" line and a screenshot: the canvas must
// show, pixel for pixel, the image `wasmgpu run --float-mode exact` gives on
// Vulkan, black inside the set and not outside, on the page's white. Any
// failure, WebGPU missing among them, fails the test.
//
// With --serve it only compiles the bundles and serves the page (for a
// person's browser), printing its address.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { Browser, decodePng, kWebGpuFlags } from './chromium.mjs';

const [wasmgpu, build, source, chromium, portArgument] = process.argv.slice(2);
const serveOnly = chromium === '--serve';
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'wasmgpu-js-browser-'));
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

function bundle(wasm, name) {
  const out = join(dir, `${name}.bundle.json`);
  const r = spawnSync(wasmgpu, ['compile', join(build, wasm), '--target', 'wgsl', '--bundle', '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`compile --bundle ${wasm}: ${r.stderr.trim()}`);
}
bundle('examples/mandelbrot.wasm', 'mandelbrot');
bundle('examples/saxpy.wasm', 'saxpy');

// /demo/bundles/* from the bundles just written, /demo/* and /lib/* from js/.
const kTypes = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json' };
function resolvePath(url) {
  const path = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  const within = (root, rest) => {
    const file = normalize(join(root, rest));
    return file.startsWith(root + sep) ? file : null;
  };
  if (path === '/') return { redirect: '/demo/index.html' };
  if (path.startsWith('/demo/bundles/')) return { file: within(dir, path.slice('/demo/bundles/'.length)) };
  if (path.startsWith('/demo/') || path.startsWith('/lib/')) return { file: within(join(source, 'js'), path.slice(1)) };
  return { file: null };
}
const served = [];
const server = createServer((request, response) => {
  const { redirect, file } = resolvePath(request.url);
  served.push(request.url);
  if (redirect) {
    response.writeHead(302, { location: redirect });
    response.end();
  } else if (file && existsSync(file)) {
    response.writeHead(200, { 'content-type': kTypes[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
    response.end(readFileSync(file));
  } else {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  }
});
await new Promise((resolve) => server.listen(serveOnly ? Number(portArgument || 8000) : 0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${server.address().port}/demo/index.html`;
if (serveOnly) {
  console.log(`serving the demo page at ${pageUrl} (bundles in ${dir}); Ctrl-C ends it`);
} else {
  let exitCode = 1;
  try {
    exitCode = await runPage();
  } catch (e) {
    console.log(`FAIL ${e && e.stack ? e.stack : e}`);
  }
  server.close();
  process.exit(exitCode);
}

async function runPage() {
  if (!chromium || !existsSync(chromium))
    throw new Error(`no Chromium at '${chromium}': scripts/install-deps.sh installs Debian's chromium`);

  // The reference image: the same kernel on Vulkan through the CLI, with
  // the page's parameters (read from the page after it ran).
  function vulkanMandelbrot({ width, height, maxIterations, scale }) {
    const file = join(dir, 'mandelbrot.rgba');
    writeFileSync(file, new Uint8Array(width * height * 4));
    const r = spawnSync(wasmgpu, ['run', join(build, 'examples/mandelbrot.wasm'), 'mandelbrot', '--n', String(width * height),
                                  '--float-mode', 'exact', `inout:${file}`, String(width), String(height),
                                  String(maxIterations), String(scale)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wasmgpu run mandelbrot: ${r.stderr.trim()}`);
    return new Uint8Array(readFileSync(file));
  }

  let shotPath = null;
  const browser = await Browser.launch(chromium, kWebGpuFlags, { windowSize: [800, 600] });
  try {
    const session = await browser.newPage();
    const consoleLines = [];
    let loaded;
    const loadFired = new Promise((resolve) => (loaded = resolve));
    browser.on((message) => {
      if (message.sessionId !== session) return;
      if (message.method === 'Page.loadEventFired') loaded();
      if (message.method === 'Runtime.consoleAPICalled')
        consoleLines.push(`console.${message.params.type}: ${message.params.args.map((a) => a.value ?? a.description).join(' ')}`);
      if (message.method === 'Runtime.exceptionThrown') {
        const d = message.params.exceptionDetails;
        consoleLines.push(`exception: ${d.exception ? d.exception.description : d.text}`);
      }
    });
    await browser.send('Page.enable', {}, session);
    await browser.send('Runtime.enable', {}, session);
    const navigated = await browser.send('Page.navigate', { url: pageUrl }, session);
    if (navigated.errorText) throw new Error(`navigating to ${pageUrl}: ${navigated.errorText}`);
    await withTimeout(loadFired, 30000, 'the page did not load');

    const evaluate = async (expression) => {
      const r = await browser.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, session);
      if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value;
    };
    const found = await withTimeout(evaluate('window.demoFinished'), 60000, 'the page did not finish within 60 s');
    const page = await evaluate(`(() => {
      const text = (id) => document.getElementById(id).textContent;
      const r = document.getElementById('mandelbrot').getBoundingClientRect();
      return { status: text('status'), device: text('device'), mandelbrot: text('mandelbrot-line'), saxpy: text('saxpy-line'),
               canvas: { left: r.left, top: r.top, width: r.width, height: r.height }, dpr: window.devicePixelRatio };
    })()`);
    console.log(`${page.device}\n${page.mandelbrot}\n${page.saxpy}\nstatus: ${page.status}`);
    for (const line of consoleLines) console.log(`  (page) ${line}`);

    check("the page ran its kernels on navigator.gpu and its status line reads 'correct'",
          [...(page.status === 'correct' ? [] : [`the status line reads '${page.status}'`]),
           ...(found.problems || []).filter((p) => !page.status.includes(p))]);
    if (!found.mandelbrot) return finish();

    // Two animation frames: the canvas's pixels are composited before the shot.
    await withTimeout(evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))'), 10000,
                      'no animation frame within 10 s');
    const shot = await browser.send('Page.captureScreenshot', { format: 'png' }, session);
    const png = Buffer.from(shot.data, 'base64');
    shotPath = join(build, 'webgpu.browser.png');
    writeFileSync(shotPath, png);
    const image = decodePng(png);
    const { width, height, maxIterations, scale } = found.mandelbrot;
    const rect = page.canvas;
    const placed = page.dpr === 1 && rect.width === width && rect.height === height && Number.isInteger(rect.left) &&
                   Number.isInteger(rect.top) && rect.left >= 1 && rect.top >= 1 && rect.left + width < image.width &&
                   rect.top + height < image.height;
    {
      // The canvas, one screen pixel per canvas pixel, compared with Vulkan's.
      const problems = [];
      if (!placed)
        problems.push(`the canvas is ${rect.width}x${rect.height} at (${rect.left}, ${rect.top}), device pixel ratio ${page.dpr}, ` +
                      `in a ${image.width}x${image.height} screenshot: expected ${width}x${height} at whole pixels inside it, ratio 1`);
      else {
        const reference = vulkanMandelbrot(found.mandelbrot);
        let differ = 0, first = null;
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const s = ((rect.top + y) * image.width + rect.left + x) * 4, r = (y * width + x) * 4;
            for (let c = 0; c < 3; c++) {
              if (image.rgba[s + c] !== reference[r + c]) {
                differ++;
                first ??= `(${x}, ${y}): screenshot rgb(${image.rgba.subarray(s, s + 3).join(', ')}), Vulkan rgb(${reference.subarray(r, r + 3).join(', ')})`;
                break;
              }
            }
          }
        }
        if (differ) problems.push(`${differ} of ${width * height} pixels differ from wasmgpu run's, the first at ${first}`);
        const distinct = new Set();
        for (let p = 0; p < width * height; p++) distinct.add(reference[p * 4] | (reference[p * 4 + 1] << 8) | (reference[p * 4 + 2] << 16));
        if (distinct.size < 16) problems.push(`Vulkan's image has only ${distinct.size} colours`);
      }
      check(`screenshot: the ${width}x${height} canvas shows wasmgpu run's Mandelbrot (Vulkan, exact mode) pixel for pixel`, problems);
    }
    if (placed) {
      // Fixed points, whatever the reference: the set's interior is opaque
      // black, points far outside it are not, and the page around the canvas
      // is white.
      const at = (x, y) => Array.from(image.rgba.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3));
      const pixelOf = (cx, cy) => [Math.floor((cx + 2.2) / scale - 0.5), Math.floor(cy / scale + 0.5 * height - 0.5)];
      const problems = [];
      const describe = (rgb) => `rgb(${rgb.join(', ')})`;
      for (const [cx, cy] of [[-0.25, 0], [-1, 0], [-0.1, 0.5]]) {
        const [x, y] = pixelOf(cx, cy);
        const rgb = at(rect.left + x, rect.top + y);
        if (rgb.some((v) => v !== 0)) problems.push(`c = ${cx}${cy < 0 ? '' : '+'}${cy}i (pixel ${x}, ${y}) is inside the set but shows ${describe(rgb)}`);
      }
      for (const [cx, cy] of [[-2.15, -1.15], [0.95, 1.15], [0.6, 0], [-2.1, 0.4]]) {
        const [x, y] = pixelOf(cx, cy);
        const rgb = at(rect.left + x, rect.top + y);
        if (rgb.every((v) => v === 0)) problems.push(`c = ${cx}${cy < 0 ? '' : '+'}${cy}i (pixel ${x}, ${y}) is outside the set but shows black`);
      }
      for (const [x, y] of [[rect.left - 1, rect.top], [rect.left + width, rect.top + 10], [rect.left + 5, rect.top - 1]]) {
        const rgb = at(x, y);
        if (rgb.some((v) => v !== 255)) problems.push(`the page at (${x}, ${y}), beside the canvas, shows ${describe(rgb)}, not white`);
      }
      check('screenshot: black inside the set, colours outside it, white page around the canvas', problems);
    }
    return finish();
  } finally {
    await browser.close();
  }

  function finish() {
    console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s${shotPath ? `; screenshot: ${shotPath}` : ''})`);
    if (failed) console.log(`served: ${served.join(' ')}\nChromium's stderr (last lines, D-Bus's left out):\n${browser.stderr.split('\n').filter((l) => !l.includes('dbus')).slice(-30).join('\n')}`);
    return failed ? 1 : 0;
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms))),
  ]);
}
