;; A start function that calls a host function, which cannot run on a
;; device: loading the module fails, naming the start function
;; (api/start_test.cpp).
(module
  (import "env" "hook" (func $hook (param i32)))
  (memory 1)
  (func $init (call $hook (i32.const 1)))
  (start $init)
  (func (export "k") (param $i i32)))
