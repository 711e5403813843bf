"""strata elementwise ops -> one linalg.generic each, with numpy broadcasting maps.

    %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  =>
    %e = tensor.empty() : tensor<4x8xf32>
    %0 = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1),
                                          (d0, d1) -> (d0, d1)], iterator_types = [parallel, parallel]}
           ins(%a, %b) outs(%e) { ^bb0(%x, %y, %o): %s = arith.addf %x, %y; linalg.yield %s }

f16 and bf16 compute in f32 inside the body and round once when storing.

No lowering emits a division that can trap. strata.div is floating-point only
(the verifier rejects integer operands). Integer floor_div and mod divide by a
guarded divisor and select numpy's results for the two cases that would trap:

    %bad = (%b == 0) | (%b == -1);  %safe = select %bad, 1, %b
    %q = divsi %a, %safe;  %r = remsi %a, %safe      (then rounded toward -inf)
    floor_div = select(%b == 0, 0, select(%b == -1, 0 - %a, %q))   INT_MIN // -1 wraps
    mod       = select(%bad, 0, %r)

Float floor_div and mod follow numpy's npy_divmod step by step (fmod, then the
sign fix-up and the snap to an integer), so results are bit-identical to numpy.
"""

from __future__ import annotations

import math as pymath

from mlir import ir
from mlir.dialects import arith, math

from .common import (
    LoweringError,
    compute_type,
    convert,
    is_float,
    map_elementwise,
    rtype,
    scalar,
)

_FLOAT_BINARY = {
    "add": arith.addf, "sub": arith.subf, "mul": arith.mulf, "div": arith.divf,
    "maximum": arith.maximumf, "minimum": arith.minimumf, "pow": math.powf,
}
_INT_BINARY = {
    "add": arith.addi, "sub": arith.subi, "mul": arith.muli,
    "maximum": arith.maxsi, "minimum": arith.minsi,
}
_FLOAT_CMP = {"eq": "OEQ", "ne": "UNE", "lt": "OLT", "le": "OLE", "gt": "OGT", "ge": "OGE"}
_INT_CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}


def _gelu(x, approximate):
    t = x.type
    half, one = scalar(t, 0.5), scalar(t, 1.0)
    if approximate == "tanh":
        c = scalar(t, pymath.sqrt(2.0 / pymath.pi))
        k = scalar(t, 0.044715)
        x3 = arith.mulf(arith.mulf(x, x), x)
        inner = arith.mulf(c, arith.addf(x, arith.mulf(k, x3)))
        return arith.mulf(arith.mulf(half, x), arith.addf(one, math.tanh(inner)))
    erf = math.erf(arith.mulf(x, scalar(t, 1.0 / pymath.sqrt(2.0))))
    return arith.mulf(arith.mulf(half, x), arith.addf(one, erf))


def _unary_scalar(name, x, approximate="none"):
    t = x.type
    if is_float(t):
        if name == "neg":
            return arith.negf(x)
        if name == "abs":
            return math.absf(x)
        if name == "relu":
            # max(x, 0) that keeps NaN (arith.maximumf propagates NaN, as numpy does).
            return arith.maximumf(x, scalar(t, 0.0))
        if name == "sigmoid":
            one = scalar(t, 1.0)
            return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))
        if name == "gelu":
            return _gelu(x, approximate)
        if name == "sign":  # NaN and -0.0 pass through, as numpy's sign
            one, zero = scalar(t, 1.0), scalar(t, 0.0)
            neg = arith.select(_cmpf("OLT", x, zero), scalar(t, -1.0), x)
            return arith.select(_cmpf("OGT", x, zero), one, neg)
        return {"exp": math.exp, "log": math.log, "sqrt": math.sqrt, "rsqrt": math.rsqrt,
                "tanh": math.tanh, "erf": math.erf, "sin": math.sin, "cos": math.cos,
                "floor": math.floor, "ceil": math.ceil, "round": math.roundeven}[name](x)
    if name == "neg":
        return arith.subi(scalar(t, 0), x)
    if name == "abs":
        return math.absi(x)
    if name == "relu":
        return arith.maxsi(x, scalar(t, 0))
    if name == "sign":
        zero = scalar(t, 0)
        neg = arith.select(_cmpi("slt", x, zero), scalar(t, -1), zero)
        return arith.select(_cmpi("sgt", x, zero), scalar(t, 1), neg)
    raise AssertionError(name)


def _cmpi(pred, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _cmpf(pred, a, b):
    return arith.cmpf(getattr(arith.CmpFPredicate, pred), a, b)


def _int_pow(a, b):
    """Integer ``a ** b``: repeated squaring (``math.ipowi``) for ``b >= 0``; for ``b < 0``
    what truncating ``1 / a**|b|`` gives: 1 for a == 1, +-1 for a == -1 (the sign of an odd
    power), else 0, with 0 ** b == 0 (numpy raises; here no division is done)."""
    t = a.type
    zero, one = scalar(t, 0), scalar(t, 1)
    negative = _cmpi("slt", b, zero)
    power = math.ipowi(a, arith.select(negative, zero, b))
    odd = _cmpi("ne", arith.andi(b, one), zero)
    minus_one = arith.select(odd, scalar(t, -1), one)
    inverse = arith.select(_cmpi("eq", a, one), one,
                           arith.select(_cmpi("eq", a, scalar(t, -1)), minus_one, zero))
    return arith.select(negative, inverse, power)


def _int_floor_div_mod(name, a, b):
    """numpy's integer ``a // b`` or ``a % b``, with no division that can trap."""
    t = a.type
    zero, one = scalar(t, 0), scalar(t, 1)
    by_zero = _cmpi("eq", b, zero)
    by_minus_one = _cmpi("eq", b, scalar(t, -1))
    unsafe = arith.ori(by_zero, by_minus_one)
    safe = arith.select(unsafe, one, b)  # never 0 or -1: divsi/remsi cannot trap
    q, r = arith.divsi(a, safe), arith.remsi(a, safe)  # rounded toward zero
    # Round toward -inf: a nonzero remainder whose sign differs from the divisor's.
    adjust = arith.andi(_cmpi("ne", r, zero),
                        arith.xori(_cmpi("slt", r, zero), _cmpi("slt", safe, zero)))
    if name == "floor_div":
        q = arith.select(adjust, arith.subi(q, one), q)
        negated = arith.subi(zero, a)  # a // -1 == -a, wrapping: INT_MIN // -1 == INT_MIN
        return arith.select(by_zero, zero, arith.select(by_minus_one, negated, q))
    r = arith.select(adjust, arith.addi(r, safe), r)
    return arith.select(unsafe, zero, r)  # a % 0 == 0, a % -1 == 0


def _float_floor_div_mod(name, a, b):
    """numpy's float ``a // b`` or ``a % b`` (npy_divmod, npy_floor_divide, npy_remainder)."""
    t = a.type
    zero, one = scalar(t, 0.0), scalar(t, 1.0)
    by_zero = _cmpf("OEQ", b, zero)  # numpy's `!b`: +0 and -0, not NaN
    mod = arith.remf(a, b)  # C fmod: exact
    mod_nonzero = _cmpf("UNE", mod, zero)  # C's `if (mod)`: NaN counts as nonzero
    adjust = arith.andi(mod_nonzero, arith.xori(_cmpf("OLT", b, zero), _cmpf("OLT", mod, zero)))
    if name == "mod":
        fixed = arith.select(adjust, arith.addf(mod, b),
                             arith.select(mod_nonzero, mod, math.copysign(zero, b)))
        return arith.select(by_zero, mod, fixed)  # a % 0 is fmod(a, 0): NaN
    div = arith.divf(arith.subf(a, mod), b)  # very nearly an integer
    div = arith.select(adjust, arith.subf(div, one), div)
    floor = math.floor(div)
    snap_up = _cmpf("OGT", arith.subf(div, floor), scalar(t, 0.5))
    floor = arith.select(snap_up, arith.addf(floor, one), floor)
    quotient = arith.divf(a, b)
    floor = arith.select(_cmpf("UNE", div, zero), floor, math.copysign(zero, quotient))
    return arith.select(by_zero, quotient, floor)  # a // 0 is a / 0: +-inf or NaN


def lower_binary(op, name):
    result_type = rtype(op.result)
    elem = result_type.element_type
    ct = compute_type(elem)
    if name == "div" and not is_float(elem):  # the verifier rejects these first
        raise LoweringError("integer div is not supported (it could trap): use floor_div, "
                            "or cast to a float type")

    def body(a, b):
        if is_float(elem):
            a, b = convert(a, ct), convert(b, ct)
            if name in ("floor_div", "mod"):
                return convert(_float_floor_div_mod(name, a, b), elem)
            return convert(_FLOAT_BINARY[name](a, b), elem)
        if name in ("floor_div", "mod"):
            return _int_floor_div_mod(name, a, b)
        if name == "pow":
            return _int_pow(a, b)
        return _INT_BINARY[name](a, b)

    return map_elementwise(list(op.operands), result_type, body)


def lower_unary(op, name):
    result_type = rtype(op.result)
    elem = result_type.element_type
    ct = compute_type(elem)
    approximate = "none"
    if "approximate" in op.attributes:
        approximate = ir.StringAttr(op.attributes["approximate"]).value
    return map_elementwise([op.operands[0]], result_type,
                           lambda a: convert(_unary_scalar(name, convert(a, ct), approximate),
                                             elem))


BOOL_STORAGE = 8  # i1 tensors are stored as i8 0/1: LLVM cannot lay out i1 buffers


def lower_compare(op):
    """The comparison as an i8 0/1 tensor (see BOOL_STORAGE); i1 only inside bodies."""
    shape = list(rtype(op.result).shape)
    i8 = ir.IntegerType.get_signless(BOOL_STORAGE)
    result_type = ir.RankedTensorType.get(shape, i8)
    pred = ir.StringAttr(op.attributes["predicate"]).value
    elem = rtype(op.operands[0]).element_type

    def body(a, b):
        if is_float(elem):
            ct = compute_type(elem)
            bit = arith.cmpf(getattr(arith.CmpFPredicate, _FLOAT_CMP[pred]), convert(a, ct),
                             convert(b, ct))
        else:
            bit = arith.cmpi(getattr(arith.CmpIPredicate, _INT_CMP[pred]), a, b)
        return arith.extui(i8, bit)

    return map_elementwise(list(op.operands), result_type, body)


def as_bit(c):
    """An i1 from a condition element stored as i1 or as i8 0/1."""
    if ir.IntegerType(c.type).width == 1:
        return c
    return arith.cmpi(arith.CmpIPredicate.ne, c, arith.constant(c.type, 0))


def narrow_bool(value):
    """An i8 0/1 tensor as an i1 tensor (for uses outside strata, e.g. func.return)."""
    shape = list(rtype(value).shape)
    i1 = ir.IntegerType.get_signless(1)
    return map_elementwise([value], ir.RankedTensorType.get(shape, i1), as_bit, i1)


def lower_select(op):
    return map_elementwise(list(op.operands), rtype(op.result),
                           lambda c, t, f: arith.select(as_bit(c), t, f))


def lower_cast(op):
    """A conversion; a bool input (i1, or its i8 storage) becomes 1 or 0 of the result type."""
    result_type = rtype(op.result)
    elem = result_type.element_type
    source = rtype(op.operands[0]).element_type
    if isinstance(source, ir.IntegerType) and source.width in (1, BOOL_STORAGE):
        return map_elementwise([op.operands[0]], result_type,
                               lambda a: arith.select(as_bit(a), scalar(elem, 1),
                                                      scalar(elem, 0)))
    return map_elementwise([op.operands[0]], result_type, lambda a: convert(a, elem))


def lower_broadcast_to(op):
    return map_elementwise([op.operands[0]], rtype(op.result), lambda a: a)
