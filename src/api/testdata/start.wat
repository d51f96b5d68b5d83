;; A module whose start function writes memory and a mutable global that
;; its kernels and calls then read (api/start_test.cpp). Built by wat2wasm.
(module
  (memory (export "memory") 1)
  (global $base (mut i32) (i32.const 0))
  (global $counter (mut i32) (i32.const 0))
  ;; The start function: memory[64] = 1000, $base = 7, $counter = 1.
  (func $init
    (i32.store (i32.const 64) (i32.const 1000))
    (global.set $base (i32.const 7))
    (global.set $counter (i32.add (global.get $counter) (i32.const 1))))
  (start $init)
  ;; out[i] = memory[64] + $base + i: reads what the start function wrote.
  (func (export "read_state") (param $i i32) (param $out i32)
    (i32.store
      (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
      (i32.add (i32.add (i32.load (i32.const 64)) (global.get $base)) (local.get $i))))
  ;; $counter += delta: a kernel that writes a mutable global.
  (func (export "bump") (param $i i32) (param $delta i32)
    (call $add_to_counter (local.get $delta)))
  (func $add_to_counter (param $delta i32)
    (global.set $counter (i32.add (global.get $counter) (local.get $delta))))
  ;; out[0] = $counter.
  (func (export "read_counter") (param $i i32) (param $out i32)
    (i32.store (local.get $out) (global.get $counter)))
  (func (export "counter") (result i32) (global.get $counter))
  (func (export "base_plus") (param $x i32) (result i32) (i32.add (global.get $base) (local.get $x)))
  (func (export "add_to_counter") (param $delta i32) (result i32)
    (call $add_to_counter (local.get $delta))
    (global.get $counter)))
