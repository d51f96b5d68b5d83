// An AssemblyScript kernel that allocates with `new` (objects and an array)
// from the device heap (assemblyscript/heap_runtime.ts in place of the stub
// runtime). tests/e2e/heap_test.cpp checks it against a CPU reference over
// 2,048 invocations, and that no two invocations got the same object.
import { global_id } from "../../assemblyscript/wasmgpu";

class Vec2 {
  constructor(public x: f32, public y: f32) {}
  add(o: Vec2): Vec2 {
    return new Vec2(this.x + o.x, this.y + o.y);
  }
  scale(s: f32): Vec2 {
    return new Vec2(this.x * s, this.y * s);
  }
}

/** out[2i], out[2i+1] = ((x, y) + (1, 2)) * 3 + the sum of a 4-element
 *  array; where[i] = the address of the result object. */
export function vec2(i: i32, xs: usize, out: usize, where: usize, n: u32): void {
  if (<u32>i >= n) return;
  const x = load<f32>(xs + (<usize>i << 3)), y = load<f32>(xs + (<usize>i << 3) + 4);
  const v = new Vec2(x, y).add(new Vec2(1, 2)).scale(3);
  const extra = new Array<f32>(4);
  for (let k = 0; k < 4; ++k) extra[k] = <f32>k * x;
  let sum: f32 = 0;
  for (let k = 0; k < 4; ++k) sum += extra[k];
  store<f32>(out + (<usize>i << 3), v.x + sum);
  store<f32>(out + (<usize>i << 3) + 4, v.y);
  store<u32>(where + (<usize>i << 2), changetype<usize>(v));
  if (global_id(0) != <u32>i) unreachable();
}
