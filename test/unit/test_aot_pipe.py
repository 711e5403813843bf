"""aot's opt | llc pipe (runtime/aot.py ``_run_piped``): the second command reads what the
first writes, and a failure names the step that failed, with its stderr."""

import sys

import pytest

from strata import StrataError
from strata.runtime import aot


def _py(code):
    return [sys.executable, "-c", code]


def test_the_second_command_reads_the_first_ones_output(tmp_path):
    out = tmp_path / "out"
    aot._run_piped((_py("import sys; sys.stdout.write('bits')"), "writing"),
                   (_py(f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read())"),
                    "reading"), str(tmp_path))
    assert out.read_text() == "bits"


@pytest.mark.parametrize("fails", ["first", "second", "both"])
def test_a_failure_names_its_step_and_stderr(tmp_path, fails):
    first = _py("import sys; sys.stderr.write('opt says no'); sys.exit(3)" if fails != "second"
                else "print('ok')")
    second = _py("import sys; sys.stdin.read(); sys.stderr.write('llc says no'); sys.exit(4)"
                 if fails != "first" else "import sys; sys.stdin.read()")
    with pytest.raises(StrataError) as e:
        aot._run_piped((first, "optimizing LLVM IR"), (second, "generating machine code"),
                       str(tmp_path))
    if fails == "second":
        assert "generating machine code failed" in str(e.value)
        assert "exit 4" in str(e.value) and "llc says no" in str(e.value)
    else:  # the first step's failure is reported, also where the second one fails after it
        assert "optimizing LLVM IR failed" in str(e.value)
        assert "exit 3" in str(e.value) and "opt says no" in str(e.value)


def test_a_missing_second_tool_leaves_no_first_process_behind(tmp_path):
    with pytest.raises(OSError):
        aot._run_piped((_py("import time; time.sleep(30)"), "waiting"),
                       ([str(tmp_path / "no-such-tool")], "missing"), str(tmp_path))
