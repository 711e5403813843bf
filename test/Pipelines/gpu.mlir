// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-gpu{compile-to=gpu})' | FileCheck %s --check-prefix=GPU --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref.copy --implicit-check-not=strata.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-gpu{compile-to=nvvm})' | FileCheck %s --check-prefix=NVVM --implicit-check-not=gpu.func --implicit-check-not='gpu.launch blocks' --implicit-check-not=scf.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-gpu{format=isa})' | FileCheck %s --check-prefix=ISA --implicit-check-not=gpu.module --implicit-check-not=func.func --implicit-check-not=memref. --implicit-check-not=scf. --implicit-check-not=arith.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-gpu{compile-to=gpu resident=true})' | FileCheck %s --check-prefix=RES --implicit-check-not=gpu.memcpy --implicit-check-not=memref.alloc

// The strata-gpu pipeline on matmul + bias + relu + softmax (64x32 @ 32x128).

// gpu: kernels outlined; the host function takes its result as an out-param,
// moves buffers to the device and back on one async chain.
// GPU-LABEL: func.func @f
// GPU-SAME: (%[[X:.+]]: memref<64x32xf32>, %{{.+}}: memref<32x128xf32>, %{{.+}}: memref<128xf32>, %[[OUT:.+]]: memref<64x128xf32>)
// GPU-NOT: -> memref
// GPU: %[[W0:.+]] = gpu.wait async
// GPU: %[[DX:.+]], %[[T0:.+]] = gpu.alloc async [%[[W0]]] () : memref<64x32xf32>
// GPU: gpu.memcpy async [%[[T0]]] %[[DX]], %[[X]] : memref<64x32xf32>, memref<64x32xf32>
// matmul: 2 blocks of 16x16 threads
// GPU: gpu.launch_func async [%{{.+}}] @f_kernel_0::@f_kernel blocks in (%c2, %c1, %c1) threads in (%c16, %c16, %c1)
// softmax max and sum: one block per row (64 rows), 128 threads
// GPU: gpu.launch_func async [%{{.+}}] @f_kernel_3::@f_kernel blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1)
// GPU: gpu.launch_func async [%{{.+}}] @f_kernel_6::@f_kernel blocks in (%c64, %c1, %c1) threads in (%c128, %c1, %c1)
// GPU: %[[C:.+]] = gpu.memcpy async [%{{.+}}] %[[OUT]], %{{.+}} : memref<64x128xf32>, memref<64x128xf32>
// GPU: gpu.dealloc async [%[[C]]] %[[DX]] : memref<64x32xf32>
// GPU: gpu.wait [%{{.+}}]
// GPU-NEXT: return
// resident=true: the same kernels on the caller's device buffers: no copies,
// the last kernel writes the out-param, temporaries are freed on the chain.
// RES-LABEL: func.func @f
// RES-SAME: (%[[X:.+]]: memref<64x32xf32>, %[[W:.+]]: memref<32x128xf32>, %[[B:.+]]: memref<128xf32>, %[[OUT:.+]]: memref<64x128xf32>) {
// RES: gpu.launch_func async [%{{.+}}] @f_kernel_0::@f_kernel blocks in (%c2, %c1, %c1) threads in (%c16, %c16, %c1) args(%[[W]] : memref<32x128xf32>, %{{.+}} : memref<64x128xf32>, %[[X]] : memref<64x32xf32>
// RES: gpu.launch_func async [%{{.+}}] @f_kernel_1::@f_kernel {{.*}} args(%{{.+}} : memref<64x128xf32>, %[[OUT]] : memref<64x128xf32>, %[[B]] : memref<128xf32>
// RES: gpu.launch_func async [%{{.+}}] @f_kernel_7::@f_kernel {{.*}} %[[OUT]] : memref<64x128xf32>
// RES: gpu.dealloc async
// RES: gpu.wait [%{{.+}}]
// RES-NEXT: return{{$}}

// the matmul kernel: K tiles in shared memory (workgroup attributions), barriers
// GPU-LABEL: gpu.module @f_kernel_0
// GPU: gpu.func @f_kernel({{.*}}) workgroup(%{{.+}} : memref<16x64xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<64x16xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 16, 16, 1>, known_grid_size = array<i32: 2, 1, 1>}
// GPU: gpu.barrier
// GPU: memref.store %{{.+}} : memref<4x1xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: arith.mulf
// GPU: arith.addf
// GPU: gpu.barrier
// GPU: gpu.return
// the row max of softmax
// GPU-LABEL: gpu.module @f_kernel_3
// GPU: gpu.func @f_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 64, 1, 1>}
// GPU: gpu.all_reduce  maxnumf
// GPU-LABEL: gpu.module @f_kernel_6
// GPU: gpu.all_reduce  add
// GPU: gpu.return

// nvvm: kernels are LLVM functions with NVVM intrinsics; shared memory is
// address space 3; gpu.all_reduce became warp shuffles.
// NVVM: gpu.module @f_kernel_0 [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// NVVM: llvm.mlir.global internal @__wg_f_kernel_0() {addr_space = 3 : i32} : !llvm.array<1024 x f32>
// NVVM: llvm.mlir.global internal @__wg_f_kernel_1() {addr_space = 3 : i32} : !llvm.array<1024 x f32>
// NVVM: llvm.func @f_kernel({{.*}}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 16, 16, 1>, {{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 16, 16, 1>}
// NVVM: nvvm.read.ptx.sreg.tid.x
// NVVM: nvvm.barrier0
// NVVM: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// NVVM-LABEL: gpu.module @f_kernel_3
// NVVM: nvvm.shfl.sync bfly
// NVVM: llvm.intr.maxnum

// isa: everything on the host is LLVM; each kernel module is PTX for sm_90
// with shared memory and barriers where the matmul needs them.
// ISA: llvm.func @f(
// ISA: gpu.launch_func
// ISA: gpu.binary @f_kernel_0  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}assembly = "{{.*}}.target sm_90{{.*}}.shared .align {{[0-9]+}} .b8 __wg_f_kernel_0[4096]{{.*}}bar.sync{{.*}}">]
// ISA: gpu.binary @f_kernel_3  [#gpu.object<{{.*}}assembly = "{{.*}}shfl.sync.bfly.b32{{.*}}">]

func.func @f(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<64x32xf32>, tensor<32x128xf32>) -> tensor<64x128xf32>
  %1 = "strata.add"(%0, %b) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %2 = "strata.relu"(%1) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %3 = "strata.softmax"(%2) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %3 : tensor<64x128xf32>
}
