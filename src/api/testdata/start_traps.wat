;; A start function that traps (integer divide by zero) after writing
;; memory: loading the module fails with the trap (api/start_test.cpp).
(module
  (memory 1)
  (func $init
    (i32.store (i32.const 0) (i32.const 1))
    (drop (i32.div_s (i32.const 1) (i32.load (i32.const 4)))))
  (start $init)
  (func (export "k") (param $i i32)))
