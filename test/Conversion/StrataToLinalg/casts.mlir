// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// CHECK-LABEL: func.func @f32_to_f16
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]]
func.func @f32_to_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = "strata.cast"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @f16_to_f32
// CHECK-NOT: strata.
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<2x3xf16>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT: %[[T:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
func.func @f16_to_f32(%x: tensor<2x3xf16>) -> tensor<2x3xf32> {
  %0 = "strata.cast"(%x) : (tensor<2x3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// bf16 to f16 (same width) goes through f32.
// CHECK-LABEL: func.func @bf16_to_f16
// CHECK-NOT: strata.
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: bf16, %{{.+}}: f16):
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = "strata.cast"(%x) : (tensor<4xbf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// float -> i32 truncates with a saturating clamp to [-2^31, 2^31 - 128] (the
// largest f32 below 2^31); at or above 2^31 it saturates to INT32_MAX, and NaN
// becomes 0.
// CHECK-LABEL: func.func @f32_to_i32
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xi32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: i32):
// CHECK-NEXT: %[[LO:.+]] = arith.constant -2.14748365E+9 : f32
// CHECK-NEXT: %[[HI:.+]] = arith.constant 2.14748352E+9 : f32
// CHECK-NEXT: %[[A:.+]] = arith.maximumf %[[V]], %[[LO]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT: %[[I:.+]] = arith.fptosi %[[B]] : f32 to i32
// CHECK-NEXT: %[[LIM:.+]] = arith.constant 2.14748365E+9 : f32
// CHECK-NEXT: %[[BIG:.+]] = arith.cmpf oge, %[[V]], %[[LIM]] : f32
// CHECK-NEXT: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK-NEXT: %[[SAT:.+]] = arith.select %[[BIG]], %[[MAX]], %[[I]] : i32
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[S:.+]] = arith.select %[[NAN]], %[[Z]], %[[SAT]] : i32
// CHECK-NEXT: linalg.yield %[[S]] : i32
// CHECK: return %[[R]]
func.func @f32_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = "strata.cast"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// f16 -> i32 extends to f32 first, then clamps the extended value.
// CHECK-LABEL: func.func @f16_to_i32
// CHECK-NOT: strata.
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[V:.+]]: f16, %{{.+}}: i32):
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK: %[[A:.+]] = arith.maximumf %[[E]], %{{.+}} : f32
// CHECK-NEXT: %[[B:.+]] = arith.minimumf %[[A]], %{{.+}} : f32
// CHECK-NEXT: %[[I:.+]] = arith.fptosi %[[B]] : f32 to i32
// CHECK: %[[BIG:.+]] = arith.cmpf oge, %[[E]], %{{.+}} : f32
// CHECK: %[[SAT:.+]] = arith.select %[[BIG]], %{{.+}}, %[[I]] : i32
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[E]], %[[E]] : f32
// CHECK: arith.select %[[NAN]], %{{.+}}, %[[SAT]] : i32
func.func @f16_to_i32(%x: tensor<4xf16>) -> tensor<4xi32> {
  %0 = "strata.cast"(%x) : (tensor<4xf16>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// i32 -> float is sitofp, straight to the target type.
// CHECK-LABEL: func.func @i32_to_float
// CHECK-SAME: (%[[X:.+]]: tensor<4xi32>)
// CHECK-NOT: strata.
// CHECK: %[[F:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xi32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: i32, %{{.+}}: f32):
// CHECK-NEXT: %[[C:.+]] = arith.sitofp %[[V]] : i32 to f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xi32>) outs(%{{.+}} : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: i32, %{{.+}}: bf16):
// CHECK-NEXT: %[[C:.+]] = arith.sitofp %[[V]] : i32 to bf16
// CHECK-NEXT: linalg.yield %[[C]] : bf16
// CHECK: return %[[F]], %[[B]]
func.func @i32_to_float(%x: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xbf16>) {
  %0 = "strata.cast"(%x) : (tensor<4xi32>) -> tensor<4xf32>
  %1 = "strata.cast"(%x) : (tensor<4xi32>) -> tensor<4xbf16>
  return %0, %1 : tensor<4xf32>, tensor<4xbf16>
}

// -----

// A dynamic shape carries through to the cast's tensor.empty.
// CHECK-LABEL: func.func @cast_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x4xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @cast_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xbf16> {
  %0 = "strata.cast"(%x) : (tensor<?x4xf32>) -> tensor<?x4xbf16>
  return %0 : tensor<?x4xbf16>
}

// -----

// A bool mask (a comparison, read in its i8 storage) casts to 1 / 0 with a select:
// sitofp of an i1 would give -1.0 for true.
// CHECK-LABEL: func.func @mask_to_numbers
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[M:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4xi8>)
// CHECK: %[[F:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4xi8>) outs(%{{.+}} : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: i8, %{{.+}}: bf16):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i8
// CHECK-NEXT: %[[BIT:.+]] = arith.cmpi ne, %[[V]], %[[Z]] : i8
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : bf16
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : bf16
// CHECK-NEXT: %[[S:.+]] = arith.select %[[BIT]], %[[ONE]], %[[ZERO]] : bf16
// CHECK-NEXT: linalg.yield %[[S]] : bf16
// CHECK: %[[I:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4xi8>) outs(%{{.+}} : tensor<4xi32>)
// CHECK: %[[SI:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : i32
// CHECK-NEXT: linalg.yield %[[SI]] : i32
// CHECK: return %[[F]], %[[I]]
func.func @mask_to_numbers(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xi32>) {
  %m = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %0 = "strata.cast"(%m) : (tensor<4xi1>) -> tensor<4xbf16>
  %1 = "strata.cast"(%m) : (tensor<4xi1>) -> tensor<4xi32>
  return %0, %1 : tensor<4xbf16>, tensor<4xi32>
}

// -----

// An i1 argument is narrowed from its i8 storage first (bool_boundaries), then cast.
// CHECK-LABEL: func.func @bool_argument_to_f32
// CHECK-SAME: (%[[M:.+]]: tensor<3xi8>) -> tensor<3xf32>
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
func.func @bool_argument_to_f32(%m: tensor<3xi1>) -> tensor<3xf32> {
  %0 = "strata.cast"(%m) : (tensor<3xi1>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
