;; A start function whose wait nobody could ever end (the value is the
;; expected one, the timeout infinite): loading traps (unreachable) rather
;; than hanging (api/start_test.cpp).
(module
  (memory 1 1 shared)
  (func $init (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (start $init)
  (func (export "k") (param $i i32)))
