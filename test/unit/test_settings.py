"""strata.settings: every STRATA_* variable in one table, checked when read, and the
README's table generated from it."""

from __future__ import annotations

import ast
import os
import re

import pytest

from strata import settings
from strata.errors import StrataError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "strata")

# Modules still reading the environment themselves: none.
NOT_YET_CONVERTED: set[str] = set()


def _sources():
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as f:
                    yield os.path.relpath(path, PACKAGE), f.read()


def test_the_readme_table_is_the_generated_one():
    with open(os.path.join(ROOT, "tools", "README.md")) as f:
        readme = f.read()
    table = settings.markdown_table()
    assert table in readme, ("tools/README.md's environment table is stale: paste "
                             "`python -m strata.settings` into it")


def test_every_variable_strata_names_is_in_the_table():
    known = set(settings.SETTINGS.variables)
    named = {}
    for rel, text in _sources():
        for name in re.findall(r"STRATA_[A-Z][A-Z0-9_]*", text):
            named.setdefault(name, rel)
    assert {n: w for n, w in named.items() if n not in known} == {}


def test_only_settings_reads_the_environment():
    reads = []
    for rel, text in _sources():
        if rel == "settings.py" or rel in NOT_YET_CONVERTED:
            continue
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") and
                    isinstance(node.value, ast.Name) and node.value.id == "os"):
                line = text.splitlines()[node.lineno - 1]
                if "XDG_CACHE_HOME" not in line:  # not strata's: where caches go
                    reads.append(f"{rel}:{node.lineno}: {line.strip()}")
    assert reads == []


def test_settings_imports_nothing_of_strata_but_errors():
    with open(os.path.join(PACKAGE, "settings.py")) as f:
        tree = ast.parse(f.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            imported.add(node.module)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names]
            imported |= {n for n in names if n.split(".")[0] == "strata"}
    assert imported <= {"errors"}


@pytest.mark.parametrize("name,text,value", [
    ("STRATA_THREADS", "3", 3),
    ("STRATA_CACHE", "off", False),
    ("STRATA_CACHE", "Yes", True),
    ("STRATA_CACHE_MAX_BYTES", "64M", 64 << 20),
    ("STRATA_OUTPUT_POOL_BYTES", "2GiB", 2 << 30),
    ("STRATA_REMOTE_CACHE_TIMEOUT", "0.001", 0.01),   # raised to the minimum
    ("STRATA_CPU_FEATURES", "AVX2", "avx2"),
    ("STRATA_LOG", "cache, variants", ("cache", "variants")),
    ("STRATA_DUMP_DIR", " /tmp/d ", "/tmp/d"),
])
def test_values_are_read_when_asked(monkeypatch, name, text, value):
    monkeypatch.setenv(name, text)
    assert settings.get(name) == value
    monkeypatch.delenv(name)
    assert settings.get(name) == settings.SETTINGS.variable(name).default_value()


def test_unset_and_empty_are_the_default(monkeypatch):
    monkeypatch.setenv("STRATA_MAX_VARIANTS", "  ")
    assert settings.get("STRATA_MAX_VARIANTS") == 32
    assert settings.raw("STRATA_MAX_VARIANTS") is None
    monkeypatch.setenv("STRATA_CACHE_DIR", "/somewhere")
    assert settings.get("STRATA_TUNING_RECORD") == "/somewhere/tuning.json"


@pytest.mark.parametrize("name,text,message", [
    ("STRATA_THREADS", "zero", "STRATA_THREADS must be a positive integer, got 'zero'"),
    ("STRATA_THREADS", "0", "STRATA_THREADS must be a positive integer, got '0'"),
    ("STRATA_CACHE", "maybe", "STRATA_CACHE='maybe': expected a boolean: 1, true, yes, on"),
    ("STRATA_CACHE_MAX_BYTES", "lots", "STRATA_CACHE_MAX_BYTES must be a number of bytes"),
    ("STRATA_REMOTE_CACHE_LEASE", "long", "STRATA_REMOTE_CACHE_LEASE must be a number of "
                                          "seconds, got 'long'"),
    ("STRATA_THREAD_RUNTIME", "tbb", "STRATA_THREAD_RUNTIME='tbb': expected one of omp, async"),
    ("STRATA_LOG", "cache,everything", "STRATA_LOG: unknown topic(s) everything"),
])
def test_a_bad_value_is_an_error_naming_the_variable(monkeypatch, name, text, message):
    monkeypatch.setenv(name, text)
    with pytest.raises(StrataError) as e:
        settings.get(name)
    assert message in str(e.value)
    assert e.value.diagnostics[0].location == "<environment>"


def test_an_unknown_name_is_a_programming_error():
    with pytest.raises(KeyError, match="STRATA_NOPE is not a strata setting"):
        settings.get("STRATA_NOPE")


def test_overridden_puts_back_what_was_there(monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", "/before")
    monkeypatch.delenv("STRATA_REMOTE_CACHE", raising=False)
    with settings.overridden({"STRATA_CACHE_DIR": "/during", "STRATA_REMOTE_CACHE": "redis://x"}):
        assert settings.get("STRATA_CACHE_DIR") == "/during"
        assert settings.raw("STRATA_REMOTE_CACHE") == "redis://x"
    assert os.environ["STRATA_CACHE_DIR"] == "/before"
    assert "STRATA_REMOTE_CACHE" not in os.environ


def test_the_cache_key_leaves_out_what_does_not_change_the_code(monkeypatch):
    ignored = settings.not_in_cache_key()
    assert {"STRATA_CACHE_DIR", "STRATA_LOG", "STRATA_TUNING"} <= ignored
    assert not {"STRATA_THREADS", "STRATA_CPU_FEATURES", "STRATA_AOT"} & ignored
    monkeypatch.setenv("STRATA_SOME_KNOB", "1")
    assert settings.environment()["STRATA_SOME_KNOB"] == "1"
