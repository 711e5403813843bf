// REQUIRES: ptxas
// RUN: strata-opt %s --strata-gpu | FileCheck %s --implicit-check-not=gpu.module --implicit-check-not=gpu.func --implicit-check-not='gpu.launch blocks' --implicit-check-not=memref. --implicit-check-not=linalg. --implicit-check-not=scf. --implicit-check-not=func.func --implicit-check-not=unrealized_conversion_cast
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-gpu{chip=sm_80 features=+ptx70})' | FileCheck %s --check-prefix=SM80

// --strata-gpu (format=bin): each kernel module is a cubin (ptxas runs at
// compile time); the host is LLVM with gpu.launch_func left for the LLVM
// translation to turn into mgpuLaunchKernel.
// CHECK-LABEL: llvm.func @g(
// CHECK: llvm.call @mgpuStreamCreate
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: gpu.launch_func <%{{.+}} : !llvm.ptr> @g_kernel::@g_kernel blocks in
// CHECK: llvm.call @mgpuMemFree
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.call @mgpuStreamDestroy
// CHECK: gpu.binary @g_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}bin = "\7FELF
// CHECK: gpu.binary @g_kernel_0  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}bin = "\7FELF

// SM80: gpu.binary @g_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">, {{.*}}bin = "\7FELF

func.func @g(%x: tensor<256x512xf32>) -> tensor<256xf32> {
  %0 = "strata.exp"(%x) : (tensor<256x512xf32>) -> tensor<256x512xf32>
  %1 = "strata.sum"(%0) {axes = array<i64: 1>} : (tensor<256x512xf32>) -> tensor<256xf32>
  return %1 : tensor<256xf32>
}
