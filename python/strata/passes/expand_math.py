"""strata-expand-math: f32 exp, log, tanh and erf as polynomial arithmetic that vectorizes.

Upstream lowers ``math.exp``/``log``/``tanh``/``erf`` to libm calls, which keep
LLVM's loop vectorizer out of every loop that uses them, and MLIR 22's Python
bindings reach no polynomial-approximation pass. This pass rewrites each f32
op, scalar or ``vector<...xf32>`` (the row kernels of strata-row-kernels emit
vector ops), into arith/math ops with ``mlir.rewrite`` patterns
(passes/patterns.py). Sigmoid is ``1 / (1 + exp(-x))`` (lowering/elementwise.py),
so it is covered by exp. The polynomials were fitted for this project
(Chebyshev fits in float64, rounded to f32):

    %y = math.exp %x : f32
  =>
    %c = clamp(%x, -87.34, 88.72);  %t = %c * log2(e) + 1.5 * 2^23
    %n = %t - 1.5 * 2^23                           // round(c / ln2): k = bits(%t) - bits(1.5 * 2^23)
    %r = fma(%n, ln2_lo, fma(%n, -ln2_hi, %c))     // Cody-Waite reduction (n * ln2_hi exact)
    %p = 1 + %r * (1 + %r * poly5(%r))             // degree-7 polynomial, one fma chain
    %y = %p * 2^(n >> 1) * 2^(n - (n >> 1))        // bitcast((k + 127) << 23); +inf above, 0 below range

    %y = math.log %x : f32
  =>
    x = m * 2^e, m in [sqrt(1/2), sqrt(2)) (denormals scaled by 2^23 first), f = m - 1
    %y = f - f^2/2 + f^3 * poly8(f) + e * ln2_lo + e * ln2_hi
    (x == 0: -inf; x < 0 or NaN: NaN; +inf: +inf)

    %t = math.tanh %x : f32
  =>
    %e = expm1(min(2|x|, 20)) = 2^n * q + (2^n - 1), q = r + r^2 * poly5(r)  // exp's reduction
    %t = copysign(%e / (%e + 2), %x)               // one expression for every |x|: no selects
    (an argument never negative, passes/signs.py: relu(..) * 0.5 + 0.1, no abs and no copysign)

    %e = math.erf %x : f32
  =>
    |x| < 0.875: x + x * poly5(x^2);  |x| < 2.25: poly9(|x| - 1.5625);  |x| < 4: poly9(|x| - 3.125);
    else 1; with the sign of x

Maximum error, measured against float64 over a dense sweep of about 2.3M f32
inputs (every exponent with 4096 mantissas each, both signs, denormals, +-0,
+-inf, NaN and the edges of each piece; test/unit/test_math_ulp.py), in scalar,
vector<8xf32> and vector<16xf32> code alike:

    exp 1.00 ulp   log 0.75 ulp   tanh 2.32 ulp   erf 1.13 ulp   sigmoid 2.03 ulp

tanh was ``x + x^3 * poly(x^2)`` below 0.625 and ``1 - 2 / (exp(2|x|) + 1)`` above,
both computed and one selected (1.21 ulp): the expm1 form is 16 ops fewer and the
chain ``tanh(relu(x*w+b)*.5+.1)*2`` on 4096x4096 runs 5.9 -> 5.0 ms on 2 threads.

n is rounded by adding and taking back 1.5 * 2^23, and its integer read from the bits
of the sum: a vaddps and a vpsubd where ``floor(x + 0.5)`` and ``fptosi`` were a
vrndscaleps and a vcvttps2dq (the same error): exp on 4096x4096, 2 threads, 2.51 ->
2.41 ms.

A ``math.exp`` marked ``strata.nonpositive`` (its argument is <= 0 or NaN, as
strata-attention's ``x - rowmax`` is) skips the clamps and the overflow bound and
scales by 2^n with an integer add to p's exponent field: 15 ops instead of 26, the
same error. These kernels are bound by the two FMA pipes (a zmm op takes one for two
cycles on the AVX-512 EPYC), so the expansion keeps multiplies off them: p as one fma
chain down to the constant 1 (no ``r^2`` multiply, no final add) and the scale as a
vpaddd; softmax 4096x4096 on one thread 7.2 -> 6.4 ms, 0.34 -> 0.32 ns per element in
cache.

exp's results below 2^-126 flush to 0 (absolute error < 2^-126). NaN propagates;
exp(+inf) = +inf, exp(-inf) = 0, log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf,
tanh(+-inf) = +-1, erf(+-inf) = +-1. Other element types (f16/bf16 are computed
in f32 by the lowering) and other math ops are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, math

from .base import Pass, option
from .patterns import apply_greedily
from .signs import never_negative

__all__ = ["ExpandMathPass", "build_exp", "build_exp_nonpositive", "build_log", "build_tanh",
           "build_tanh_nonnegative",
           "build_erf", "expandable", "NONPOSITIVE"]

# On a math.exp whose argument is never positive (strata-attention's x - rowmax):
# the cheaper expansion, build_exp_nonpositive.
NONPOSITIVE = "strata.nonpositive"

_EXP_POLY = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1]
# (log1p(f) - f + f^2/2) / f^3 on [sqrt(1/2) - 1, sqrt(2) - 1], highest power first
_LOG_POLY = [0.07149752974510193, -0.115712009370327, 0.11661511659622192,
             -0.12411050498485565, 0.14249935746192932, -0.1666848063468933,
             0.20000708103179932, -0.24999989569187164, 0.3333333134651184]
# erf(x) / x - 1 as a polynomial in x^2 on [0, 0.875] (erf = x + x * poly: 2/sqrt(pi) unrounded)
_ERF_SMALL = [-0.0006218503112904727, 0.005035122390836477, -0.026793451979756355,
              0.11282510310411453, -0.3761255443096161, 0.12837915833883562]
# erf(t + 1.5625) on [0.875, 2.25] and erf(t + 3.125) on [2.25, 4], in t
_ERF_MID = [0.0013598072109743953, -0.0016453047282993793, -0.00557502219453454,
            0.017108064144849777, -0.008060291409492493, -0.0481678731739521,
            0.12711523473262787, -0.1534559577703476, 0.09821223467588425,
            0.9728745818138123]
_ERF_HIGH = [1.124764185078675e-05, -9.775828948477283e-05, 0.00027751189190894365,
             -0.00046266274875961244, 0.0005732450517825782, -0.0005545719177462161,
             0.00040052938857115805, -0.00020266789942979813, 6.473914254456758e-05,
             0.9999901056289673]

_OLT, _OGT, _OEQ, _ULT = (arith.CmpFPredicate.OLT, arith.CmpFPredicate.OGT,
                          arith.CmpFPredicate.OEQ, arith.CmpFPredicate.ULT)


def expandable(t: ir.Type) -> bool:
    """f32, or a vector of f32: the types this pass rewrites."""
    if isinstance(t, ir.VectorType):
        return isinstance(ir.VectorType(t).element_type, ir.F32Type)
    return isinstance(t, ir.F32Type)


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    """``element``, or a vector of it shaped like ``t``."""
    if isinstance(t, ir.VectorType):
        return ir.VectorType.get(ir.VectorType(t).shape, element)
    return element


def _const(t: ir.Type, value):
    """A scalar or splat constant of type ``t`` (f32 or i32 elements)."""
    element = ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t
    attr = ir.FloatAttr.get(element, value) if isinstance(element, ir.F32Type) else \
        ir.IntegerAttr.get(element, value)
    if isinstance(t, ir.VectorType):
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr).result


class _Builder:
    """Constants of one type (f32 or vector<...xf32>) and its i32 counterpart."""

    def __init__(self, x):
        self.t = x.type
        self.i = _like(self.t, ir.IntegerType.get_signless(32))

    def c(self, v):
        return _const(self.t, v)

    def ci(self, v):
        return _const(self.i, v)

    def horner(self, x, coeffs):
        acc = self.c(coeffs[0])
        for k in coeffs[1:]:
            acc = math.fma(acc, x, self.c(k))
        return acc

    def cmp(self, pred, a, b):
        return arith.cmpf(pred, a, b)


def build_exp(x):
    b = _Builder(x)
    hi, lo = 88.72283905206835, -87.3365447505531
    xc = arith.minimumf(arith.maximumf(x, b.c(lo)), b.c(hi))
    n, p = _exp_reduced(b, xc)
    # 2^n as 2^(n >> 1) * 2^(n - (n >> 1)): both factors stay normal floats for every n
    # in [-126, 128] (2^128 near the overflow bound, 2^-126 near the underflow bound).
    ni = _integer(b, n)
    n1 = arith.shrsi(ni, b.ci(1))
    n2 = arith.subi(ni, n1)
    y = arith.mulf(arith.mulf(p, _pow2(b, n1)), _pow2(b, n2))
    y = arith.select(b.cmp(_OGT, x, b.c(hi)), b.c(float("inf")), y)
    return arith.select(b.cmp(_OLT, x, b.c(lo)), b.c(0.0), y)


def build_exp_nonpositive(x):
    """exp for arguments known to be <= 0 (or NaN), as on a ``math.exp`` marked
    ``strata.nonpositive``: no overflow bound, and 2^n for n in [-126, 0] is one
    normal float, so a third fewer ops than build_exp; the same polynomial and error
    (0 below the underflow bound and for -inf; NaN propagates)."""
    b = _Builder(x)
    lo = -87.3365447505531
    # No clamp: below ``lo`` (n < -126, -inf) the factor 2^n and r are garbage or NaN, and
    # the select gives 0 there; NaN stays NaN through p.
    n, p = _exp_reduced(b, x)
    # p * 2^n as an integer add of n to p's exponent field: t's low 9 bits are n (two's
    # complement), shifted left by 23 they are n << 23. Exact while the result is a normal
    # float (p in (0.7, 1.42), n >= -125); a result below 2^-126 comes out with an
    # absolute error below 2^-126, as the documented flush to 0. A vpaddd where the
    # multiply took one of the FMA pipes, which bound this kernel.
    y = arith.bitcast(b.t, arith.addi(arith.bitcast(b.i, p),
                                      arith.shli(arith.bitcast(b.i, n.t), b.ci(23))))
    return arith.select(b.cmp(_OLT, x, b.c(lo)), b.c(0.0), y)


def _exp_reduced(b, x):
    """``(n, p)`` with ``exp(x) = p * 2^n``: n = round(x / ln2), p = exp(x - n ln2) by the
    polynomial. ``x - n * ln2_hi`` is one fma: ln2_hi has 9 significant bits, so
    ``n * ln2_hi`` is exact for |n| < 2^15 and the fma rounds as the subtraction would."""
    n, r = _exp_reduction(b, x)
    # 1 + r + r^2 * poly(r) as one Horner chain (two more fmas for the 1s): no r^2 multiply
    # and no final add on the multiply pipes, the same error
    return n, b.horner(r, _EXP_POLY + [1.0, 1.0])


# 1.5 * 2^23: x + _ROUND (|x| < 2^22) rounds x to an integer, held in the low mantissa bits
_ROUND = 12582912.0
_ROUND_BITS = 0x4B400000
# _ROUND + 127: the sum's low 9 bits are then n + 127, the biased exponent of 2^n, which
# one shift left by 23 moves into place (the bits above shift out; _ROUND's low 9 are 0)
_ROUND_BIASED = _ROUND + 127.0


class _Rounded:
    """round(v) as a float, from ``t = v + _ROUND`` (or ``_ROUND_BIASED``: one add in the
    default round-to-nearest mode, no vrndscale), and the same integer from t's bits (no
    float-to-int conversion): see :func:`_integer` and :func:`_pow2_biased`."""

    def __init__(self, b, t, biased=False):
        self.t, self.biased = t, biased
        self.value = arith.subf(t, b.c(_ROUND_BIASED if biased else _ROUND))


def _integer(b, n: _Rounded):
    """The i32 value of a :class:`_Rounded` (unbiased): t's bits less _ROUND's."""
    assert not n.biased
    return arith.subi(arith.bitcast(b.i, n.t), b.ci(_ROUND_BITS))


def _pow2_biased(b, n: _Rounded):
    """2^n of a biased :class:`_Rounded` with n in [-126, 127]: t's bits shifted left by
    23 (one vpslld where ``(k + 127) << 23`` from the integer is two integer ops)."""
    assert n.biased
    return arith.bitcast(b.t, arith.shli(arith.bitcast(b.i, n.t), b.ci(23)))


def _expm1_reduced(b, x, biased=False):
    """``(n, q)`` with ``exp(x) = 2^n * (q + 1)``, ``q = expm1(r)`` by the polynomial
    (relative error ~1 ulp even where r is tiny: ``r + r^2 * poly(r)``); n is a
    :class:`_Rounded` (|x| < 2^21). ``r = x - n ln2`` in two fmas (ln2 = hi - lo)."""
    n, r = _exp_reduction(b, x, biased)
    return n, _expm1_poly(b, r)


def _exp_reduction(b, x, biased=False):
    """``(n, r)``: n = round(x / ln2) (a :class:`_Rounded`), r = x - n ln2 in two fmas."""
    magic = _ROUND_BIASED if biased else _ROUND
    n = _Rounded(b, math.fma(x, b.c(1.44269504088896341), b.c(magic)), biased)
    r = math.fma(n.value, b.c(-0.693359375), x)
    return n, math.fma(n.value, b.c(2.12194440e-4), r)


def _expm1_poly(b, r):
    r2 = arith.mulf(r, r)
    return math.fma(b.horner(r, _EXP_POLY), r2, r)


def _pow2(b, k):
    """2^k as a float, for an i32 ``k`` in [-126, 127]: its bits, ``(k + 127) << 23``."""
    return arith.bitcast(b.t, arith.shli(arith.addi(k, b.ci(127)), b.ci(23)))


def build_log(x):
    b = _Builder(x)
    # denormals: scale into the normal range first (2^23), and take 23 off the exponent
    tiny = b.cmp(_OLT, x, b.c(1.1754943508222875e-38))
    xs = arith.select(tiny, arith.mulf(x, b.c(8388608.0)), x)
    bits = arith.bitcast(b.i, xs)
    e = arith.subi(arith.shrui(bits, b.ci(23)), b.ci(126))      # x = m * 2^e, m in [0.5, 1)
    e = arith.subi(e, arith.select(tiny, b.ci(23), b.ci(0)))
    m = arith.bitcast(b.t, arith.ori(arith.andi(bits, b.ci(0x007FFFFF)), b.ci(0x3F000000)))
    low = b.cmp(_OLT, m, b.c(0.7071067811865476))                # m < sqrt(1/2): use 2m, e - 1
    ef = arith.subf(arith.sitofp(b.t, e), arith.select(low, b.c(1.0), b.c(0.0)))
    f = arith.subf(arith.select(low, arith.addf(m, m), m), b.c(1.0))
    z = arith.mulf(f, f)
    y = arith.mulf(arith.mulf(z, f), b.horner(f, _LOG_POLY))
    y = math.fma(ef, b.c(-2.12194440e-4), y)
    y = math.fma(z, b.c(-0.5), y)
    r = math.fma(ef, b.c(0.693359375), arith.addf(f, y))
    r = arith.select(b.cmp(_OEQ, x, b.c(float("inf"))), b.c(float("inf")), r)
    r = arith.select(b.cmp(_ULT, x, b.c(0.0)), b.c(float("nan")), r)  # x < 0 or NaN
    return arith.select(b.cmp(_OEQ, x, b.c(0.0)), b.c(float("-inf")), r)


def build_tanh(x):
    b = _Builder(x)
    return math.copysign(_tanh_nonnegative(b, math.absf(x)), x)


def build_tanh_nonnegative(x):
    """tanh of an argument that is never negative (passes/signs.py): no abs, no sign."""
    return _tanh_nonnegative(_Builder(x), x)


def _tanh_nonnegative(b, ax):
    # tanh|x| = e / (e + 2) with e = expm1(2|x|), one expression over the whole range:
    # expm1(y) = 2^n * expm1(r) + (2^n - 1) keeps its relative accuracy for small y
    # (n = 0: e = expm1(r), no cancellation). y is clamped to 20: past it tanh rounds to
    # 1 in f32 (NaN stays NaN), so 2^n is one normal factor (n <= 29).
    y = arith.minimumf(arith.mulf(ax, b.c(2.0)), b.c(20.0))
    n, em1 = _expm1_reduced(b, y, biased=True)
    s = _pow2_biased(b, n)
    e = math.fma(s, em1, arith.subf(s, b.c(1.0)))
    return arith.divf(e, arith.addf(e, b.c(2.0)))


def build_erf(x):
    b = _Builder(x)
    ax = math.absf(x)
    small = math.fma(x, b.horner(arith.mulf(x, x), _ERF_SMALL), x)
    mid = b.horner(arith.subf(ax, b.c(1.5625)), _ERF_MID)
    high = b.horner(arith.subf(ax, b.c(3.125)), _ERF_HIGH)
    large = arith.select(b.cmp(_OLT, ax, b.c(2.25)), mid, high)
    large = arith.select(b.cmp(_OGT, ax, b.c(4.0)), b.c(1.0), large)  # NaN stays NaN
    large = math.copysign(large, x)
    return arith.select(b.cmp(_OLT, ax, b.c(0.875)), small, large)


_BUILDERS = {"math.exp": build_exp, "math.log": build_log, "math.tanh": build_tanh,
             "math.erf": build_erf}


def _expand(build):
    def pattern(op, rewriter) -> bool:
        if not expandable(op.results[0].type):
            return False
        if build is build_exp and NONPOSITIVE in op.attributes:
            build_here = build_exp_nonpositive
        elif build is build_tanh and never_negative(op.operands[0]):
            build_here = build_tanh_nonnegative
        else:
            build_here = build
        with rewriter.ip, op.location:
            value = build_here(op.operands[0])
        rewriter.replace_op(op, [value])
        return True

    return pattern


@dataclass(frozen=True, eq=False, repr=False)
class ExpandMathPass(Pass):
    """Rewrite f32 (scalar and vector) math.exp/log/tanh/erf into polynomial arithmetic."""

    name = "strata-expand-math"
    exp: bool = option(True, help="Expand f32 math.exp")
    log: bool = option(True, help="Expand f32 math.log")
    tanh: bool = option(True, help="Expand f32 math.tanh")
    erf: bool = option(True, help="Expand f32 math.erf")

    def run(self, module: ir.Operation) -> None:
        on = {"math.exp": self.exp, "math.log": self.log, "math.tanh": self.tanh,
              "math.erf": self.erf}
        patterns = [(name, _expand(build)) for name, build in _BUILDERS.items() if on[name]]
        if patterns:
            # tanh's expansion makes no math.exp (it inlines build_exp): one sweep converges.
            apply_greedily(module, patterns)
