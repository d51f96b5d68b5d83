// Headless Chromium driven through the DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages, each ended by a NUL byte, written
// to the browser's fd 3 and read from its fd 4), so that the browser test
// needs no npm package and no WebSocket client; and a PNG decoder for the
// screenshots it takes (8-bit RGB or RGBA, not interlaced: what Chromium
// writes). docs/webgpu.md ("The browser") says which flags give WebGPU here.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

// The flags that give headless Chromium a WebGPU adapter on a machine with
// no GPU: WebGPU's adapter blocklist (which lists CPU adapters) lifted, and
// Chromium's own SwiftShader Vulkan chosen, the adapter it offers when there
// is no GPU. docs/webgpu.md ("The browser") says what else was tried: ANGLE
// and Dawn on lavapipe crashed Chromium's GPU process.
export const kWebGpuFlags = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

export class Browser {
  // Starts `executable` headless with `flags` (after the fixed ones) and a
  // fresh profile; resolves once the protocol answers.
  static async launch(executable, flags = [], { windowSize = [800, 600] } = {}) {
    const profile = mkdtempSync(join(tmpdir(), 'wasmgpu-chromium-'));
    const args = [
      '--headless',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      `--window-size=${windowSize[0]},${windowSize[1]}`,
      '--force-device-scale-factor=1',
      '--force-color-profile=srgb',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--mute-audio',
      // The sandbox needs user namespaces (or Debian's chromium-sandbox, not
      // installed), which containers often lack, and Chromium refuses it as
      // root; the only page opened is the test's own, served locally.
      '--no-sandbox',
      ...flags,
      'about:blank',
    ];
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    const browser = new Browser(child, profile);
    await browser.send('Browser.getVersion');
    return browser;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.stderr = '';
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.exited = null;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      this.stderr = (this.stderr + text).slice(-20000);
    });
    let buffered = Buffer.alloc(0);
    child.stdio[4].on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
        const message = JSON.parse(buffered.subarray(0, end).toString('utf8'));
        buffered = buffered.subarray(end + 1);
        this.dispatch(message);
      }
    });
    child.on('exit', (code, signal) => {
      this.exited = signal ? `signal ${signal}` : `status ${code}`;
      for (const { reject, method } of this.pending.values())
        reject(new Error(`Chromium exited (${this.exited}) before answering ${method}; its stderr:\n${this.stderr}`));
      this.pending.clear();
    });
    child.on('error', (e) => {
      for (const { reject } of this.pending.values()) reject(e);
      this.pending.clear();
    });
  }

  dispatch(message) {
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
      else waiting.resolve(message.result);
      return;
    }
    for (const listener of this.listeners) listener(message);
  }

  // A protocol command, to the browser or (with sessionId) to a page.
  send(method, params = {}, sessionId = undefined) {
    if (this.exited) return Promise.reject(new Error(`Chromium exited (${this.exited}); its stderr:\n${this.stderr}`));
    const id = this.nextId++;
    const message = { id, method, params, ...(sessionId ? { sessionId } : {}) };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(message) + '\0');
    });
  }

  on(listener) {
    this.listeners.push(listener);
  }

  // A new page (tab) attached in flat mode: its session id.
  async newPage() {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId;
  }

  async close() {
    if (!this.exited) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.profile, { recursive: true, force: true });
  }
}

// A PNG's pixels: { width, height, rgba: Uint8Array (4 bytes a pixel) }.
export function decodePng(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error('not a PNG');
  let width = 0, height = 0, channels = 0;
  const data = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colourType, , , interlace] = body.subarray(8, 13);
      channels = { 2: 3, 6: 4 }[colourType];
      if (depth !== 8 || !channels || interlace !== 0)
        throw new Error(`PNG of bit depth ${depth}, colour type ${colourType}, interlace ${interlace}: not decoded here`);
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels] : 0, b = up[i], c = i >= channels ? up[i - channels] : 0;
      let predicted = 0;
      if (filter === 1) predicted = a;
      else if (filter === 2) predicted = b;
      else if (filter === 3) predicted = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`PNG filter ${filter} on row ${y}`);
      out[i] = (line[i] + predicted) & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    rgba.set(rows.subarray(p * channels, p * channels + 3), p * 4);
    rgba[p * 4 + 3] = channels === 4 ? rows[p * channels + 3] : 255;
  }
  return { width, height, rgba };
}
