//===- StrataOps.td - the strata tensor dialect ------------*- tablegen -*-===//
//
// The single source of the strata op set. The build generates from this file:
//   * Python op classes   (mlir-tblgen -gen-python-op-bindings)
//   * the IRDL module that registers the ops at run time (dialects/gen_irdl.py)
//   * the dialect reference (mlir-tblgen -gen-op-doc)
//
// Shape and dtype rules are not expressible as IRDL constraints that a dynamic
// dialect evaluates; they live in python/strata/dialect/shapes.py and are
// enforced by the strata verifier (strata-verify, and after every parse).
//
//===----------------------------------------------------------------------===//

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Strata_Dialect : Dialect {
  let name = "strata";
  let cppNamespace = "::strata";
  let summary = "Tensor-level operations of ML programs, with numpy semantics.";
  let description = [{
    Every value is a builtin ranked tensor (`tensor<4x?xf32>`); dims may be
    dynamic. Element types are `f32`, `f16`, `bf16`, `i32`, `i64` and, for the
    results of `strata.compare`, `i1`. Elementwise ops broadcast their operands
    the way numpy does: shapes are aligned at the trailing dim, and a dim of
    size 1 stretches to the other operand's size. No op traps at run time:
    integer `floor_div` and `mod` give numpy's results for a zero divisor and
    for `INT_MIN // -1`, and `div` is floating-point only. Axes attributes accept
    negative values, counted from the last dim, as numpy does.
  }];
}

class Strata_Op<string mnemonic, list<Trait> traits = []>
    : Op<Strata_Dialect, mnemonic, !listconcat(traits, [Pure])>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Strata_BinaryOp<string mnemonic, string formula, string extra = "">
    : Strata_Op<mnemonic> {
  let summary = "elementwise `" # formula # "` with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` element by element. `lhs` and `rhs` have the
    same element type; their shapes broadcast as in numpy to the result shape.
    Floating-point results follow IEEE-754 (NaN propagates). Integer results
    wrap around on overflow (two's complement), as numpy's int32 does. }] # extra;
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_AddOp : Strata_BinaryOp<"add", "lhs + rhs">;
def Strata_SubOp : Strata_BinaryOp<"sub", "lhs - rhs">;
def Strata_MulOp : Strata_BinaryOp<"mul", "lhs * rhs">;
def Strata_DivOp : Strata_BinaryOp<"div", "lhs / rhs", [{
    Floating-point operands only (division by zero gives +-inf, `0 / 0` NaN).
    The verifier rejects integer operands: numpy's `/` on integers is true
    division, which the Python front end builds as `strata.cast` to f32 then
    `strata.div`; numpy's `//` is `strata.floor_div`. So no integer division
    that could trap (by zero, or `INT_MIN / -1`) is ever lowered from it.
  }]>;
def Strata_MaximumOp : Strata_BinaryOp<"maximum", "max(lhs, rhs)">;
def Strata_MinimumOp : Strata_BinaryOp<"minimum", "min(lhs, rhs)">;
def Strata_PowOp : Strata_BinaryOp<"pow", "lhs ** rhs">;

def Strata_FloorDivOp : Strata_BinaryOp<"floor_div", "floor(lhs / rhs)", [{
    numpy's `floor_divide` (`lhs // rhs`), on f32, f16, bf16 and i32; never traps.

    Integers: the quotient rounded toward negative infinity (`-7 // 2 = -4`).
    Division by zero gives 0 and `INT_MIN // -1` wraps to `INT_MIN`, as in
    numpy. The lowering replaces a divisor of 0 or -1 by 1 before the hardware
    division and selects those results afterwards.

    Floats: numpy's divmod algorithm, computed in f32 for f16 and bf16 and
    rounded once, so results match numpy bit for bit: with
    `m = fmod(lhs, rhs)` and `q = (lhs - m) / rhs`, `q` is decremented when
    `m` is nonzero and its sign differs from `rhs`'s, then rounded to the
    nearest integer from `floor(q)` (a zero keeps the sign of `lhs / rhs`).
    A zero divisor gives `lhs / rhs` (+-inf, or NaN for `0 // 0`); NaN and
    infinite operands go through the same algorithm (`inf // 2` is NaN,
    `-5 // inf` is -1).
  }]>;
def Strata_ModOp : Strata_BinaryOp<"mod", "lhs mod rhs", [{
    numpy's `remainder`/`mod` (`lhs % rhs`): the remainder of
    `strata.floor_div`, with the sign of `rhs`, on f32, f16, bf16 and i32;
    never traps.

    Integers: `lhs - floor(lhs / rhs) * rhs` (`-7 % 2 = 1`, `7 % -2 = -1`);
    `x % 0 = 0` and `INT_MIN % -1 = 0`, as in numpy. The lowering guards the
    divisor as `strata.floor_div` does.

    Floats: `m = fmod(lhs, rhs)`, plus `rhs` when `m` is nonzero and its sign
    differs from `rhs`'s; a zero remainder is `+0` or `-0` with the sign of
    `rhs`. `x % 0` is NaN; `5 % inf` is 5 and `-5 % inf` is inf, as in numpy.
    Computed in f32 for f16 and bf16 and rounded once (bit-identical to numpy).
  }]>;

class Strata_BitwiseOp<string mnemonic, string formula, string extra = "">
    : Strata_Op<mnemonic> {
  let summary = "elementwise integer `" # formula # "` with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` element by element on the two's-complement bits of
    i32 or i64 operands (numpy's `}] # mnemonic # [{`). `lhs` and `rhs` have the same
    element type, which is the result's; their shapes broadcast as in numpy. Floating
    point and bool operands are rejected (the Python front end builds bool `&`, `|`,
    `^` as the logical ops). }] # extra;
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_BitwiseAndOp : Strata_BitwiseOp<"bitwise_and", "lhs & rhs">;
def Strata_BitwiseOrOp : Strata_BitwiseOp<"bitwise_or", "lhs | rhs">;
def Strata_BitwiseXorOp : Strata_BitwiseOp<"bitwise_xor", "lhs ^ rhs">;
def Strata_LeftShiftOp : Strata_BitwiseOp<"left_shift", "lhs << rhs", [{
    A shift count outside `[0, bits)` (negative, or at least the width) gives 0,
    as numpy and PyTorch do; the lowering selects 0 there instead of emitting a
    shift whose result LLVM leaves undefined.
  }]>;
def Strata_RightShiftOp : Strata_BitwiseOp<"right_shift", "lhs >> rhs", [{
    An arithmetic shift: the sign bit fills in. A shift count outside `[0, bits)`
    (negative, or at least the width) shifts by `bits - 1` (0 or -1), as numpy
    and PyTorch do.
  }]>;

def Strata_BitwiseNotOp : Strata_Op<"bitwise_not"> {
  let summary = "elementwise integer `~x`, numpy's `invert`";
  let description = [{
    Flips every bit of an i32 or i64 input (`~x == -x - 1`); the result has the
    type of the input. Bool inputs are rejected (the Python front end builds
    `~mask` as `logical_not`).
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
}

class Strata_UnaryOp<string mnemonic, string formula, string extra = "">
    : Strata_Op<mnemonic> {
  let summary = "elementwise `" # formula # "`";
  let description = [{
    Computes `}] # formula # [{` element by element; the result has the type
    of the input. }] # extra;
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_NegOp : Strata_UnaryOp<"neg", "-x">;
def Strata_AbsOp : Strata_UnaryOp<"abs", "|x|">;
def Strata_ExpOp : Strata_UnaryOp<"exp", "e ** x", "Floating-point inputs only.">;
def Strata_LogOp : Strata_UnaryOp<"log", "ln(x)",
    "Floating-point inputs only; `log(0) = -inf`, `log(x < 0) = NaN`.">;
def Strata_SqrtOp : Strata_UnaryOp<"sqrt", "sqrt(x)", "Floating-point inputs only.">;
def Strata_RsqrtOp : Strata_UnaryOp<"rsqrt", "1 / sqrt(x)", "Floating-point inputs only.">;
def Strata_TanhOp : Strata_UnaryOp<"tanh", "tanh(x)", "Floating-point inputs only.">;
def Strata_SigmoidOp : Strata_UnaryOp<"sigmoid", "1 / (1 + e ** -x)",
    "Floating-point inputs only.">;
def Strata_ReluOp : Strata_UnaryOp<"relu", "max(x, 0)">;
def Strata_ErfOp : Strata_UnaryOp<"erf", "erf(x)", "Floating-point inputs only.">;
def Strata_SinOp : Strata_UnaryOp<"sin", "sin(x)", "Floating-point inputs only.">;
def Strata_CosOp : Strata_UnaryOp<"cos", "cos(x)", "Floating-point inputs only.">;
def Strata_FloorOp : Strata_UnaryOp<"floor", "floor(x)",
    "Floating-point inputs only; the largest integer not above `x`, as a float.">;
def Strata_CeilOp : Strata_UnaryOp<"ceil", "ceil(x)",
    "Floating-point inputs only; the smallest integer not below `x`, as a float.">;
def Strata_RoundOp : Strata_UnaryOp<"round", "round(x)",
    "Floating-point inputs only; halfway cases round to even, as numpy's `round`.">;
def Strata_SignOp : Strata_UnaryOp<"sign", "sign(x)",
    "-1, 0 or 1 in the input's type; `sign(NaN) = NaN` and `sign(-0.0) = -0.0`, as numpy.">;

def Strata_GeluOp : Strata_Op<"gelu"> {
  let summary = "elementwise GELU activation";
  let description = [{
    `approximate = "none"` (the default) computes the exact form
    `0.5 * x * (1 + erf(x / sqrt(2)))`; `approximate = "tanh"` computes
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x ** 3)))`.
    Floating-point inputs only; the result has the type of the input.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_CompareOp : Strata_Op<"compare"> {
  let summary = "elementwise comparison with numpy broadcasting";
  let description = [{
    Compares `lhs` and `rhs` element by element with `predicate`, one of
    `eq`, `ne`, `lt`, `le`, `gt`, `ge`. Operands have the same element type
    and broadcast as in numpy; the result has element type `i1`. Comparisons
    with NaN are false, except `ne`, which is true (IEEE-754 unordered).
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs, StrAttr:$predicate);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_SelectOp : Strata_Op<"select"> {
  let summary = "elementwise choice, numpy's `where(condition, true_value, false_value)`";
  let description = [{
    `condition` has element type `i1`; `true_value` and `false_value` have the
    same element type, which is the result's. The three shapes broadcast
    together as in numpy.
  }];
  let arguments = (ins AnyRankedTensor:$condition, AnyRankedTensor:$true_value,
                       AnyRankedTensor:$false_value);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Strata_MatmulOp : Strata_Op<"matmul"> {
  let summary = "matrix product with numpy `@` semantics";
  let description = [{
    Both operands have rank >= 1 and the same element type. A rank-1 `lhs` is
    treated as a row `[1, K]` and a rank-1 `rhs` as a column `[K, 1]`, and the
    added dim is dropped from the result, as in numpy. For rank >= 2 the last
    two dims are the matrix dims (`[..., M, K] @ [..., K, N] -> [..., M, N]`)
    and the leading (batch) dims broadcast as in numpy. The inner dims `K`
    must be equal. Accumulation is in the element type for f32 and in f32 for
    f16 and bf16 (rounded to the element type at the end).
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

class Strata_ReduceOp<string mnemonic, string what> : Strata_Op<mnemonic> {
  let summary = what # " over a list of axes";
  let description = [{
    Reduces `input` over `axes` (distinct, in `[-rank, rank)`; an empty list
    reduces nothing). With `keepdims = true` the reduced dims stay as size 1,
    as numpy's `keepdims=True`; otherwise they are removed. The result has the
    input's element type. }] # what # [{ of an empty dim is the reduction's
    identity (0 for sum; 1 for prod; -inf for max and +inf for min of floats,
    INT32_MIN and INT32_MAX of i32; NaN for mean).
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_SumOp : Strata_ReduceOp<"sum", "sum">;
def Strata_MaxOp : Strata_ReduceOp<"max", "maximum">;
def Strata_MeanOp : Strata_ReduceOp<"mean", "arithmetic mean">;
def Strata_ProdOp : Strata_ReduceOp<"prod", "product">;
def Strata_MinOp : Strata_ReduceOp<"min", "minimum">;

class Strata_ArgReduceOp<string mnemonic, string what> : Strata_Op<mnemonic> {
  let summary = "the index of the " # what # " along an axis, numpy's `" # mnemonic # "`";
  let description = [{
    The i32 index along `axis` of the }] # what # [{ of `input` (f32, f16, bf16
    or i32). Ties give the first index; a NaN counts as the extreme, so the first
    NaN's index is the result (numpy's rule). With `keepdims = true` the axis stays
    as size 1; otherwise it is removed. The axis must have at least one element.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_ArgmaxOp : Strata_ArgReduceOp<"argmax", "maximum">;
def Strata_ArgminOp : Strata_ArgReduceOp<"argmin", "minimum">;

def Strata_ArgsortOp : Strata_Op<"argsort"> {
  let summary = "the indices that sort along an axis, numpy's `argsort(input, axis, kind='stable')`";
  let description = [{
    The i32 indices along `axis` that put each row of `input` (f32, f16, bf16, f64,
    i32 or i64) in ascending order, or in descending order with `descending = true`;
    the result has the input's shape. The sort is stable in both directions: equal
    elements keep their order (`-0.0` equals `0.0`). NaN sorts as the largest value:
    last when ascending, first when descending (numpy's and PyTorch's `sort`). The
    Python front end builds `sort` and `topk` values from these indices.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$descending);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_SoftmaxOp : Strata_Op<"softmax"> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis` (default -1),
    computed in the numerically stable form. Floating-point inputs only; the
    result has the type of the input.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_LayerNormOp : Strata_Op<"layer_norm"> {
  let summary = "layer normalization over the trailing dims from `axis`";
  let description = [{
    Normalizes `input` over dims `[axis, rank)` (default `axis = -1`):
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, with the biased
    variance, as PyTorch's `layer_norm`. `scale` and `bias` have the shape of
    the normalized dims and the input's element type. Floating-point only.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$scale,
                       AnyRankedTensor:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Strata_ReshapeOp : Strata_Op<"reshape"> {
  let summary = "reinterpret a tensor's elements in row-major order with a new shape";
  let description = [{
    The result type gives the new shape; the element type is unchanged and
    the element count must be equal (checked where both shapes are static).
    Elements keep their row-major (C) order, as numpy's `reshape`.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_TransposeOp : Strata_Op<"transpose"> {
  let summary = "permute dims";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`, as numpy's
    `transpose(input, axes=permutation)`. `permutation` is a permutation of
    `[0, rank)`.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_BroadcastToOp : Strata_Op<"broadcast_to"> {
  let summary = "broadcast to the result's shape with numpy rules";
  let description = [{
    The result type gives the target shape, of rank >= the input's. Aligning
    at the trailing dim, each input dim equals the target dim or is 1.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_ConcatOp : Strata_Op<"concat"> {
  let summary = "join two tensors along an existing axis";
  let description = [{
    `lhs` and `rhs` have the same rank and element type and equal dims except
    along `axis`, whose sizes add up in the result. The Python front end joins
    more than two tensors with a left-to-right chain of `strata.concat`, which
    strata-to-linalg lowers to one `tensor.insert_slice` per input. (The op is
    binary because IRDL binds one type per constraint value: a variadic operand
    could only hold tensors of one type.)
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_SliceOp : Strata_Op<"slice"> {
  let summary = "strided slice, numpy's `x[start:limit:step, ...]`";
  let description = [{
    One entry per dim in each of `starts`, `limits` and `steps`, already
    normalized (non-negative, `0 <= start <= limit <= dim`, `step >= 1`);
    the Python front end normalizes numpy-style negative or open bounds.
    `result.shape[i] = ceil((limit[i] - start[i]) / step[i])`.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_GatherOp : Strata_Op<"gather"> {
  let summary = "pick slices along an axis by index, numpy's `take(input, indices, axis)`";
  let description = [{
    `indices` is an i32 tensor of any rank; the result has the shape
    `input.shape[:axis] + indices.shape + input.shape[axis + 1:]` and the input's
    element type: `result[a..., i..., b...] = input[a..., indices[i...], b...]`
    (an embedding lookup is `gather(table, ids, axis = 0)`). A negative index counts
    from the end of the axis, as in numpy; an index still out of range is clamped
    to the nearest end (numpy's `mode="clip"`), so the op never reads out of
    bounds. The axis must have at least one element.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$indices, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def Strata_Conv2dOp : Strata_Op<"conv2d"> {
  let summary = "2-D convolution (cross-correlation) in NCHW or NHWC";
  let description = [{
    `layout = "NCHW"`: input `[N, C, H, W]`, filter `[F, C, KH, KW]`, result
    `[N, F, OH, OW]` (PyTorch's layout). `layout = "NHWC"`: input
    `[N, H, W, C]`, filter `[KH, KW, C, F]`, result `[N, OH, OW, F]`
    (TensorFlow's layout). `strides = [sh, sw]`, `dilations = [dh, dw]`,
    `padding = [top, bottom, left, right]` (zero padding).
    `OH = (H + top + bottom - dh * (KH - 1) - 1) / sh + 1`, likewise `OW`.

    `groups = G` (default 1) splits the channels into G groups: C and F must
    be multiples of G, the filter's channel dim is `C / G`, and output
    channels `[g * F/G, (g + 1) * F/G)` read input channels
    `[g * C/G, (g + 1) * C/G)` (PyTorch's `groups`). `G = C` with `F = C * m`
    is a depthwise convolution (channel multiplier m).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations, StrAttr:$layout,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs AnyRankedTensor:$result);
}

// issue 14, part B (opsb): transposed convolution.
def Strata_ConvTranspose2dOp : Strata_Op<"conv_transpose2d"> {
  let summary = "2-D transposed convolution (the gradient of conv2d) in NCHW or NHWC";
  let description = [{
    PyTorch's `ConvTranspose2d`. `layout = "NCHW"`: input `[N, C, H, W]`,
    filter `[C, F/G, KH, KW]`, result `[N, F, OH, OW]`. `layout = "NHWC"`:
    input `[N, H, W, C]`, filter `[KH, KW, F/G, C]`, result `[N, OH, OW, F]`.
    `strides = [sh, sw]`, `dilations = [dh, dw]`, `padding = [top, bottom,
    left, right]` (taken off the full result), `output_padding = [oph, opw]`
    (added at the bottom / right; each smaller than its stride or dilation).
    `OH = (H - 1) * sh - top - bottom + dh * (KH - 1) + oph + 1`, likewise `OW`.
    `groups = G` (default 1): C and F are multiples of G, and output channels
    `[g * F/G, (g + 1) * F/G)` read input channels `[g * C/G, (g + 1) * C/G)`.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$dilations, StrAttr:$layout,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs AnyRankedTensor:$result);
}

class Strata_PoolOp<string mnemonic, string what> : Strata_Op<mnemonic> {
  let summary = "2-D " # what # " pooling in NCHW or NHWC";
  let description = [{
    Windows of `kernel = [kh, kw]` moved by `strides = [sh, sw]` over the
    spatial dims of `layout` (`"NCHW"` or `"NHWC"`), with
    `padding = [top, bottom, left, right]`. Padded positions are ignored:
    they never win a max, and an average divides by the count of real
    elements in the window (PyTorch's `count_include_pad=False`).
    `OH = (H + top + bottom - kh) / sh + 1`, likewise `OW`.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       StrAttr:$layout);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_MaxPool2dOp : Strata_PoolOp<"max_pool2d", "max">;
def Strata_AvgPool2dOp : Strata_PoolOp<"avg_pool2d", "average">;

// issue 37: 3-D convolution and pooling (NCDHW).
def Strata_Conv3dOp : Strata_Op<"conv3d"> {
  let summary = "3-D convolution (cross-correlation) in NCDHW";
  let description = [{
    PyTorch's `conv3d`: input `[N, C, D, H, W]`, filter `[F, C / G, KD, KH, KW]`,
    result `[N, F, OD, OH, OW]`. `strides = [sd, sh, sw]`, `dilations = [dd, dh, dw]`,
    `padding = [front, back, top, bottom, left, right]` (zero padding).
    `OD = (D + front + back - dd * (KD - 1) - 1) / sd + 1`, likewise `OH`, `OW`.
    `groups = G` (default 1): C and F are multiples of G, and output channels
    `[g * F/G, (g + 1) * F/G)` read input channels `[g * C/G, (g + 1) * C/G)`.
    Floating-point operands of one element type; f16 and bf16 accumulate in f32.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs AnyRankedTensor:$result);
}

class Strata_Pool3dOp<string mnemonic, string what> : Strata_Op<mnemonic> {
  let summary = "3-D " # what # " pooling in NCDHW";
  let description = [{
    Windows of `kernel = [kd, kh, kw]` moved by `strides = [sd, sh, sw]` over the
    spatial dims of an `[N, C, D, H, W]` input, with
    `padding = [front, back, top, bottom, left, right]` (each smaller than its
    kernel size). Padded positions are ignored: they never win a max, and an
    average divides by the count of real elements in the window (PyTorch's
    `count_include_pad=False`). `OD = (D + front + back - kd) / sd + 1`, likewise
    `OH`, `OW`. A max of floats propagates NaN, as PyTorch's does.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_MaxPool3dOp : Strata_Pool3dOp<"max_pool3d", "max">;
def Strata_AvgPool3dOp : Strata_Pool3dOp<"avg_pool3d", "average">;

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

def Strata_ConstantOp : Strata_Op<"constant"> {
  let summary = "a dense constant tensor";
  let description = [{
    `value` is a dense elements attribute whose type is the result type.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_CastOp : Strata_Op<"cast"> {
  let summary = "convert elements between f32, f16, bf16 and i32, or from i1";
  let description = [{
    The result has the input's shape and the result type's element type
    (f32, f16, bf16 or i32). Float to float rounds to nearest even; float to
    i32 truncates toward zero (out-of-range values saturate, NaN becomes 0);
    i32 to float rounds to nearest even. An `i1` input (a comparison's
    result) becomes 1 or 0, as numpy's `mask.astype(...)`.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
}

//===----------------------------------------------------------------------===//
// Scans, reversal, padding and scatter
//===----------------------------------------------------------------------===//

def Strata_CumsumOp : Strata_Op<"cumsum"> {
  let summary = "running sum along an axis, numpy's `cumsum(input, axis)`";
  let description = [{
    `result[..., k, ...] = input[..., 0, ...] + ... + input[..., k, ...]` along
    `axis`; the result has the input's shape and element type (f32, f16, bf16 or
    i32). f16 and bf16 accumulate in f32 and round each partial sum back; i32
    wraps around on overflow.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_ReverseOp : Strata_Op<"reverse"> {
  let summary = "reverse the order of elements along axes, numpy's `flip(input, axes)`";
  let description = [{
    `result[..., i, ...] = input[..., n - 1 - i, ...]` along each of `axes`
    (distinct, in `[-rank, rank)`); shape and element type are the input's.
    The Python front end also builds negative-step slices (`x[::-1]`,
    `x[5:1:-2]`) from it.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_PadOp : Strata_Op<"pad"> {
  let summary = "pad with a constant, numpy's `pad(input, pad_width, constant_values)`";
  let description = [{
    Adds `low[i]` elements before and `high[i]` elements after dim `i` (both
    `>= 0`, one entry per dim), each holding `pad_value` (default 0; an integral
    value for i32). `result.shape[i] = low[i] + input.shape[i] + high[i]`. The
    Python front end crops for negative widths (PyTorch's `F.pad`) with a slice.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<F64Attr, "0.0">:$pad_value);
  let results = (outs AnyRankedTensor:$result);
}

class Strata_ScatterBaseOp<string mnemonic, string what> : Strata_Op<mnemonic> {
  let summary = what # " along an axis, PyTorch's `" # mnemonic # "(input, axis, indices, updates)`";
  let description = [{
    `indices` (i32) and `updates` (the input's element type) have one shape, of
    the input's rank, no larger than the input's in dims other than `axis`. The
    result is a copy of `input` in which, for every position `p` of `indices`,
    the element at `p` with coordinate `axis` replaced by `indices[p]` }] # what #
    [{. A negative index counts from the end of the axis; an index still out of
    range is skipped (its update is dropped), so the op never writes out of
    bounds; constant indices out of range are an error of the front end. Updates
    are applied in row-major order of `p`: for `scatter` the last of several
    updates to one element wins (PyTorch leaves that order undefined).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$indices,
                       AnyRankedTensor:$updates, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
}

def Strata_ScatterOp : Strata_ScatterBaseOp<"scatter", " is replaced by `updates[p]`">;
def Strata_ScatterAddOp : Strata_ScatterBaseOp<"scatter_add", " gets `updates[p]` added">;
