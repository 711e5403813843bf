// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-gpu-map, one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, canonicalize, strata-gpu-launch)' | FileCheck %s

// Elementwise: a grid of 2x1024 blocks of 256 threads; no barrier needed.
// CHECK-LABEL: func.func @add
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c2, %{{.+}} = %c1024, %{{.+}} = %c1{{.*}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c256, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}})
// CHECK: gpu.block_id  x
// CHECK: gpu.thread_id  x
// CHECK: linalg.generic
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: scf.forall
func.func @add(%a: tensor<1024x512xf32>, %b: tensor<1024x512xf32>) -> tensor<1024x512xf32> {
  %e = tensor.empty() : tensor<1024x512xf32>
  %0 = linalg.add ins(%a, %b : tensor<1024x512xf32>, tensor<1024x512xf32>) outs(%e : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  return %0 : tensor<1024x512xf32>
}

// -----

// Row max: one block of 256 threads per row; each thread strides the row
// (coalesced), then one gpu.all_reduce, and thread 0 combines with the init and stores.
// CHECK-LABEL: func.func @rowmax
// CHECK: gpu.launch
// CHECK: linalg.fill
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c128{{.*}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c256
// CHECK: %[[TX:.+]] = gpu.thread_id  x
// CHECK: %[[P:.+]] = scf.for %[[J:.+]] = %[[TX]] to %c1000{{.*}} step %c256{{.*}} iter_args(%[[ACC:.+]] = %cst{{.*}}) -> (f32)
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%{{.+}}, %[[J]]] : memref<1x1000xf32
// CHECK: arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK: %[[R:.+]] = gpu.all_reduce  maximumf %[[P]] uniform
// CHECK: %[[INIT:.+]] = memref.load
// CHECK: %[[RES:.+]] = arith.maximumf %[[INIT]], %[[R]] : f32
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[TX]]
// CHECK: scf.if %[[IS0]]
// CHECK: memref.store %[[RES]]
// CHECK-NOT: linalg.generic
// CHECK: gpu.terminator
func.func @rowmax(%a: tensor<128x1000xf32>) -> tensor<128xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%a : tensor<128x1000xf32>) outs(%f : tensor<128xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.maximumf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128xf32>
}

// -----

// f16 row sum: accumulated in f32 (gpu.all_reduce on f32), truncated on store.
// CHECK-LABEL: func.func @rowsum_f16
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: memref.load {{.*}} : memref<1x512xf16
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: gpu.all_reduce  add %{{.+}} uniform
// CHECK-NEXT: } : (f32) -> f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @rowsum_f16(%a: tensor<64x512xf16>, %init: tensor<64xf16>) -> tensor<64xf16> {
  %r = linalg.reduce ins(%a : tensor<64x512xf16>) outs(%init : tensor<64xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  return %r : tensor<64xf16>
}

// -----

// Matmul: 64x64 tiles on 16x16 threads; the A (64x16) and B (16x64) K-tiles
// are staged in shared memory (launch workgroup attributions), with barriers
// around the copies.
// CHECK-LABEL: func.func @mm
// CHECK-NOT: memref.alloc() : memref<{{.*}}#gpu.address_space<workgroup>>
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c8{{.*}}, %{{.+}} = %c4{{.*}}, %{{.+}} = %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %c16{{.*}}, %{{.+}} = %c16{{.*}}, %{{.+}} = %{{.+}}) workgroup(%[[WB:.+]] : memref<16x64xf32, #gpu.address_space<workgroup>>, %[[WA:.+]] : memref<64x16xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c16
// CHECK: memref.subview %[[WA]]
// CHECK: memref.subview %[[WB]]
// CHECK: gpu.barrier
// CHECK: linalg.copy {{.*}} outs(%{{.+}} : memref<4x1xf32, {{.*}}#gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK: linalg.copy {{.*}} outs(%{{.+}} : memref<1x4xf32, {{.*}}#gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<4x16xf32, {{.*}}#gpu.address_space<workgroup>>, memref<16x4xf32, {{.*}}#gpu.address_space<workgroup>>) outs(%{{.+}} : memref<4x4xf32
// CHECK: gpu.barrier
// CHECK-NOT: memref.copy
// CHECK: gpu.terminator
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>, %c: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>) outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// A 0-d result: a single-thread kernel.
// CHECK-LABEL: func.func @total
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C1]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]]) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C1]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]])
// CHECK: linalg.generic
// CHECK: gpu.terminator
func.func @total(%a: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
