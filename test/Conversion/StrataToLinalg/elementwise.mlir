// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// Elementwise strata ops become one linalg.generic each; numpy broadcasting
// becomes the operands' indexing maps; f16/bf16 compute in f32 in the body.

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast_rank
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<4x8xf32>
func.func @add_broadcast_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Size-1 dims stretched against larger ones read index 0.
// CHECK-DAG: #[[COL0:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mul_broadcast_unit_dims
// CHECK-SAME: (%[[A:.+]]: tensor<4x1xf32>, %[[B:.+]]: tensor<1x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL0]], #[[ROW0]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x1xf32>, tensor<1x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.mulf
func.func @mul_broadcast_unit_dims(%a: tensor<4x1xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.mul"(%a, %b) : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A dynamic dim is sized by tensor.dim of the operand that carries it.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @sub_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[D:.+]] = tensor.dim %[[A]], %[[C0]] : tensor<?x8xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<?x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK: arith.subf
// CHECK: } -> tensor<?x8xf32>
// CHECK: return %[[R]]
func.func @sub_dynamic(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = "strata.sub"(%a, %b) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Dynamic dims from different operands; rank-2 operand aligned at the trailing dims.
// CHECK-DAG: #[[TAIL:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @add_dynamic_two_operands
// CHECK-SAME: (%[[A:.+]]: tensor<4x?xf32>, %[[B:.+]]: tensor<?x4x?xf32>)
// CHECK-NOT: strata.
// CHECK-DAG: %[[D0:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x4x?xf32>
// CHECK-DAG: %[[D2:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<4x?xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D0]], %[[D2]]) : tensor<?x4x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TAIL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x?xf32>, tensor<?x4x?xf32>) outs(%[[E]] : tensor<?x4x?xf32>)
func.func @add_dynamic_two_operands(%a: tensor<4x?xf32>, %b: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  %0 = "strata.add"(%a, %b) : (tensor<4x?xf32>, tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// -----

// f16 computes in f32 and rounds once.
// CHECK-LABEL: func.func @div_f16
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf16>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YE:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[XE]], %[[YE]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @div_f16(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "strata.div"(%a, %b) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @float_binary_ops
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] :
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK: %[[MIN:.+]] = linalg.generic {{.*}} ins(%[[MAX]], %[[B]] :
// CHECK: arith.minimumf %{{.+}}, %{{.+}} : f32
// CHECK: %[[POW:.+]] = linalg.generic {{.*}} ins(%[[MIN]], %[[B]] :
// CHECK: math.powf %{{.+}}, %{{.+}} : f32
// CHECK: return %[[POW]]
func.func @float_binary_ops(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.maximum"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "strata.minimum"(%0, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "strata.pow"(%1, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// i32 ops use the integer arith ops (max, min; floor_div and mod are in floor-div-mod.mlir).
// CHECK-LABEL: func.func @int_binary_ops
// CHECK-SAME: (%[[I:.+]]: tensor<4xi32>)
// CHECK-NOT: strata.
// CHECK: %[[ADD:.+]] = linalg.generic {{.*}} ins(%[[I]], %[[I]] : tensor<4xi32>, tensor<4xi32>) outs(%{{.+}} : tensor<4xi32>)
// CHECK: arith.addi %{{.+}}, %{{.+}} : i32
// CHECK: %[[SUB:.+]] = linalg.generic {{.*}} ins(%[[ADD]], %[[I]] :
// CHECK: arith.subi %{{.+}}, %{{.+}} : i32
// CHECK: %[[MUL:.+]] = linalg.generic {{.*}} ins(%[[SUB]], %[[I]] :
// CHECK: arith.muli %{{.+}}, %{{.+}} : i32
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[MUL]], %[[I]] :
// CHECK: arith.maxsi %{{.+}}, %{{.+}} : i32
// CHECK: %[[MIN:.+]] = linalg.generic {{.*}} ins(%[[MAX]], %[[I]] :
// CHECK: arith.minsi %{{.+}}, %{{.+}} : i32
// CHECK: %[[POW:.+]] = linalg.generic {{.*}} ins(%[[MIN]], %[[I]] :
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %{{.+}}, %{{.+}} : i32
// CHECK: math.ipowi %{{.+}}, %{{.+}} : i32
// CHECK: arith.select %[[NEG]], %{{.+}}, %{{.+}} : i32
// CHECK: return %[[POW]]
func.func @int_binary_ops(%i: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "strata.add"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "strata.sub"(%0, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "strata.mul"(%1, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = "strata.maximum"(%2, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = "strata.minimum"(%4, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = "strata.pow"(%5, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %6 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @float_unary_ops
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[NEG:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>)
// CHECK: arith.negf
// CHECK: %[[ABS:.+]] = linalg.generic {{.*}} ins(%[[NEG]] : tensor<4xf32>)
// CHECK: math.absf
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}} ins(%[[ABS]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: %[[LOG:.+]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<4xf32>)
// CHECK: math.log
// CHECK: %[[SQRT:.+]] = linalg.generic {{.*}} ins(%[[LOG]] : tensor<4xf32>)
// CHECK: math.sqrt
// CHECK: %[[RSQRT:.+]] = linalg.generic {{.*}} ins(%[[SQRT]] : tensor<4xf32>)
// CHECK: math.rsqrt
// CHECK: %[[TANH:.+]] = linalg.generic {{.*}} ins(%[[RSQRT]] : tensor<4xf32>)
// CHECK: math.tanh
// CHECK: %[[SIG:.+]] = linalg.generic {{.*}} ins(%[[TANH]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[EN:.+]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EN]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[SIG]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[X]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: return %[[RELU]]
func.func @float_unary_ops(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "strata.abs"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "strata.exp"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "strata.log"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "strata.sqrt"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "strata.rsqrt"(%4) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "strata.tanh"(%5) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "strata.sigmoid"(%6) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "strata.relu"(%7) : (tensor<4xf32>) -> tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @int_unary_ops
// CHECK-SAME: (%[[I:.+]]: tensor<4xi32>)
// CHECK-NOT: strata.
// CHECK: %[[NEG:.+]] = linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N:.+]] = arith.subi %[[Z]], %[[X]] : i32
// CHECK-NEXT: linalg.yield %[[N]] : i32
// CHECK: %[[ABS:.+]] = linalg.generic {{.*}} ins(%[[NEG]] : tensor<4xi32>)
// CHECK: math.absi %{{.+}} : i32
// CHECK: %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[ABS]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[M:.+]] = arith.maxsi %[[X]], %[[Z]] : i32
// CHECK-NEXT: linalg.yield %[[M]] : i32
// CHECK: return %[[RELU]]
func.func @int_unary_ops(%i: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "strata.neg"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  %1 = "strata.abs"(%0) : (tensor<4xi32>) -> tensor<4xi32>
  %2 = "strata.relu"(%1) : (tensor<4xi32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_exact
// CHECK-NOT: strata.
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RS2:.+]] = arith.constant 0.707106769 : f32
// CHECK: %[[XS:.+]] = arith.mulf %[[X]], %[[RS2]] : f32
// CHECK: %[[ERF:.+]] = math.erf %[[XS]] : f32
// CHECK: %[[HX:.+]] = arith.mulf %[[HALF]], %[[X]] : f32
// CHECK: %[[P:.+]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK: %[[G:.+]] = arith.mulf %[[HX]], %[[P]] : f32
// CHECK: linalg.yield %[[G]] : f32
// CHECK-NOT: math.tanh
func.func @gelu_exact(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.gelu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tanh GELU on bf16: computes in f32, rounds once.
// CHECK-LABEL: func.func @gelu_tanh_bf16
// CHECK-NOT: strata.
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: %[[X2:.+]] = arith.mulf %[[XE]], %[[XE]] : f32
// CHECK: %[[X3:.+]] = arith.mulf %[[X2]], %[[XE]] : f32
// CHECK: %[[TH:.+]] = math.tanh
// CHECK-NOT: math.erf
// CHECK: %[[G:.+]] = arith.mulf
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[G]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
func.func @gelu_tanh_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = "strata.gelu"(%a) {approximate = "tanh"} : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// compare on floats: ordered predicates, 'ne' unordered. The result is stored as
// i8 0/1 (LLVM cannot lay out i1 buffers), and returned so (numpy's bool layout).
// CHECK-LABEL: func.func @compare_float
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>)
// CHECK-NOT: strata.
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4xi8>
// CHECK: %[[NE8:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E0]] : tensor<4xi8>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: i8):
// CHECK-NEXT: %[[C:.+]] = arith.cmpf une, %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[W:.+]] = arith.extui %[[C]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[W]] : i8
// CHECK: %[[LT8:.+]] = linalg.generic
// CHECK: arith.cmpf olt, %{{.+}}, %{{.+}} : f32
// CHECK: %[[GE8:.+]] = linalg.generic
// CHECK: arith.cmpf oge, %{{.+}}, %{{.+}} : f32
// CHECK-NOT: xi1>
// CHECK: return %[[NE8]], %[[LT8]], %[[GE8]] : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
func.func @compare_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = "strata.compare"(%a, %b) {predicate = "ne"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = "strata.compare"(%a, %b) {predicate = "ge"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// compare on i32 uses signed cmpi; broadcasting applies as for the other ops.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @compare_int
// CHECK-SAME: (%[[A:.+]]: tensor<2x4xi32>, %[[B:.+]]: tensor<4xi32>) -> tensor<2x4xi8>
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4xi8>
// CHECK: %[[R8:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x4xi32>, tensor<4xi32>) outs(%[[E]] : tensor<2x4xi8>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i8):
// CHECK-NEXT: %[[C:.+]] = arith.cmpi sle, %[[X]], %[[Y]] : i32
// CHECK-NEXT: arith.extui %[[C]] : i1 to i8
// CHECK: return %[[R8]] : tensor<2x4xi8>
func.func @compare_int(%a: tensor<2x4xi32>, %b: tensor<4xi32>) -> tensor<2x4xi1> {
  %0 = "strata.compare"(%a, %b) {predicate = "le"} : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// select broadcasts its three operands (a rank-0 one reads with an empty map); a
// bool argument arrives stored as i8 and is tested against 0.
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[F:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[CND:.+]]: tensor<4x1xi8>, %[[TV:.+]]: tensor<8xf32>, %[[FV:.+]]: tensor<f32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[C]], #[[T]], #[[F]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[CND]], %[[TV]], %[[FV]] : tensor<4x1xi8>, tensor<8xf32>, tensor<f32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[P:.+]]: i8, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[BIT:.+]] = arith.cmpi ne, %[[P]], %{{.+}} : i8
// CHECK-NEXT: %[[S:.+]] = arith.select %[[BIT]], %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @select(%c: tensor<4x1xi1>, %a: tensor<8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  %0 = "strata.select"(%c, %a, %b) : (tensor<4x1xi1>, tensor<8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// select reads a comparison's i8 storage directly, testing it against 0.
// CHECK-LABEL: func.func @select_of_compare
// CHECK-NOT: strata.
// CHECK: %[[M:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4xi8>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.+}}, %{{.+}} : tensor<4xi8>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[P:.+]]: i8, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[BIT:.+]] = arith.cmpi ne, %[[P]], %{{.+}} : i8
// CHECK-NEXT: arith.select %[[BIT]], %[[X]], %[[Y]] : f32
// CHECK-NOT: tensor<4xi1>
func.func @select_of_compare(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "strata.select"(%0, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
