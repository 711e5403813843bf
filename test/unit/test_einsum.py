"""strata.einsum against numpy's float64 einsum: the common forms, odd shapes, every
float dtype, ellipsis, diagonals, several operands; bad specs are located errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
TOL = {"f32": 2e-5, "f16": 2e-2, "bf16": 8e-2}

CASES = [
    ("ij,jk->ik", [(5, 7), (7, 3)]),
    ("bij,bjk->bik", [(2, 5, 7), (2, 7, 3)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 5, 4), (2, 3, 6, 4)]),
    ("i,i->", [(7,), (7,)]),
    ("ij->ji", [(3, 5)]),
    ("ii->i", [(4, 4)]),
    ("bi,bi->b", [(3, 5), (3, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),  # implicit output: 'ik'
    ("ijk->", [(2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 2)]),
    ("ii", [(5, 5)]),  # the trace
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("b...d,b...d->b...", [(2, 3, 1, 5), (2, 1, 4, 5)]),  # ellipsis dims broadcast
    ("bqhd,bkhd->bhqk", [(1, 9, 2, 8), (1, 11, 2, 8)]),
    ("ij,kj->ik", [(33, 17), (5, 17)]),
]


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("spec,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(spec, shapes, dtype):
    rng = np.random.default_rng(len(spec))
    arrays = [rng.standard_normal(s).astype(NP[dtype]) for s in shapes]
    got = strata.jit(lambda *a: strata.einsum(spec, *a))(*arrays)
    want = np.einsum(spec, *[a.astype(np.float64) for a in arrays])
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=TOL[dtype] * scale,
                               rtol=TOL[dtype])


def test_int32():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = np.arange(20, dtype=np.int32).reshape(4, 5)
    got = strata.jit(lambda x, y: strata.einsum("ij,jk->ik", x, y))(a, b)
    assert np.array_equal(got, a @ b)


@pytest.mark.parametrize("spec,shapes,matmuls", [
    ("ij,jk->ik", [(5, 7), (7, 3)], 1),
    ("bhqd,bhkd->bhqk", [(2, 3, 5, 4), (2, 3, 6, 4)], 1),
    ("bi,bi->b", [(3, 5), (3, 5)], 0),  # a multiply and a sum
    ("i,j->ij", [(3,), (4,)], 0),  # a broadcast multiply
])
def test_matmul_like_forms_are_one_matmul(spec, shapes, matmuls):
    arrays = [np.ones(s, np.float32) for s in shapes]
    module = strata.trace(lambda *a: strata.einsum(spec, *a), *arrays)
    text = str(module)
    assert text.count("strata.matmul") == matmuls


@pytest.mark.parametrize("spec,n,message", [
    ("ij,jk->ik", 2, r"label 'j' has size 4 in one operand and 5 in operand 1"),
    ("ij->ik", 1, r"output label 'k' is not in any operand"),
    ("ijk->i", 1, r"operand 0 has 2 dim\(s\) but 'ijk' in 'ijk->i' names 3"),
    ("i1->i", 1, r"invalid character '1'"),
    ("ij->ii", 1, r"output label 'i' appears twice"),
    ("ij->i", 2, r"'ij->i' names 1 operand\(s\) but 2 were given"),
    ("ii->i", 1, r"label 'i' has size 3 in one operand and 4"),
    ("...i...->i", 1, r"more than one '\.\.\.'"),
    ("ij->i->j", 1, r"more than one '->'"),
])
def test_bad_specs_are_located_errors(spec, n, message):
    a, b = np.ones((3, 4), np.float32), np.ones((5, 6), np.float32)
    with pytest.raises(strata.StrataError, match=message) as info:
        strata.jit(lambda *x: strata.einsum(spec, *x))(*[a, b][:n])
    assert "test_einsum.py" in str(info.value)
