"""Which LLVM modules strata cuts in parts for parallel code generation
(runtime/llvm_split.py ``worth_splitting``), and llvm-split's own answer on one."""

import os

import pytest

from strata.runtime import aot, llvm_split

_F = "define void @f(ptr %0) {\n  ret void\n}\n"
_PAR = "define internal void @f..omp_par(ptr noalias %t, ptr noalias %z, ptr %0) {\n  ret void\n}\n"
_PAR1 = "define internal void @f..omp_par.1(ptr noalias %t, ptr noalias %z, ptr %0) {\n  ret void\n}\n"
_CIFACE = "define void @_mlir_ciface_f(ptr %0) {\n  call void @f(ptr %0)\n  ret void\n}\n"
_HELPER = "define internal float @helper(float %x) {\n  ret float %x\n}\n"


@pytest.mark.parametrize("ir, parts, want", [
    (_F + _PAR + _CIFACE, 2, True),
    (_F + _PAR + _PAR1 + _CIFACE, 2, True),
    (_F + _PAR + _CIFACE, 3, True),
    (_F + _PAR + _CIFACE, 4, False),          # fewer definitions than parts
    (_F + _CIFACE, 2, False),                 # no parallel region: nothing to gain
    (_F + _PAR + _CIFACE + _HELPER, 2, False),  # a helper a loop may want inlined
    ("declare void @f..omp_par(ptr)\n" + _F + _CIFACE, 2, False),  # declared, not defined
])
def test_worth_splitting(ir, parts, want):
    assert llvm_split.worth_splitting(ir, parts) is want


def test_llvm_split_deals_the_definitions_out(tmp_path):
    ir = ("declare void @use(ptr)\n" +
          _F.replace("ret void", "call void @use(ptr @f..omp_par)\n  ret void") +
          _PAR + _CIFACE)
    proc = llvm_split.start_split(aot._bin("llvm", "llvm-split"), 2, str(tmp_path))
    parts = llvm_split.finish_split(proc, ir, str(tmp_path), 2)
    assert isinstance(parts, list) and len(parts) == 2
    assert all(p.startswith(b"BC") for p in parts)  # bitcode


def test_a_failing_split_returns_its_error(tmp_path):
    proc = llvm_split.start_split(aot._bin("llvm", "llvm-split"), 2, str(tmp_path))
    out = llvm_split.finish_split(proc, "not LLVM IR", str(tmp_path), 2)
    assert isinstance(out, str) and out.startswith("llvm-split exit")
    assert not os.path.exists(tmp_path / "part0")
