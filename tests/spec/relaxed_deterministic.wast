;; Relaxed SIMD in WebAssembly 3.0's deterministic profile (relaxed(R)[A0..An] = A0),
;; which wasmgpu gives on every device: each assertion below admits only the
;; first alternative, where the official scripts (wasm-spec-tests-3.0) accept
;; any with `either`. The expected values are worked out by hand from the spec's
;; definitions (comments). The dot products carry wabt 1.0.32's names
;; (i16x8.dot_i8x16_i7x16_s, i32x4.dot_i8x16_i7x16_add_s) for the spec's
;; i16x8.relaxed_dot_i8x16_i7x16_s and i32x4.relaxed_dot_i8x16_i7x16_add_s (same
;; encodings, 0xFD 0x112 and 0x113); relaxed_dot_product.wast uses the spec's
;; names and so does not convert with that wast2json.

(module
  (func (export "f32x4.madd") (param v128 v128 v128) (result v128)
    (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f32x4.nmadd") (param v128 v128 v128) (result v128)
    (f32x4.relaxed_nmadd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f64x2.madd") (param v128 v128 v128) (result v128)
    (f64x2.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f64x2.nmadd") (param v128 v128 v128) (result v128)
    (f64x2.relaxed_nmadd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "dot") (param v128 v128) (result v128)
    (i16x8.dot_i8x16_i7x16_s (local.get 0) (local.get 1)))
  (func (export "dot_add") (param v128 v128 v128) (result v128)
    (i32x4.dot_i8x16_i7x16_add_s (local.get 0) (local.get 1) (local.get 2)))
  (func (export "swizzle") (param v128 v128) (result v128)
    (i8x16.relaxed_swizzle (local.get 0) (local.get 1)))
  (func (export "i8x16.laneselect") (param v128 v128 v128) (result v128)
    (i8x16.relaxed_laneselect (local.get 0) (local.get 1) (local.get 2)))
  (func (export "i16x8.laneselect") (param v128 v128 v128) (result v128)
    (i16x8.relaxed_laneselect (local.get 0) (local.get 1) (local.get 2)))
  (func (export "i32x4.laneselect") (param v128 v128 v128) (result v128)
    (i32x4.relaxed_laneselect (local.get 0) (local.get 1) (local.get 2)))
  (func (export "i64x2.laneselect") (param v128 v128 v128) (result v128)
    (i64x2.relaxed_laneselect (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f32x4.min") (param v128 v128) (result v128) (f32x4.relaxed_min (local.get 0) (local.get 1)))
  (func (export "f32x4.max") (param v128 v128) (result v128) (f32x4.relaxed_max (local.get 0) (local.get 1)))
  (func (export "f64x2.min") (param v128 v128) (result v128) (f64x2.relaxed_min (local.get 0) (local.get 1)))
  (func (export "f64x2.max") (param v128 v128) (result v128) (f64x2.relaxed_max (local.get 0) (local.get 1)))
  (func (export "q15mulr") (param v128 v128) (result v128) (i16x8.relaxed_q15mulr_s (local.get 0) (local.get 1)))
  (func (export "trunc_f32x4_s") (param v128) (result v128) (i32x4.relaxed_trunc_f32x4_s (local.get 0)))
  (func (export "trunc_f32x4_u") (param v128) (result v128) (i32x4.relaxed_trunc_f32x4_u (local.get 0)))
  (func (export "trunc_f64x2_s_zero") (param v128) (result v128) (i32x4.relaxed_trunc_f64x2_s_zero (local.get 0)))
  (func (export "trunc_f64x2_u_zero") (param v128) (result v128) (i32x4.relaxed_trunc_f64x2_u_zero (local.get 0)))
)

;; madd = fadd(fmul(a, b), c), two roundings. (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46
;; rounds to 1 + 2^-22, so adding -(1 + 2^-22) gives +0; fused it would be 2^-46.
;; Lanes 1..3: 2 * 3 + 1 = 7; 0.5 * -4 + 2 = 0; -0 * 5 + -0 = -0.
(assert_return (invoke "f32x4.madd"
                 (v128.const f32x4 0x1.000002p+0 2 0.5 -0)
                 (v128.const f32x4 0x1.000002p+0 3 -4 5)
                 (v128.const f32x4 -0x1.000004p+0 1 2 -0))
               (v128.const f32x4 0 7 0 -0))
;; nmadd = fadd(fmul(fneg(a), b), c): -(1 + 2^-22) + (1 + 2^-22) = +0 (fused: -2^-46).
;; Lanes 1..3: -(2 * 3) + 1 = -5; -(inf * 0) + 1 = nan; -(1 * 1) + 1 = +0.
(assert_return (invoke "f32x4.nmadd"
                 (v128.const f32x4 0x1.000002p+0 2 inf 1)
                 (v128.const f32x4 0x1.000002p+0 3 0 1)
                 (v128.const f32x4 0x1.000004p+0 1 1 1))
               (v128.const f32x4 0 -5 nan:canonical 0))
;; f64: (1 + 2^-52)^2 rounds to 1 + 2^-51 (fused: the sum would be 2^-104).
(assert_return (invoke "f64x2.madd"
                 (v128.const f64x2 0x1.0000000000001p+0 1.5)
                 (v128.const f64x2 0x1.0000000000001p+0 2)
                 (v128.const f64x2 -0x1.0000000000002p+0 0.25))
               (v128.const f64x2 0 3.25))
(assert_return (invoke "f64x2.nmadd"
                 (v128.const f64x2 0x1.0000000000001p+0 1.5)
                 (v128.const f64x2 0x1.0000000000001p+0 2)
                 (v128.const f64x2 0x1.0000000000002p+0 0.25))
               (v128.const f64x2 0 -2.75))

;; Dot products, both operands' bytes signed; each i16 lane is iadd_sat_16,s of
;; two products (the spec's RELAXED_DOTS): lane 0 is (-128 * -128) * 2 = 32768,
;; saturated to 32767; lane 1 127 * 127 * 2 = 32258; lane 2 -128 * 127 + 127 * -128
;; = -32512; lane 3 1 * 3 + 2 * 4 = 11; lane 4 -1 * -1 + -1 * 1 = 0; lane 5
;; 5 * 7 + -6 * 7 = -7; lane 6 0; lane 7 100 * 100 * 2 = 20000.
(assert_return (invoke "dot"
                 (v128.const i8x16 -128 -128 127 127 -128 127 1 2 -1 -1 5 -6 0 0 100 100)
                 (v128.const i8x16 -128 -128 127 127 127 -128 3 4 -1 1 7 7 9 9 100 100))
               (v128.const i16x8 32767 32258 -32512 11 0 -7 0 20000))
;; dot_add: lane j = sum(2j) + sum(2j+1) + c[j] (i32, wrapping):
;; 32767 + 32258 + 1 = 65026; -32512 + 11 - 2 = -32503; 0 - 7 + 3 = -4;
;; 0 + 20000 + 2147483647 = 2147503647, wrapped to -2147463649.
(assert_return (invoke "dot_add"
                 (v128.const i8x16 -128 -128 127 127 -128 127 1 2 -1 -1 5 -6 0 0 100 100)
                 (v128.const i8x16 -128 -128 127 127 127 -128 3 4 -1 1 7 7 9 9 100 100)
                 (v128.const i32x4 1 -2 3 2147483647))
               (v128.const i32x4 65026 -32503 -4 -2147463649))

;; relaxed_swizzle = swizzle: indices from 16 up (16, 255, 128, 17) give 0.
(assert_return (invoke "swizzle"
                 (v128.const i8x16 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
                 (v128.const i8x16 0 15 16 255 128 17 1 2 3 4 5 6 7 8 9 10))
               (v128.const i8x16 16 31 0 0 0 0 17 18 19 20 21 22 23 24 25 26))

;; relaxed_laneselect = bitselect, bit by bit, whatever the mask's top bits:
;; (a & m) | (b & ~m) with a = 0xAA.., b = 0x55..
(assert_return (invoke "i8x16.laneselect"
                 (v128.const i8x16 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA 0xAA)
                 (v128.const i8x16 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55 0x55)
                 (v128.const i8x16 0x0F 0xF0 0x80 0x7F 0 0xFF 0x01 0xFE 0x0F 0xF0 0x80 0x7F 0 0xFF 0x01 0xFE))
               (v128.const i8x16 0x5A 0xA5 0xD5 0x2A 0x55 0xAA 0x54 0xAB 0x5A 0xA5 0xD5 0x2A 0x55 0xAA 0x54 0xAB))
(assert_return (invoke "i16x8.laneselect"
                 (v128.const i16x8 0xAAAA 0xAAAA 0xAAAA 0xAAAA 0xAAAA 0xAAAA 0xAAAA 0xAAAA)
                 (v128.const i16x8 0x5555 0x5555 0x5555 0x5555 0x5555 0x5555 0x5555 0x5555)
                 (v128.const i16x8 0x00FF 0xFF00 0x8000 0x7FFF 0 0xFFFF 0x0F0F 0xF0F0))
               (v128.const i16x8 0x55AA 0xAA55 0xD555 0x2AAA 0x5555 0xAAAA 0x5A5A 0xA5A5))
(assert_return (invoke "i32x4.laneselect"
                 (v128.const i32x4 0xAAAAAAAA 0xAAAAAAAA 0xAAAAAAAA 0xAAAAAAAA)
                 (v128.const i32x4 0x55555555 0x55555555 0x55555555 0x55555555)
                 (v128.const i32x4 0x0000FFFF 0xFFFF0000 0x80000000 0x7FFFFFFF))
               (v128.const i32x4 0x5555AAAA 0xAAAA5555 0xD5555555 0x2AAAAAAA))
(assert_return (invoke "i64x2.laneselect"
                 (v128.const i64x2 0xAAAAAAAAAAAAAAAA 0xAAAAAAAAAAAAAAAA)
                 (v128.const i64x2 0x5555555555555555 0x5555555555555555)
                 (v128.const i64x2 0x00000000FFFFFFFF 0x8000000000000000))
               (v128.const i64x2 0x55555555AAAAAAAA 0xD555555555555555))

;; relaxed_min/max = min/max: NaN in, canonical NaN out; -0 < +0.
(assert_return (invoke "f32x4.min"
                 (v128.const f32x4 nan 0 -0 1)
                 (v128.const f32x4 1 -0 0 nan))
               (v128.const f32x4 nan:canonical -0 -0 nan:canonical))
(assert_return (invoke "f32x4.max"
                 (v128.const f32x4 nan 0 -0 1)
                 (v128.const f32x4 1 -0 0 nan))
               (v128.const f32x4 nan:canonical 0 0 nan:canonical))
(assert_return (invoke "f64x2.min" (v128.const f64x2 0 nan) (v128.const f64x2 -0 1))
               (v128.const f64x2 -0 nan:canonical))
(assert_return (invoke "f64x2.max" (v128.const f64x2 -0 1) (v128.const f64x2 0 nan))
               (v128.const f64x2 0 nan:canonical))

;; relaxed_q15mulr_s = q15mulr_sat_s: -32768 * -32768 saturates to 32767.
(assert_return (invoke "q15mulr"
                 (v128.const i16x8 -32768 -32768 16384 -16384 1 0 32767 -32768)
                 (v128.const i16x8 -32768 32767 16384 16384 16384 5 32767 1))
               (v128.const i16x8 32767 -32767 8192 -8192 1 0 32766 -1))

;; relaxed_trunc = trunc_sat: NaN gives 0, out-of-range lanes saturate.
(assert_return (invoke "trunc_f32x4_s" (v128.const f32x4 nan -3e10 3e10 -1.9))
               (v128.const i32x4 0 -2147483648 2147483647 -1))
(assert_return (invoke "trunc_f32x4_u" (v128.const f32x4 nan -1 4294967296 1.5))
               (v128.const i32x4 0 0 0xFFFFFFFF 1))
(assert_return (invoke "trunc_f64x2_s_zero" (v128.const f64x2 nan -3e10))
               (v128.const i32x4 0 -2147483648 0 0))
(assert_return (invoke "trunc_f64x2_u_zero" (v128.const f64x2 5e9 2.9))
               (v128.const i32x4 0xFFFFFFFF 2 0 0))
