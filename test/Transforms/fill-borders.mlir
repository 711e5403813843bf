// RUN: strata-opt %s --split-input-file --strata-fill-borders | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-fill-borders --strata-bufferize | FileCheck %s --check-prefix=BUF
// RUN: not strata-opt %s --strata-fill-borders=unknown=1 2>&1 | FileCheck %s --check-prefix=OPT

// OPT: error: strata-fill-borders: unknown option 'unknown' (options: none)
// OPT-NOT: Traceback

// A pad whose interior a linalg.copy writes: the fill becomes fills of the rows above
// and below the interior, then of the columns left and right of it (over its rows).
// CHECK-LABEL: func.func @pad_copy
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x4xf32>)
// CHECK: %[[Z:.+]] = arith.constant 0.0
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x6x6xf32>
// CHECK-NOT: outs(%[[E]] : tensor<2x6x6xf32>)
// CHECK: %[[T:.+]] = tensor.extract_slice %[[E]][0, 0, 0] [2, 1, 6] [1, 1, 1]
// CHECK: %[[FT:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[T]] : tensor<2x1x6xf32>)
// CHECK: %[[B1:.+]] = tensor.insert_slice %[[FT]] into %[[E]][0, 0, 0] [2, 1, 6] [1, 1, 1]
// CHECK: %[[D:.+]] = tensor.extract_slice %[[B1]][0, 5, 0] [2, 1, 6] [1, 1, 1]
// CHECK: %[[FD:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[D]] : tensor<2x1x6xf32>)
// CHECK: %[[B2:.+]] = tensor.insert_slice %[[FD]] into %[[B1]][0, 5, 0] [2, 1, 6] [1, 1, 1]
// CHECK: %[[L:.+]] = tensor.extract_slice %[[B2]][0, 1, 0] [2, 4, 1] [1, 1, 1]
// CHECK: %[[FL:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[L]] : tensor<2x4x1xf32>)
// CHECK: %[[B3:.+]] = tensor.insert_slice %[[FL]] into %[[B2]][0, 1, 0] [2, 4, 1] [1, 1, 1]
// CHECK: %[[R:.+]] = tensor.extract_slice %[[B3]][0, 1, 5] [2, 4, 1] [1, 1, 1]
// CHECK: %[[FR:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[R]] : tensor<2x4x1xf32>)
// CHECK: %[[B4:.+]] = tensor.insert_slice %[[FR]] into %[[B3]][0, 1, 5] [2, 4, 1] [1, 1, 1]
// CHECK: %[[S:.+]] = tensor.extract_slice %[[B4]][0, 1, 1] [2, 4, 4] [1, 1, 1]
// CHECK: %[[C:.+]] = linalg.copy ins(%[[X]] : tensor<2x4x4xf32>) outs(%[[S]] : tensor<2x4x4xf32>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[C]] into %[[B4]][0, 1, 1] [2, 4, 4] [1, 1, 1]
// CHECK: return %[[P]]
// Bufferized: four fills of strided border views of the result, none of all of it.
// BUF-LABEL: func.func @pad_copy
// BUF-SAME: %[[A:.+]]: memref<2x6x6xf32>)
// BUF-NOT: outs(%[[A]] : memref<2x6x6xf32>)
// BUF-COUNT-4: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<2x{{[14]}}x{{[16]}}xf32, strided<[36, 6, 1]{{.*}}>>)
// BUF: linalg.copy
// BUF-NOT: linalg.fill
// BUF: return
func.func @pad_copy(%x: tensor<2x4x4xf32>) -> tensor<2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %s = tensor.extract_slice %f[0, 1, 1] [2, 4, 4] [1, 1, 1] : tensor<2x6x6xf32> to tensor<2x4x4xf32>
  %c = linalg.copy ins(%x : tensor<2x4x4xf32>) outs(%s : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %p = tensor.insert_slice %c into %f[0, 1, 1] [2, 4, 4] [1, 1, 1] : tensor<2x4x4xf32> into tensor<2x6x6xf32>
  return %p : tensor<2x6x6xf32>
}

// -----

// A pad as strata-to-linalg emits it (the value inserted directly), high padding only,
// of -inf (a max pool's): one slab per padded dim.
// CHECK-LABEL: func.func @high_pad
// CHECK-SAME: (%[[X:.+]]: tensor<3x5xf32>)
// CHECK: %[[M:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x7xf32>
// CHECK: %[[B:.+]] = tensor.extract_slice %[[E]][3, 0] [1, 7] [1, 1]
// CHECK: %[[FB:.+]] = linalg.fill ins(%[[M]] : f32) outs(%[[B]] : tensor<1x7xf32>)
// CHECK: %[[E1:.+]] = tensor.insert_slice %[[FB]] into %[[E]][3, 0] [1, 7] [1, 1]
// CHECK: %[[R:.+]] = tensor.extract_slice %[[E1]][0, 5] [3, 2] [1, 1]
// CHECK: %[[FR:.+]] = linalg.fill ins(%[[M]] : f32) outs(%[[R]] : tensor<3x2xf32>)
// CHECK: %[[E2:.+]] = tensor.insert_slice %[[FR]] into %[[E1]][0, 5] [3, 2] [1, 1]
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %[[E2]][0, 0] [3, 5] [1, 1]
// CHECK: return %[[P]]
func.func @high_pad(%x: tensor<3x5xf32>) -> tensor<4x7xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x7xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x7xf32>) -> tensor<4x7xf32>
  %p = tensor.insert_slice %x into %f[0, 0] [3, 5] [1, 1] : tensor<3x5xf32> into tensor<4x7xf32>
  return %p : tensor<4x7xf32>
}

// -----

// Two pads sharing one fill (CSE merged theirs): each gets a fill of its own first,
// then each fills its border only.
// CHECK-LABEL: func.func @shared_fill
// CHECK-COUNT-2: tensor.empty() : tensor<1x4x4xf32>
// CHECK-NOT: outs(%{{.+}} : tensor<1x4x4xf32>)
// CHECK: return
// BUF-LABEL: func.func @shared_fill
// BUF-SAME: (%[[X:.+]]: memref<1x2x2xf32>, %[[Y:.+]]: memref<1x2x2xf32>, %[[R1:.+]]: memref<1x4x4xf32>, %[[R2:.+]]: memref<1x4x4xf32>)
// BUF-NOT: outs(%[[R1]] : memref<1x4x4xf32>)
// BUF-NOT: outs(%[[R2]] : memref<1x4x4xf32>)
// BUF-NOT: to memref<1x4x4xf32>
// BUF: memref.copy %[[X]], %{{.+}} : memref<1x2x2xf32> to memref<1x2x2xf32, strided<[16, 4, 1], offset: 5>>
// BUF: memref.copy %[[Y]], %{{.+}} : memref<1x2x2xf32> to memref<1x2x2xf32, strided<[16, 4, 1], offset: 5>>
// BUF: return
func.func @shared_fill(%x: tensor<1x2x2xf32>, %y: tensor<1x2x2xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %p1 = tensor.insert_slice %x into %f[0, 1, 1] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x4x4xf32>
  %p2 = tensor.insert_slice %y into %f[0, 1, 1] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x4x4xf32>
  return %p1, %p2 : tensor<1x4x4xf32>, tensor<1x4x4xf32>
}

// -----

// Kept whole: the fill is also returned as it is (its interior is read); a slice of the
// interior is read by a generic that uses its output value (an accumulation); the
// inserted box has a dynamic offset; the padded tensor has a dynamic dim.
// CHECK-LABEL: func.func @fill_read_elsewhere
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %[[F]][1] [4] [1]
// CHECK: return {{.*}}%[[F]]
func.func @fill_read_elsewhere(%x: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %p = tensor.insert_slice %x into %f[1] [4] [1] : tensor<4xf32> into tensor<6xf32>
  return %p, %f : tensor<6xf32>, tensor<6xf32>
}

// CHECK-LABEL: func.func @interior_accumulated
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6xf32>)
// CHECK: tensor.extract_slice %[[F]][1] [4] [1]
#id = affine_map<(d0) -> (d0)>
func.func @interior_accumulated(%x: tensor<4xf32>) -> tensor<6xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %s = tensor.extract_slice %f[1] [4] [1] : tensor<6xf32> to tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sum = arith.addf %in, %out : f32
    linalg.yield %sum : f32
  } -> tensor<4xf32>
  %p = tensor.insert_slice %a into %f[1] [4] [1] : tensor<4xf32> into tensor<6xf32>
  return %p : tensor<6xf32>
}

// CHECK-LABEL: func.func @dynamic_offset
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %[[F]][%{{.+}}] [4] [1]
func.func @dynamic_offset(%x: tensor<4xf32>, %i: index) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %p = tensor.insert_slice %x into %f[%i] [4] [1] : tensor<4xf32> into tensor<6xf32>
  return %p : tensor<6xf32>
}

// CHECK-LABEL: func.func @dynamic_dim
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<?x6xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %[[F]]
func.func @dynamic_dim(%x: tensor<?x4xf32>, %n: index) -> tensor<?x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %p = tensor.insert_slice %x into %f[0, 1] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x6xf32>
  return %p : tensor<?x6xf32>
}
