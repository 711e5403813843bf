// One RUN line per level of the CPU pipeline. Each prefix checks what the level
// holds; --implicit-check-not bans, over the whole output, what must be gone
// (strata ops print generic, as "strata.x"; the strata.workspace attribute that
// names a function's workspace size stays from the bufferized level on).
//
// RUN: strata-opt %s --compile-to=strata | FileCheck %s --check-prefix=STRATA --implicit-check-not=linalg. --implicit-check-not=memref
// RUN: strata-opt %s --compile-to=linalg | FileCheck %s --check-prefix=LINALG --implicit-check-not=strata. --implicit-check-not=memref --implicit-check-not=llvm.
// RUN: strata-opt %s --compile-to=fused | FileCheck %s --check-prefix=FUSED --implicit-check-not='"strata.' --implicit-check-not=linalg.softmax --implicit-check-not=memref --implicit-check-not=llvm.
// RUN: strata-opt %s --compile-to=layout | FileCheck %s --check-prefix=LAYOUT --implicit-check-not='"strata.' --implicit-check-not=linalg.softmax --implicit-check-not=memref --implicit-check-not=llvm.
// RUN: strata-opt %s --compile-to=bufferized | FileCheck %s --check-prefix=BUFFERIZED --implicit-check-not='"strata.' --implicit-check-not=tensor --implicit-check-not=linalg.softmax --implicit-check-not=llvm.
// RUN: strata-opt %s --compile-to=llvm | FileCheck %s --check-prefix=LLVM --implicit-check-not='"strata.' --implicit-check-not=tensor --implicit-check-not=memref --implicit-check-not=linalg --implicit-check-not=scf. --implicit-check-not=arith. --implicit-check-not=math. --implicit-check-not=' vector.' --implicit-check-not=cf. --implicit-check-not=func. --implicit-check-not=affine. --implicit-check-not=unrealized_conversion_cast

// strata: canonicalized and verified strata ops, nothing lowered.
// STRATA-LABEL: func.func @f
// STRATA-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<16xf32>) -> tensor<4x16xf32>
// STRATA: %[[MM:.+]] = "strata.matmul"(%[[X]], %[[W]])
// STRATA: %[[ADD:.+]] = "strata.add"(%[[MM]], %[[B]])
// STRATA: %[[RELU:.+]] = "strata.relu"(%[[ADD]])
// STRATA: %[[SM:.+]] = "strata.softmax"(%[[RELU]])
// STRATA: return %[[SM]] : tensor<4x16xf32>

// linalg: named ops and generics on tensors; softmax still aggregate.
// LINALG-LABEL: func.func @f
// LINALG-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<16xf32>) -> tensor<4x16xf32>
// LINALG: %[[MM:.+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32>)
// LINALG: %[[ADD:.+]] = linalg.generic {{.*}} ins(%[[MM]], %[[B]] : tensor<4x16xf32>, tensor<16xf32>)
// LINALG: arith.addf
// LINALG: %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<4x16xf32>)
// LINALG: arith.maximumf
// LINALG: %[[SM:.+]] = linalg.softmax dimension(1) ins(%[[RELU]] : tensor<4x16xf32>)
// LINALG: return %[[SM]] : tensor<4x16xf32>

// fused: still on tensors; the bias and relu fused into the matmul's tiles, the
// softmax a row kernel (strata-row-kernels) over vectors (16 lanes with AVX-512, 8 with
// AVX2) that takes the matmul result's buffer.
// FUSED-LABEL: func.func @f
// FUSED-SAME: -> tensor<4x16xf32>
// FUSED: linalg.matmul
// FUSED: %[[ROWS:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[MM:.+]]) -> (tensor<4x16xf32>)
// FUSED: vector.reduction <maximumf>
// FUSED: math.exp %{{.+}} : vector<{{8|16}}xf32>
// FUSED: arith.divf
// FUSED: return %[[ROWS]] : tensor<4x16xf32>

// layout: the same contract as fused.
// LAYOUT-LABEL: func.func @f
// LAYOUT-SAME: -> tensor<4x16xf32>
// LAYOUT: math.exp
// LAYOUT: return %{{.+}} : tensor<4x16xf32>

// bufferized: memrefs only, the result is an out-param that the matmul, its
// epilogue and the softmax rows write in place: no temporary, no workspace. The
// matmul's accumulators start from zero in registers (its zero fill is fused into the
// register tile and folds away) and are written to the result once.
// BUFFERIZED-LABEL: func.func @f
// BUFFERIZED-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[W:.+]]: memref<8x16xf32>, %[[B:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<4x16xf32>) {
// BUFFERIZED-NOT: memref.alloc
// BUFFERIZED-NOT: memref.view
// BUFFERIZED-NOT: linalg.fill
// BUFFERIZED: %[[ACC:.+]] = scf.for %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (vector<4x16xf32>)
// BUFFERIZED: vector.contract
// BUFFERIZED: vector.transfer_write %[[ACC]], %[[OUT]][%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
// BUFFERIZED: outs(%[[OUT]] : memref<4x16xf32>)
// BUFFERIZED: %[[ROW:.+]] = memref.subview %[[OUT]]
// BUFFERIZED: vector.transfer_read %[[ROW]]
// BUFFERIZED: arith.divf
// BUFFERIZED: vector.transfer_write %{{.+}}, %[[ROW]]
// BUFFERIZED-NOT: memref.dealloc
// BUFFERIZED: return{{$}}

// llvm: LLVM dialect only, no malloc.
// LLVM-NOT: llvm.func @malloc
// LLVM-LABEL: llvm.func @f(
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.fdiv
// LLVM-NOT: llvm.call @free
// LLVM: llvm.return
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = "strata.add"(%0, %b) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = "strata.relu"(%1) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = "strata.softmax"(%2) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
