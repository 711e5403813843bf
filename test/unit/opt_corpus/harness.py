"""Runs one corpus case through the installed strata-opt and judges the result.

A case runs in a fresh folder that holds its input (``input.mlir``), a regular
file ``plain.txt`` and an existing output file ``out.mlir`` (``previous
contents``, an old mtime). Unless the case names its own ``-o``, the run gets
``-o out.mlir``: on failure that file must stay as it was, and nothing may be
added to the folder.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

STRATA_OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")
INPUT, OUTPUT, PREVIOUS = "input.mlir", "out.mlir", "previous contents\n"
OLD_MTIME = 1_000_000
TIMEOUT = 60

LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: ", re.M)
# mlir-opt's other forms: an option-parser line, an unlocated pipeline error, a file that cannot
# be opened (and strata-opt's own for input that is not UTF-8).
USAGE = re.compile(r"^strata-opt: |^<unknown>:0: error: |^cannot open (input|output) file '|"
                   r"^[^\s:][^:]*: error: could not open input file: ", re.M)


@dataclass(frozen=True)
class Case:
    """One bad input: what strata-opt is given and what it must answer.

    ``args`` may name ``{in}`` (the input file), ``{out}`` (the existing output
    file), ``{tmp}`` (the case's folder), ``{file}`` (a regular file) and
    ``{ro}`` (a folder nobody may write to). ``stderr`` is a regex that must
    match at the start of a line of stderr. ``mlir``: the pinned mlir-opt takes
    the same arguments; its exit code must be the same, and with ``"loc"`` the
    first error's line:col too. ``writes``: the run succeeds (as mlir-opt's does)
    and writes ``out.mlir``.
    """

    name: str
    category: str
    args: tuple[str, ...]
    input: str | bytes | Callable[[], str | bytes] | None = ""
    stderr: str = ""
    exit: int = 1
    mlir: str | bool = False
    writes: bool = False
    stdin: bool = False

    def text(self) -> str | bytes | None:
        return self.input() if callable(self.input) else self.input


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    before: dict
    after: dict
    timed_out: bool = False


def mlir_opt() -> str | None:
    spec = importlib.util.find_spec("mlir")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "bin", "mlir-opt")
    return path if os.path.exists(path) else None


def _unwritable_dir(tmp: str) -> str | None:
    """A folder this process cannot create a file in (root ignores a 0555 mode)."""
    candidates = [os.path.join(tmp, "ro")]
    os.makedirs(candidates[0], exist_ok=True)
    os.chmod(candidates[0], 0o555)
    candidates.append("/sys")
    for d in candidates:
        try:
            fd, path = tempfile.mkstemp(dir=d)
        except OSError:
            return d
        os.close(fd)
        os.unlink(path)
    return None


def _snapshot(tmp: str) -> dict:
    state = {}
    for root, dirs, files in os.walk(tmp):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, tmp)
            if os.path.isdir(path):
                state[rel + "/"] = None
                continue
            with open(path, "rb") as f:
                digest = hashlib.sha1(f.read()).hexdigest()
            st = os.stat(path)
            state[rel] = (st.st_size, st.st_mtime, digest)
    return state


def prepare(case: Case, tmp: str) -> list[str] | None:
    """Writes the case's files into ``tmp``; its argument list (None: cannot run here)."""
    text = case.text()
    if text is not None and not case.stdin:
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(os.path.join(tmp, INPUT), mode) as f:
            f.write(text)
    with open(os.path.join(tmp, "plain.txt"), "w") as f:
        f.write("a regular file\n")
    out = os.path.join(tmp, OUTPUT)
    with open(out, "w") as f:
        f.write(PREVIOUS)
    os.utime(out, (OLD_MTIME, OLD_MTIME))
    args = list(case.args)
    if "-o" not in args and not any(a.startswith("-o=") for a in args):
        args += ["-o", "{out}"]
    ro = _unwritable_dir(tmp) if any("{ro}" in a for a in args) else ""
    if ro is None:
        return None
    subst = {"{in}": INPUT, "{out}": OUTPUT, "{tmp}": tmp, "{file}": "plain.txt", "{ro}": ro}
    for key, value in subst.items():
        args = [a.replace(key, value) for a in args]
    return args


def run(case: Case, tmp: str, tool: str = STRATA_OPT) -> Result | None:
    args = prepare(case, tmp)
    if args is None:
        return None
    before = _snapshot(tmp)
    text = case.text()
    stdin = text if case.stdin else None
    if isinstance(stdin, str):
        stdin = stdin.encode()
    try:
        p = subprocess.run([tool, *args], input=stdin, capture_output=True, cwd=tmp,
                           timeout=TIMEOUT)
        rc, out, err, timed_out = p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as e:
        rc, out, err, timed_out = -9, e.stdout or b"", e.stderr or b"", True
    return Result(rc, out.decode(errors="replace"), err.decode(errors="replace"), before,
                  _snapshot(tmp), timed_out)


def first_error_location(stderr: str) -> tuple[str, str] | None:
    m = LOCATED.search(stderr)
    return (m.group("line"), m.group("col")) if m else None


def judge(case: Case, r: Result, mlir: Result | None = None) -> list[tuple[str, str]]:
    """Problems as ``(kind, what)``; kind is ``crash`` or ``wrong``. Empty: a clean answer."""
    problems = []
    crash = lambda what: problems.append(("crash", what))  # noqa: E731
    wrong = lambda what: problems.append(("wrong", what))  # noqa: E731
    if r.timed_out:
        crash(f"timed out after {TIMEOUT} s")
    elif r.returncode < 0:
        crash(f"killed by signal {-r.returncode}")
    if "Traceback" in r.stderr + r.stdout:
        crash("a Python traceback")
    if "internal error" in r.stderr:
        crash("an internal error")
    if r.returncode == 2 and not problems:
        crash("exit status 2 (internal error)")
    if problems:
        return problems
    if r.returncode != case.exit:
        wrong(f"exit status {r.returncode}, expected {case.exit}")
    if case.stderr and not re.search(case.stderr, r.stderr, re.M):
        wrong(f"stderr does not match {case.stderr!r}")
    if case.exit != 0:
        if not (LOCATED.search(r.stderr) or USAGE.search(r.stderr)):
            wrong("no 'file:line:col: error:' diagnostic nor usage line")
        if r.stdout:
            wrong("output on stdout although the run failed")
    expected_after = dict(r.before)
    if case.writes and r.returncode == 0:
        expected_after.pop(OUTPUT, None)
        if OUTPUT not in r.after or r.after[OUTPUT][2] == r.before[OUTPUT][2]:
            wrong("the output file was not written")
        after = {k: v for k, v in r.after.items() if k != OUTPUT}
    else:
        after = r.after
    if after != expected_after:
        added = sorted(set(after) - set(expected_after))
        changed = sorted(k for k in expected_after if after.get(k) != expected_after[k])
        wrong(f"files changed: added {added}, changed or removed {changed}")
    if mlir is not None:
        if mlir.returncode != r.returncode:
            wrong(f"exit status {r.returncode}, mlir-opt's is {mlir.returncode}")
        if case.mlir == "loc":
            mine, theirs = first_error_location(r.stderr), first_error_location(mlir.stderr)
            if mine != theirs:
                wrong(f"first error at {mine}, mlir-opt's at {theirs}")
    return problems


def check(case: Case, tmp: str) -> tuple[Result | None, list[tuple[str, str]]]:
    """Runs ``case`` (and mlir-opt beside it, when comparable) under ``tmp``; judges it.

    The result is None when the case cannot run here (no unwritable folder).
    """
    mine, theirs_dir = os.path.join(tmp, "strata"), os.path.join(tmp, "mlir")
    os.mkdir(mine)
    try:
        result = run(case, mine)
        if result is None:
            return None, []
        theirs = None
        if case.mlir and mlir_opt():
            os.mkdir(theirs_dir)
            theirs = run(case, theirs_dir, mlir_opt())
    finally:
        for d in (mine, theirs_dir):
            if os.path.isdir(os.path.join(d, "ro")):
                os.chmod(os.path.join(d, "ro"), 0o755)
    return result, judge(case, result, theirs)
