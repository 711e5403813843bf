"""Runs strata-opt requests in one process, for test_differential.py.

Reads one JSON request per line (``args``, ``cwd``, ``stdin``) and answers with
one JSON line (``code``, ``stdout``, ``stderr``): ``strata.tools.opt`` run as
its console script runs it, with stdin and the two streams in memory.
"""

import io
import json
import os
import sys
import traceback

from strata.tools import opt


def serve() -> None:
    requests, replies = sys.stdin, sys.stdout
    for line in requests:
        request = json.loads(line)
        out, err = io.StringIO(), io.StringIO()
        os.chdir(request["cwd"])
        sys.stdin = io.TextIOWrapper(io.BytesIO((request["stdin"] or "").encode()))
        try:
            code = opt.run_on_large_stack(request["args"], err=err, out=out)
        except Exception:
            code = 2
            err.write(traceback.format_exc())
        replies.write(json.dumps({"code": code, "stdout": out.getvalue(),
                                  "stderr": err.getvalue()}) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve()
