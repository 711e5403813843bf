"""strata-expand-math: f32 exp and tanh as polynomial arithmetic that vectorizes.

Upstream lowers ``math.exp``/``math.tanh`` to libm calls, which keep LLVM's loop
vectorizer out of every loop that uses them. This pass rewrites each scalar f32
``math.exp`` and ``math.tanh`` into arith/math ops (Cephes-style):

    %y = math.exp %x : f32
  =>
    %c = clamp(%x, -87.34, 88.72);  %n = floor(%c * log2(e) + 0.5)
    %r = %c - %n * ln2_hi - %n * ln2_lo          // Cody-Waite reduction
    %p = 1 + %r + %r^2 * poly5(%r)                 // degree-7 minimax
    %y = %p * 2^(n >> 1) * 2^(n - (n >> 1))        // bitcast((k + 127) << 23); +inf above, 0 below range

    %t = math.tanh %x : f32
  =>
    |x| < 0.625: x + x * z * poly4(z), z = x^2;  else sign(x) * (1 - 2 / (exp(2|x|) + 1))

NaN propagates; exp(+inf) = +inf, exp(-inf) = 0; tanh(+-inf) = +-1. Maximum
error is a few ulp. Other types and other math ops are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, math

from .base import Pass, option

__all__ = ["ExpandMathPass", "build_exp", "build_tanh"]

_EXP_POLY = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1]
_TANH_POLY = [-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
              -3.33332819422e-1]


def _c(v):
    return arith.constant(ir.F32Type.get(), v)


def _horner(x, coeffs):
    acc = _c(coeffs[0])
    for k in coeffs[1:]:
        acc = math.fma(acc, x, _c(k))
    return acc


def build_exp(x):
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    hi, lo = 88.72283905206835, -87.3365447505531
    xc = arith.minimumf(arith.maximumf(x, _c(lo)), _c(hi))
    n = math.floor(math.fma(xc, _c(1.44269504088896341), _c(0.5)))
    r = arith.subf(xc, arith.mulf(n, _c(0.693359375)))
    r = arith.subf(r, arith.mulf(n, _c(-2.12194440e-4)))
    r2 = arith.mulf(r, r)
    p = arith.addf(math.fma(_horner(r, _EXP_POLY), r2, r), _c(1.0))
    # 2^n as 2^(n >> 1) * 2^(n - (n >> 1)): both factors stay normal floats for every n
    # in [-126, 128] (2^128 near the overflow bound, 2^-126 near the underflow bound).
    ni = arith.fptosi(i32, n)
    n1 = arith.shrsi(ni, arith.constant(i32, 1))
    n2 = arith.subi(ni, n1)

    def pow2(k):
        bits = arith.shli(arith.addi(k, arith.constant(i32, 127)), arith.constant(i32, 23))
        return arith.bitcast(f32, bits)

    y = arith.mulf(arith.mulf(p, pow2(n1)), pow2(n2))
    y = arith.select(arith.cmpf(arith.CmpFPredicate.OGT, x, _c(hi)), _c(float("inf")), y)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, _c(lo)), _c(0.0), y)


def build_tanh(x):
    ax = math.absf(x)
    z = arith.mulf(x, x)
    small = math.fma(arith.mulf(_horner(z, _TANH_POLY), z), x, x)
    e = build_exp(arith.mulf(ax, _c(2.0)))
    large = arith.subf(_c(1.0), arith.divf(_c(2.0), arith.addf(e, _c(1.0))))
    large = math.copysign(large, x)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, _c(0.625)), small, large)


@dataclass(frozen=True)
class ExpandMathPass(Pass):
    """Rewrite f32 math.exp and math.tanh into polynomial arithmetic that vectorizes."""

    name = "strata-expand-math"
    exp: bool = option(True, help="Expand f32 math.exp")
    tanh: bool = option(True, help="Expand f32 math.tanh")

    def run(self, module: ir.Operation) -> None:
        targets = []
        names = {n for n, on in (("math.exp", self.exp), ("math.tanh", self.tanh)) if on}

        def visit(op):
            if op.name in names and isinstance(op.results[0].type, ir.F32Type):
                targets.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for op in targets:
            with ir.InsertionPoint(op), op.location:
                build = build_exp if op.name == "math.exp" else build_tanh
                value = build(op.operands[0])
            op.results[0].replace_all_uses_with(value)
            op.erase()
