;; Static data as wasm-ld lays it out with --shared-memory: a passive data
;; segment that the start function (__wasm_init_memory) copies in once,
;; guarded by a flag that the other threads would wait on. A second part
;; of the start function runs the two waits a lone invocation can do and
;; keeps their results (api/start_test.cpp).
(module
  (memory 1 1 shared)
  (data $static "\0a\00\00\00\14\00\00\00\1e\00\00\00\28\00\00\00")
  (func $__wasm_init_memory
    (block $done
      (block $wait
        (block $init
          (br_table $init $wait $done
            (i32.atomic.rmw.cmpxchg (i32.const 1040) (i32.const 0) (i32.const 1))))
        (memory.init $static (i32.const 1024) (i32.const 0) (i32.const 16))
        (i32.atomic.store (i32.const 1040) (i32.const 2))
        (drop (memory.atomic.notify (i32.const 1040) (i32.const -1)))
        (br $done))
      (drop (memory.atomic.wait32 (i32.const 1040) (i32.const 1) (i64.const -1))))
    (data.drop $static)
    ;; The flag is 2 now: a wait for 1 returns 1 (not-equal); a wait for 2
    ;; with a timeout of 1000 ns returns 2 (timed-out); the same on 64 bits.
    (i32.store (i32.const 1100) (memory.atomic.wait32 (i32.const 1040) (i32.const 1) (i64.const -1)))
    (i32.store (i32.const 1104) (memory.atomic.wait32 (i32.const 1040) (i32.const 2) (i64.const 1000)))
    (i32.store (i32.const 1108) (memory.atomic.wait64 (i32.const 1040) (i64.const 2) (i64.const 0)))
    (i32.store (i32.const 1112) (memory.atomic.wait64 (i32.const 1040) (i64.const 3) (i64.const -1))))
  (start $__wasm_init_memory)
  ;; out[i] = static[i & 3] + i
  (func (export "lookup") (param $i i32) (param $out i32)
    (i32.store
      (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
      (i32.add
        (i32.load offset=1024 (i32.shl (i32.and (local.get $i) (i32.const 3)) (i32.const 2)))
        (local.get $i))))
  ;; out[0..5] = the flag, then the four waits' results
  (func (export "state") (param $i i32) (param $out i32)
    (i32.store (local.get $out) (i32.atomic.load (i32.const 1040)))
    (i32.store offset=4 (local.get $out) (i32.load (i32.const 1100)))
    (i32.store offset=8 (local.get $out) (i32.load (i32.const 1104)))
    (i32.store offset=12 (local.get $out) (i32.load (i32.const 1108)))
    (i32.store offset=16 (local.get $out) (i32.load (i32.const 1112)))))
