;; GradBench kmeans in scalar f64 WebAssembly, the same maths and the same order of operations
;; as gradbench/evals/kmeans.ts and kmeans.c (so the results agree to rounding): the cost
;; Σ_i min_j ‖P_i − C_j‖² and the Newton direction J ⊘ H (J_j = Σ 2(C_j − P_i) over the points
;; nearest to C_j, H_j = 2·count_j). Arrays are row-major f64 in the module's memory, placed
;; by bench/native/wasm.ts; pointers are byte offsets. n, k, d ≥ 1 (the loops test at the end).
(module
  ;; Imported, made by bench/native/wasm.ts at the size a workload needs: growing a memory
  ;; detaches its ArrayBuffer, which slows every typed-array loop of the process (native-gap.md).
  (import "env" "memory" (memory 1))

  ;; Σ_i (a_i − b_i)² over d = bytes/8 elements, in index order as the JavaScript.
  (func $distance (param $a i32) (param $b i32) (param $bytes i32) (result f64)
    (local $sum f64) (local $diff f64) (local $i i32)
    (loop $dims
      (local.set $diff
        (f64.sub
          (f64.load (i32.add (local.get $a) (local.get $i)))
          (f64.load (i32.add (local.get $b) (local.get $i)))))
      (local.set $sum (f64.add (local.get $sum) (f64.mul (local.get $diff) (local.get $diff))))
      (br_if $dims
        (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $bytes))))
    (local.get $sum))

  (func (export "cost")
    (param $points i32) (param $centroids i32) (param $n i32) (param $k i32) (param $d i32)
    (result f64)
    (local $row i32) (local $p i32) (local $pEnd i32) (local $c i32) (local $cEnd i32)
    (local $total f64) (local $nearest f64) (local $dist f64)
    (local.set $row (i32.shl (local.get $d) (i32.const 3)))
    (local.set $p (local.get $points))
    (local.set $pEnd (i32.add (local.get $points) (i32.mul (local.get $n) (local.get $row))))
    (local.set $cEnd (i32.add (local.get $centroids) (i32.mul (local.get $k) (local.get $row))))
    (loop $points
      (local.set $nearest (f64.const inf))
      (local.set $c (local.get $centroids))
      (loop $centroids
        (local.set $dist (call $distance (local.get $p) (local.get $c) (local.get $row)))
        (if (f64.lt (local.get $dist) (local.get $nearest))
          (then (local.set $nearest (local.get $dist))))
        (br_if $centroids
          (i32.lt_u (local.tee $c (i32.add (local.get $c) (local.get $row))) (local.get $cEnd))))
      (local.set $total (f64.add (local.get $total) (local.get $nearest)))
      (br_if $points
        (i32.lt_u (local.tee $p (i32.add (local.get $p) (local.get $row))) (local.get $pEnd))))
    (local.get $total))

  ;; Writes J ⊘ H (k·d) at $dir; $count (k f64) is scratch. The nearest centroid is the first
  ;; of the smallest distances (strict <, as in the JavaScript).
  (func (export "dir")
    (param $points i32) (param $centroids i32) (param $n i32) (param $k i32) (param $d i32)
    (param $dir i32) (param $count i32)
    (local $row i32) (local $p i32) (local $pEnd i32) (local $c i32) (local $cEnd i32)
    (local $best i32) (local $i i32) (local $g i32) (local $cb i32) (local $j i32)
    (local $nearest f64) (local $dist f64) (local $h f64)
    (local.set $row (i32.shl (local.get $d) (i32.const 3)))
    (local.set $p (local.get $points))
    (local.set $pEnd (i32.add (local.get $points) (i32.mul (local.get $n) (local.get $row))))
    (local.set $cEnd (i32.add (local.get $centroids) (i32.mul (local.get $k) (local.get $row))))
    (memory.fill (local.get $dir) (i32.const 0) (i32.mul (local.get $k) (local.get $row)))
    (memory.fill (local.get $count) (i32.const 0) (i32.shl (local.get $k) (i32.const 3)))
    (loop $points
      (local.set $nearest (f64.const inf))
      (local.set $c (local.get $centroids))
      (local.set $best (local.get $centroids))
      (loop $centroids
        (local.set $dist (call $distance (local.get $p) (local.get $c) (local.get $row)))
        (if (f64.lt (local.get $dist) (local.get $nearest))
          (then
            (local.set $nearest (local.get $dist))
            (local.set $best (local.get $c))))
        (br_if $centroids
          (i32.lt_u (local.tee $c (i32.add (local.get $c) (local.get $row))) (local.get $cEnd))))
      ;; $best is the nearest centroid's address; its J row and count are at the same index.
      (local.set $j (i32.div_u (i32.sub (local.get $best) (local.get $centroids)) (local.get $row)))
      (local.set $g (i32.add (local.get $dir) (i32.sub (local.get $best) (local.get $centroids))))
      (local.set $i (i32.const 0))
      (loop $dims
        (f64.store (i32.add (local.get $g) (local.get $i))
          (f64.add
            (f64.load (i32.add (local.get $g) (local.get $i)))
            (f64.mul (f64.const 2)
              (f64.sub
                (f64.load (i32.add (local.get $best) (local.get $i)))
                (f64.load (i32.add (local.get $p) (local.get $i)))))))
        (br_if $dims
          (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 8))) (local.get $row))))
      (local.set $cb (i32.add (local.get $count) (i32.shl (local.get $j) (i32.const 3))))
      (f64.store (local.get $cb) (f64.add (f64.load (local.get $cb)) (f64.const 1)))
      (br_if $points
        (i32.lt_u (local.tee $p (i32.add (local.get $p) (local.get $row))) (local.get $pEnd))))
    ;; J ⊘ H, H = 2·count, in place.
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
