"""Pass options: declared once per pass (type + range), checked when a pipeline is built.

Every option of every registered strata pass gets a bad value here, through
``--pass-pipeline`` text, the ``--<pass>=opt=value`` flag form (in process) and
the Python constructor; all three give the one validator's message.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from strata.errors import StrataError
from strata.passes.base import OptionError, _field_type, _spec
from strata.pipelines import registry
from strata.pipelines.runner import parse_pipeline
from strata.tools import opt

NUMERIC = (int, float)


def _options():
    for name, cls in registry.all_passes():
        for f in dataclasses.fields(cls):
            typ = _field_type(cls, f)
            yield name, cls, f, typ, _spec(typ, f)


def _bad_values(typ, spec):
    """``(text, message tail)`` for each way the option can be wrong."""
    if typ is bool:
        yield "maybe", "expects true or false, got 'maybe'"
        return
    if typ in NUMERIC:
        yield "abc", f"expects {'an integer' if typ is int else 'a number'}, got 'abc'"
        if spec.min is not None:
            low = spec.min - 1
            yield str(low), f"must be at least {spec.min}, got {low}"
        if spec.max is not None:
            high = spec.max + 1
            yield str(high), f"must be at most {spec.max}, got {high}"
        if typ is float:
            yield "nan", "expects a finite number, got 'nan'"
        return
    if spec.choices:
        yield "bogus", f"unknown {spec.noun or '{flag}'} 'bogus' ("
    elif spec.pattern:
        yield "%%", "must look like"


CASES = [(name, f.name.replace("_", "-"), text, tail)
         for name, _, f, typ, spec in _options() for text, tail in _bad_values(typ, spec)]


def test_every_numeric_option_declares_its_range():
    for name, _, f, typ, spec in _options():
        if typ in NUMERIC:
            assert spec.min is not None, f"{name}: option '{f.name}' has no declared minimum"
        if typ is str and f.name in ("level", "compile_to", "format", "conv_layout"):
            assert spec.choices, f"{name}: option '{f.name}' should list its values"


def test_every_option_has_a_description():
    """--list-passes shows it, as mlir-opt shows its passes' options."""
    for name, _, f, _, spec in _options():
        assert spec.help, f"{name}: option '{f.name}' has no help text (option(..., help=...))"


def test_every_default_is_valid():
    for _, cls in registry.all_passes():
        cls()  # __post_init__ checks the defaults like any other value


@pytest.mark.parametrize("name,flag,text,tail", CASES)
def test_bad_option_value_in_a_pipeline(name, flag, text, tail):
    tail = tail.replace("{flag}", flag)
    with pytest.raises(StrataError) as info:
        parse_pipeline(f"builtin.module({name}{{{flag}={text}}})")
    message = info.value.diagnostics[0].message
    assert message.startswith(f"{name}: "), message
    assert tail in message, message
    if "unknown" not in tail:
        assert f"option '{flag}'" in message, message


@pytest.mark.parametrize("name,flag,text,tail", CASES[::3])
def test_bad_option_value_as_a_flag(name, flag, text, tail, capsys):
    err = []

    class Err:
        write = err.append

    assert opt.run([f"--{name}={flag}={text}", "/dev/null"], err=Err()) == 1
    first = "".join(err).splitlines()[0]
    assert first.startswith(f"<unknown>:0: error: {name}: "), first
    assert tail.replace("{flag}", flag) in first, first


def test_python_construction_is_checked_the_same_way():
    from strata.passes.fuse import FusePass
    from strata.passes.vectorize import VectorizePass

    with pytest.raises(OptionError, match=r"^strata-fuse: option 'tile-m' must be at least 1, "
                                          r"got 0$"):
        FusePass(tile_m=0)
    with pytest.raises(OptionError, match=r"^strata-vectorize: option 'threads' must be at most "
                                          r"1024, got 5000$"):
        VectorizePass(threads=5000)
    with pytest.raises(OptionError, match="expects a finite number, got 'inf'"):
        FusePass(max_recompute=math.inf)
    with pytest.raises(OptionError, match="expects true or false, got '1'"):
        FusePass(report=1)
    assert dataclasses.replace(FusePass(), report=True).report is True


def test_valid_values_pass_through():
    pipeline = parse_pipeline(
        "builtin.module(strata-canonicalize{max-iterations=1 max-fold-elements=0}, "
        "strata-fuse{max-recompute=0.5 decisions=0123abcd=on,89ef0000=off "
        "elementwise=off}, strata-layout{conv-layout=nhwc})")
    canon, fuse, layout = pipeline.passes()
    assert (canon.max_iterations, canon.max_fold_elements) == (1, 0)
    assert fuse.max_recompute == 0.5 and fuse.elementwise is False
    assert fuse.decisions == "0123abcd=on,89ef0000=off"
    assert layout.conv_layout == "nhwc"


@pytest.mark.parametrize("options,col", [("{}", 20), ("=3", 20), ("max-iterations=2 {x}", 37)])
def test_malformed_option_block_is_a_located_syntax_error(options, col):
    text = f"builtin.module(strata-canonicalize{{{options}}})"
    with pytest.raises(StrataError) as info:
        parse_pipeline(text)
    lines = info.value.diagnostics[0].message.splitlines()
    assert lines[0] == (f"invalid pass pipeline: failed to add `strata-canonicalize` with "
                        f"options `{options}`: expected an option name")
    assert lines[1] == "  " + text
    assert lines[2] == "  " + " " * (col + len("builtin.module(")) + "^"


def test_list_passes_shows_each_range():
    from strata.passes.base import option_help
    from strata.passes.canonicalize import CanonicalizePass
    from strata.passes.check_level import CheckLevelPass

    assert ("max-iterations", "int", "10", "at least 1") in [h[:4] for h in
                                                            option_help(CanonicalizePass)]
    assert option_help(CheckLevelPass)[0][3].startswith("one of strata, linalg, ")
