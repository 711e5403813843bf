"""strata-opt's --verify-diagnostics grammar (strata.tools.expected), case by case.

The differential suite (test/differential) checks the same against mlir-opt end to end;
these pin the parser's reading of each form."""

from strata.errors import Diagnostic
from strata.tools.expected import Verifier, parse_expectations


def _lines(text):
    expected, problems = parse_expectations(text, "in.mlir")
    assert not problems
    return [(e.kind, e.line, e.text) for e in expected]


def test_forms_and_where_they_point():
    text = "\n".join([
        "op0",                                        # 1
        "// expected-error @below {{spaced}}",        # 2 -> 4
        "// expected-remark@below {{stacked}}",       # 3 -> 4
        "op4",                                        # 4
        "// expected-warning @above {{above}}",       # 5 -> 4
        "// expected-note@above {{stacked above}}",   # 6 -> 4
        "op7 // expected-error {{same line}}",        # 7
        "// expected-error@+2 {{plus}}",              # 8 -> 10
        "// expected-error@-8 {{minus}}",             # 9 -> 1
        "// expected-error@unknown {{anywhere}}",     # 10
    ])
    assert _lines(text) == [
        ("error", 4, "spaced"), ("remark", 4, "stacked"), ("warning", 4, "above"),
        ("note", 4, "stacked above"), ("error", 7, "same line"), ("error", 10, "plus"),
        ("error", 1, "minus"), ("error", None, "anywhere")]


def test_what_mlir_does_not_read_as_a_designator():
    text = "\n".join([
        "// expected-error@3 {{absolute line}}",
        "// expected-error {{text after}} more",
        "// expected-bogus {{kind}}",
        "// expected-error {{unclosed}",
    ])
    assert _lines(text) == []


def test_text_runs_to_the_last_braces_and_a_dangling_below_takes_the_last_line():
    assert _lines("// expected-error {{a}} expected-error {{b}}   ") == [
        ("error", 1, "a}} expected-error {{b")]
    assert _lines("x\n// expected-error @below {{end}}") == [("error", 2, "end")]


def test_regex_blocks():
    expected, _ = parse_expectations(
        "// expected-error-re {{op {{[a-z]+}} #{{[[:digit:]]+}} (x)}}", "in.mlir")
    (e,) = expected
    assert e.matches("'arith.addi' op operand #12 (x) must")
    assert not e.matches("op OPERAND #1 (x)")
    for body, message in [("{{[a-z}}", "invalid regex: brackets ([ ]) not balanced"),
                          ("{{(a}}", "invalid regex: parentheses not balanced"),
                          ("a {{b", "found start of regex with no end '}}'")]:
        expected, problems = parse_expectations(f"x // expected-error-re {{{{{body}}}}}", "f")
        assert expected == [] and [(p.location, p.message, p.width) for p in problems] == [
            ("f:1:6", message, len(body))]


def test_verifier_reports_as_mlir_does():
    text = "a\nb // expected-warning {{boom}}\n// expected-error@+1 {{never}}\nc\n"
    v = Verifier(text, "in.mlir")
    near = v.process(Diagnostic("in.mlir:2:1", "boom here", "error"))
    assert [(p.location, p.message) for p in near] == [
        ("in.mlir:2:6", "'error' diagnostic emitted when expecting a 'warning'")]
    note = Diagnostic("in.mlir:1:1", "an error", "error", [Diagnostic("in.mlir:1:1", "a note",
                                                                      "note")])
    assert [p.message for p in v.process(note)] == ["unexpected error: an error",
                                                    "unexpected note: a note"]
    unmet = v.finish()
    assert [(p.location, p.message, p.width) for p in unmet] == [
        ("in.mlir:2:6", 'expected warning "boom" was not produced', 4),
        ("in.mlir:3:4", 'expected error "never" was not produced', 5)]
    assert v.failed


def test_one_designator_takes_every_matching_diagnostic():
    v = Verifier("x // expected-error {{dup}}\n", "in.mlir")
    for _ in range(2):
        assert v.process(Diagnostic("in.mlir:1:1", "dup!", "error")) == []
    assert v.finish() == [] and not v.failed
