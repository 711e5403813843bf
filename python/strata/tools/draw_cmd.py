"""``strata draw FILE.mlir [--level L] [--function F] [-o STEM]``: a function as a picture."""

from __future__ import annotations

import argparse
import os
import sys


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="strata draw",
        description="Draw a function of a strata-level .mlir file at a level: kernels as "
                    "nodes, fused groups as clusters with the cost model's reason, layouts on "
                    "edges, conversions in orange. Writes STEM.svg, STEM.png and STEM.dot.")
    p.add_argument("file", help="a .mlir file of strata ops ('-' for stdin)")
    p.add_argument("--level", default="fused",
                   help="strata, linalg, fused, layout or bufferized (default: fused)")
    p.add_argument("--function", default=None, help="the function to draw (default: the first)")
    p.add_argument("--blas", default="auto", choices=("auto", "always", "never"))
    p.add_argument("-o", "--output", default=None,
                   help="the files' stem (default: the input's name and the level)")
    a = p.parse_args(argv)

    from ..errors import StrataError
    from ..explain.show import module_picture
    from ..runtime.api import parse

    try:
        if a.file == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            with open(a.file) as f:
                text, name = f.read(), a.file
    except OSError as e:
        sys.stderr.write(f"strata draw: cannot read '{a.file}': {e.strerror}\n")
        return 1
    stem = a.output or (os.path.splitext(os.path.basename(name))[0] if a.file != "-"
                        else "stdin") + f".{a.level}"
    try:
        picture = module_picture(parse(text, name), a.function, a.level, blas=a.blas)
        paths = picture.save(stem)
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    except OSError as e:
        sys.stderr.write(f"strata draw: cannot write '{stem}': {e.strerror}\n")
        return 1
    sys.stdout.write("".join(f"wrote {path}\n" for path in paths))
    return 0
