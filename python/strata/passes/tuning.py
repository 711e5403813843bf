"""Tuned per-op configurations, as pass option text (no pass of its own).

strata-vectorize takes ``tuned=<text>``: per matmul signature, the tiles that
autotuning (strata.tune, runtime/tuning_record.py) measured best on this
target, overriding the pass's options for that op only; strata-fuse takes the same
text and reads its ``blas`` knob (a BLAS call or generated code, with
``blas=auto``), strata-attention its ``bq``/``bk`` knobs (query and key tiles) for
an attention's 5-size signature. The text is

    <signature>:<knob><value>[.<knob><value>...][,<signature>:...]
    1x512x512x512xf32:pack0.cm64.cn256.ck128,1x64x1024x256xf32:mr12.nr32.pf1

a signature being ``<batch>x<M>x<N>x<K>x<element type of A>`` (a plain matmul
has batch 1), or for an attention ``<heads>x<queries>x<keys>x<head dim>x<value dim>x<dtype>``. The knobs (:data:`KNOBS`) name strata-vectorize options. The text
is plain option text, so it is part of the pipeline and of the compile cache's
key, and ``strata-opt --strata-vectorize='tuned=...'`` replays a tuned compile.
The text functions import no MLIR: a jit's disk-cache hit (which keys on the text)
loads without it.
"""

from __future__ import annotations

import re

__all__ = ["KNOBS", "PASS_KNOBS", "PATTERN", "SIGNATURE", "parse_tuned", "format_tuned",
           "matmul_signature", "attention_signature", "knobs_of"]

# short knob name -> strata-vectorize option field
KNOBS = {
    "pack": "pack",        # 1: packed panels + micro-kernel, 0: tiled in place
    "pm": "pack_m", "pn": "pack_n", "pk": "pack_k",        # a packed cache tile
    "cm": "cache_m", "cn": "cache_n", "ck": "cache_k",     # an unpacked cache tile
    "rm": "register_m", "rn": "register_n",               # an unpacked register tile
    "mr": "micro_m", "nr": "micro_n",                      # the packed micro-kernel
    "pf": "parallel_flops",  # the thread split: 1 runs the op's tiles on threads, a
                             # count above its flops runs it on one thread
    "blas": "blas",          # 1: a BLAS call, 0: generated code (strata-fuse, blas=auto)
    "bq": "block_q", "bk": "block_k",   # an attention's query and key tiles
}
BOOL_KNOBS = ("pack", "blas")
# the fields whose 0 means "from the host" (the others' values are at least 1)
ZERO_MEANS_HOST = ("register_n", "micro_m", "micro_n")
# the knobs another pass than strata-vectorize reads
PASS_KNOBS = {"strata-fuse": ("blas",), "strata-attention": ("block_q", "block_k")}
_KNOB_TEXT = r"(?:pack|pm|pn|pk|cm|cn|ck|rm|rn|mr|nr|pf|blas|bq|bk)[0-9]+"
# a matmul: 4 sizes; an attention: 5 (heads x queries x keys x head dim x value dim)
SIGNATURE = r"[0-9]+x[0-9]+x[0-9]+x[0-9]+(?:x[0-9]+)?x(?:f32|f16|bf16)"
_ENTRY = rf"{SIGNATURE}:{_KNOB_TEXT}(?:\.{_KNOB_TEXT})*"
PATTERN = rf"(?:{_ENTRY}(?:,{_ENTRY})*)?"
_KNOB = re.compile(r"([a-z]+)([0-9]+)")


def parse_tuned(text: str) -> dict[str, dict[str, int | bool]]:
    """``{signature: {option field: value}}`` of ``tuned`` text; ValueError when malformed."""
    out: dict[str, dict[str, int | bool]] = {}
    if not text:
        return out
    if not re.fullmatch(PATTERN, text):
        raise ValueError(f"malformed tuned text '{text}'")
    for entry in text.split(","):
        signature, _, knobs = entry.partition(":")
        config: dict[str, int | bool] = {}
        for knob in knobs.split("."):
            name, value = _KNOB.fullmatch(knob).groups()
            if name not in KNOBS:
                raise ValueError(f"unknown knob '{name}' (knobs: {', '.join(KNOBS)})")
            field = KNOBS[name]  # the ranges: strata-vectorize's option checks
            config[field] = bool(int(value)) if field in BOOL_KNOBS else int(value)
        out[signature] = config
    return out


def format_tuned(configs: dict[str, dict[str, int | bool]]) -> str:
    """The option text of ``{signature: {option field or knob: value}}`` (sorted)."""
    field_to_knob = {f: k for k, f in KNOBS.items()}
    entries = []
    for signature in sorted(configs):
        knobs = []
        for name, value in sorted(configs[signature].items()):
            knob = field_to_knob.get(name, name)
            if knob not in KNOBS:
                raise ValueError(f"unknown knob '{name}'")
            knobs.append(f"{knob}{int(value)}")
        if knobs:
            entries.append(f"{signature}:{'.'.join(knobs)}")
    return ",".join(entries)


def knobs_of(config: dict, pass_name: str) -> dict:
    """The option fields of ``config`` that ``pass_name`` reads: those PASS_KNOBS gives
    it, or for strata-vectorize every field no other pass reads."""
    if pass_name in PASS_KNOBS:
        return {f: v for f, v in config.items() if f in PASS_KNOBS[pass_name]}
    others = {f for fields in PASS_KNOBS.values() for f in fields}
    return {f: v for f, v in config.items() if f not in others}


def attention_signature(shape, dtype: str = "f32") -> str:
    """``<heads>x<queries>x<keys>x<head dim>x<value dim>x<dtype>`` of a fused attention."""
    return f"{shape.heads}x{shape.sq}x{shape.sk}x{shape.d}x{shape.dv}x{dtype}"


def _element(t) -> str:
    from mlir import ir

    if isinstance(t, ir.F16Type):
        return "f16"
    if isinstance(t, ir.BF16Type):
        return "bf16"
    return "f32" if isinstance(t, ir.F32Type) else str(t)


def matmul_signature(op, batch: bool, mnk) -> str:
    """``<batch>x<M>x<N>x<K>x<dtype>`` of a static (batch) matmul with sizes ``mnk``."""
    from mlir import ir

    a = ir.RankedTensorType(op.operands[0].type)
    batches = a.shape[0] if batch else 1
    m, n, k = mnk
    return f"{batches}x{m}x{n}x{k}x{_element(a.element_type)}"
