;; Traps inside called functions, for ModuleOptions::trap_sites
;; (api/trap_site_test.cpp): the report names the callee and the offset of
;; its trapping instruction.
(module
  (memory 1)
  (func $read (param $p i32) (result i32)
    (i32.load (local.get $p)))
  (func $divide (param $a i32) (param $b i32) (result i32)
    (i32.div_s (local.get $a) (local.get $b)))
  ;; out[i] = *(out + i * stride): past the buffer for a large stride.
  (func (export "gather") (param $i i32) (param $out i32) (param $stride i32)
    (i32.store
      (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
      (call $read (i32.add (local.get $out) (i32.mul (local.get $i) (local.get $stride))))))
  (func (export "quotient") (param $a i32) (param $b i32) (result i32)
    (call $divide (local.get $a) (local.get $b)))
  ;; out[i] = *(0xfff00000 + 4 * i): past every buffer, at addresses the
  ;; report must name.
  (func (export "gather_far") (param $i i32) (param $out i32)
    (i32.store
      (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
      (call $read (i32.add (i32.const 0xfff00000) (i32.shl (local.get $i) (i32.const 2))))))
  ;; A trap in the callee, then more accesses in the caller while the trapped
  ;; invocation winds down: the report names the callee's access, not the
  ;; last one the invocation passed.
  (func (export "read_then_load") (param $p i32) (result i32)
    (drop (call $read (local.get $p)))
    (i32.load (i32.const 16))))
