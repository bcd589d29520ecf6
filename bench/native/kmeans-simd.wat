;; GradBench kmeans in f64x2 SIMD WebAssembly: kmeans.wat with two centroids per vector. Lane l
;; of a vector holds centroid 2m + l, so each lane computes one point-to-centroid distance with
;; exactly the scalar operations in the scalar order, and the results are bit-identical to
;; kmeans.wat's (vectorizing across the d coordinates instead would reorder each sum). For that
;; the centroids are first copied, per call, into pairs interleaved by coordinate at $pairs
;; (⌈k/2⌉·d·16 bytes; an odd k repeats the last centroid, which never wins: ties go to the
;; lower index). Each lane keeps its own running minimum and its index; the two lanes are merged
;; at the end of a point with the JavaScript's rule (the first of the smallest distances).
(module
  ;; Imported, made by bench/native/wasm.ts at the size a workload needs: growing a memory
  ;; detaches its ArrayBuffer, which slows every typed-array loop of the process (native-gap.md).
  (import "env" "memory" (memory 1))

  ;; pairs[m][i] = (C[2m][i], C[min(2m + 1, k − 1)][i]), m < ⌈k/2⌉, i < d.
  (func $interleave (param $centroids i32) (param $k i32) (param $d i32) (param $pairs i32)
    (local $row i32) (local $m i32) (local $c0 i32) (local $c1 i32) (local $i i32) (local $q i32)
    (local.set $row (i32.shl (local.get $d) (i32.const 3)))
    (local.set $q (local.get $pairs))
    (loop $pair
      (local.set $c0
        (i32.add (local.get $centroids) (i32.mul (i32.shl (local.get $m) (i32.const 1)) (local.get $row))))
      (local.set $c1 (i32.add (local.get $c0) (local.get $row)))
      (if (i32.ge_u (i32.add (i32.shl (local.get $m) (i32.const 1)) (i32.const 1)) (local.get $k))
        (then (local.set $c1 (local.get $c0))))
      (local.set $i (i32.const 0))
      (loop $dims
        (f64.store (local.get $q) (f64.load (i32.add (local.get $c0) (local.get $i))))
        (f64.store offset=8 (local.get $q) (f64.load (i32.add (local.get $c1) (local.get $i))))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br_if $dims
          (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $row))))
      (br_if $pair
        (i32.lt_u
          (i32.shl (local.tee $m (i32.add (local.get $m) (i32.const 1))) (i32.const 1))
          (local.get $k)))))

  ;; Per lane, the smallest distance from the point at $p to the centroids of that lane, and
  ;; (as i64) the index of the first centroid at that distance; the pairs run from $pairs to
  ;; $pairsEnd, $row bytes of the point per pair.
  (func $nearest (param $p i32) (param $pairs i32) (param $pairsEnd i32) (param $row i32)
    (result v128 v128)
    (local $q i32) (local $i i32) (local $acc v128) (local $diff v128) (local $mask v128)
    (local $best v128) (local $index v128) (local $m v128)
    (local.set $best (v128.const f64x2 inf inf))
    (local.set $m (v128.const i64x2 0 1))
    (local.set $q (local.get $pairs))
    (loop $pair
      (local.set $acc (v128.const f64x2 0 0))
      (local.set $i (i32.const 0))
      (loop $dims
        (local.set $diff
          (f64x2.sub
            (v128.load64_splat (i32.add (local.get $p) (local.get $i)))
            (v128.load (local.get $q))))
        (local.set $acc (f64x2.add (local.get $acc) (f64x2.mul (local.get $diff) (local.get $diff))))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br_if $dims
          (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $row))))
      (local.set $mask (f64x2.lt (local.get $acc) (local.get $best)))
      (local.set $best (v128.bitselect (local.get $acc) (local.get $best) (local.get $mask)))
      (local.set $index (v128.bitselect (local.get $m) (local.get $index) (local.get $mask)))
      (local.set $m (i64x2.add (local.get $m) (v128.const i64x2 2 2)))
      (br_if $pair (i32.lt_u (local.get $q) (local.get $pairsEnd))))
    (local.get $best)
    (local.get $index))

  (func (export "cost")
    (param $points i32) (param $centroids i32) (param $n i32) (param $k i32) (param $d i32)
    (param $pairs i32) (result f64)
    (local $row i32) (local $p i32) (local $pEnd i32) (local $pairsEnd i32) (local $total f64)
    (local $best v128)
    (local.set $row (i32.shl (local.get $d) (i32.const 3)))
    (call $interleave (local.get $centroids) (local.get $k) (local.get $d) (local.get $pairs))
    (local.set $pairsEnd
      (i32.add (local.get $pairs)
        (i32.mul
          (i32.shr_u (i32.add (local.get $k) (i32.const 1)) (i32.const 1))
          (i32.shl (local.get $row) (i32.const 1)))))
    (local.set $p (local.get $points))
    (local.set $pEnd (i32.add (local.get $points) (i32.mul (local.get $n) (local.get $row))))
    (loop $points
      (call $nearest (local.get $p) (local.get $pairs) (local.get $pairsEnd) (local.get $row))
      drop
      (local.set $best)
      (local.set $total
        (f64.add (local.get $total)
          (f64.min (f64x2.extract_lane 0 (local.get $best)) (f64x2.extract_lane 1 (local.get $best)))))
      (br_if $points
        (i32.lt_u (local.tee $p (i32.add (local.get $p) (local.get $row))) (local.get $pEnd))))
    (local.get $total))

  ;; As kmeans.wat's dir, with the nearest centroid found two at a time.
  (func (export "dir")
    (param $points i32) (param $centroids i32) (param $n i32) (param $k i32) (param $d i32)
    (param $dir i32) (param $count i32) (param $pairs i32)
    (local $row i32) (local $p i32) (local $pEnd i32) (local $pairsEnd i32) (local $i i32)
    (local $j i32) (local $j1 i32) (local $g i32) (local $c i32) (local $cb i32)
    (local $best v128) (local $index v128) (local $d0 f64) (local $d1 f64) (local $h f64)
    (local.set $row (i32.shl (local.get $d) (i32.const 3)))
    (call $interleave (local.get $centroids) (local.get $k) (local.get $d) (local.get $pairs))
    (local.set $pairsEnd
      (i32.add (local.get $pairs)
        (i32.mul
          (i32.shr_u (i32.add (local.get $k) (i32.const 1)) (i32.const 1))
          (i32.shl (local.get $row) (i32.const 1)))))
    (local.set $p (local.get $points))
    (local.set $pEnd (i32.add (local.get $points) (i32.mul (local.get $n) (local.get $row))))
    (memory.fill (local.get $dir) (i32.const 0) (i32.mul (local.get $k) (local.get $row)))
    (memory.fill (local.get $count) (i32.const 0) (i32.shl (local.get $k) (i32.const 3)))
    (loop $points
      (call $nearest (local.get $p) (local.get $pairs) (local.get $pairsEnd) (local.get $row))
      (local.set $index)
      (local.set $best)
      ;; Lane 0 holds even indices, lane 1 odd ones: the smaller distance wins, a tie the
      ;; smaller index, which is what the sequential strict < gives.
      (local.set $d0 (f64x2.extract_lane 0 (local.get $best)))
      (local.set $d1 (f64x2.extract_lane 1 (local.get $best)))
      (local.set $j (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $index))))
      (local.set $j1 (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $index))))
      (if (i32.or
            (f64.lt (local.get $d1) (local.get $d0))
            (i32.and (f64.eq (local.get $d1) (local.get $d0)) (i32.lt_u (local.get $j1) (local.get $j))))
        (then (local.set $j (local.get $j1))))
      (local.set $c (i32.add (local.get $centroids) (i32.mul (local.get $j) (local.get $row))))
      (local.set $g (i32.add (local.get $dir) (i32.mul (local.get $j) (local.get $row))))
      (local.set $i (i32.const 0))
      (loop $dims
        (f64.store (i32.add (local.get $g) (local.get $i))
          (f64.add
            (f64.load (i32.add (local.get $g) (local.get $i)))
            (f64.mul (f64.const 2)
              (f64.sub
                (f64.load (i32.add (local.get $c) (local.get $i)))
                (f64.load (i32.add (local.get $p) (local.get $i)))))))
        (br_if $dims
          (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $row))))
      (local.set $cb (i32.add (local.get $count) (i32.shl (local.get $j) (i32.const 3))))
      (f64.store (local.get $cb) (f64.add (f64.load (local.get $cb)) (f64.const 1)))
      (br_if $points
        (i32.lt_u (local.tee $p (i32.add (local.get $p) (local.get $row))) (local.get $pEnd))))
    (local.set $g (local.get $dir))
    (local.set $j (i32.const 0))
    (loop $rows
      (local.set $h
        (f64.mul (f64.const 2)
          (f64.load (i32.add (local.get $count) (i32.shl (local.get $j) (i32.const 3))))))
      (local.set $i (i32.const 0))
      (loop $dims
        (f64.store (i32.add (local.get $g) (local.get $i))
          (f64.div (f64.load (i32.add (local.get $g) (local.get $i))) (local.get $h)))
        (br_if $dims
          (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $row))))
      (local.set $g (i32.add (local.get $g) (local.get $row)))
      (br_if $rows (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $k)))))
)
