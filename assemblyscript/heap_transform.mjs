// heap_transform.mjs: an asc transform for kernels built with
// heap_runtime.ts (`--transform ./heap_transform.mjs`). asc treats every
// custom runtime as a garbage-collecting one and gives it a shadow stack of
// 32 KiB, kept in a mutable global (~lib/memory/__stack_pointer) that every
// invocation would share, so a launch of many invocations is refused
// (docs/memory-model.md, "Globals"). heap_runtime.ts never collects, so it
// needs no shadow stack; this turns it off before anything is compiled, as
// the stub runtime has it.
export default class HeapRuntimeTransform {
  afterParse(parser) {
    const program = this.program ?? parser.program;
    program.options.stackSize = 0;
    program.module.useShadowStack = false;
  }
}
