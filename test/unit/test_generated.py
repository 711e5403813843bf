"""The generated dialect files match what dialects/StrataOps.td generates now."""

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TD = os.path.join(ROOT, "dialects", "StrataOps.td")


def _pkg_dir(name):
    return list(importlib.util.find_spec(name).submodule_search_locations)[0]


def _generated(module):
    spec = importlib.util.find_spec(f"strata.dialects.{module}")
    with open(spec.origin) as f:
        return f.read()


def _tblgen(*args):
    mlir = _pkg_dir("mlir")
    return subprocess.run([os.path.join(mlir, "bin", "mlir-tblgen"), *args, "-I",
                           os.path.join(mlir, "include"), TD],
                          capture_output=True, text=True, check=True).stdout


def test_python_op_classes_are_up_to_date():
    assert _generated("_strata_ops_gen") == _tblgen("-gen-python-op-bindings",
                                                     "-bind-dialect=strata")


def test_irdl_module_is_up_to_date(tmp_path):
    llvm_tblgen = os.path.join(_pkg_dir("llvm"), "bin", "llvm-tblgen")
    records = tmp_path / "ops.json"
    subprocess.run([llvm_tblgen, "--dump-json", "-I", os.path.join(_pkg_dir("mlir"), "include"),
                    TD, "-o", str(records)], check=True)
    out = tmp_path / "irdl.py"
    subprocess.run([sys.executable, os.path.join(ROOT, "dialects", "gen_irdl.py"), str(records),
                    str(out)], check=True)
    assert _generated("_strata_irdl") == out.read_text()


def test_every_op_is_documented_and_registered():
    from strata.context import new_context
    from strata.dialect.shapes import RULES

    doc = _tblgen("-gen-op-doc")
    context = new_context()
    for name in RULES:
        assert f"`strata.{name}`" in doc, name
        assert context.is_registered_operation(f"strata.{name}"), name


@pytest.mark.parametrize("bad", ["variadic"])
def test_gen_irdl_rejects_variadic_operands(tmp_path, bad):
    import json

    records = {"!instanceof": {"Op": ["X"]}, "X": {
        "opName": "x", "opDialect": {"def": "Strata_Dialect"},
        "arguments": {"args": [[{"def": "V"}, "inputs"]]}, "results": {"args": []}},
        "V": {"!superclasses": ["TypeConstraint", "Variadic"]}}
    src = tmp_path / "r.json"
    src.write_text(json.dumps(records))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "dialects", "gen_irdl.py"), str(src),
                        str(tmp_path / "o.py")], capture_output=True, text=True)
    assert p.returncode != 0 and bad in p.stderr
