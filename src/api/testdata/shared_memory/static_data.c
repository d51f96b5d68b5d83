/* Static data in a module linked with --shared-memory: wasm-ld moves it into
 * a passive data segment that its start function __wasm_init_memory copies in
 * once (docs/kernel-guide.md, "C11 atomics"). Built by src/CMakeLists.txt
 * with -matomics -mbulk-memory and --shared-memory (api/start_test.cpp). */
static const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static int counter_base = 100; /* .data, not .rodata: written data too */

__attribute__((export_name("lookup"))) void lookup(int i, int* out) { out[i] = table[i & 7] * counter_base + i; }
