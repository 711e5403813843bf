"""The bad-input corpus of strata-opt: cases (cases.py), how one is run and judged (harness.py).

Every case runs the installed ``strata-opt`` as a subprocess, so a crash fails
its test instead of killing pytest. ``python test/unit/opt_corpus/tally.py``
prints, per category, how many cases give a clean error, crash or give a wrong
result. On e4c82e9, before the fixes that came with the corpus (crash: a
signal, a traceback or an internal error; wrong: another exit status than
expected or mlir-opt's, no or another message, an output file changed):

    category             tried clean crash wrong
    syntax                  13    11     0     2   --allow-unregistered-dialect unknown
    verifier                11    10     1     0   module attributes {...}
    pass-name                3     3     0     0
    option                  20     5     6     9   out-of-range values accepted or crashing
    pipeline                 8     4     1     3   bare / func.func(...) pipelines accepted
    output                   6     6     0     0
    split                    3     3     0     0
    verify-diagnostics       6     4     1     1   invalid -re regex
    input                    7     5     1     1   binary stdin; no line:col for a bad byte
    nesting                  4     0     3     1   SIGSEGV
    upstream-pass            5     0     4     1   SIGABRT (error without failure)
    total                   86    51    17    18

and after: 86 tried, 86 clean.
"""
