"""strata report --html: the explanation page, loaded in a real headless browser."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import strata
from strata.explain.html import html_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (apt-get install graphviz)")


def mlp(x, w, b, w2):
    h = strata.relu(x @ w + b)
    return strata.softmax(strata.tanh(h * 0.5) @ w2)


def _args():
    g = np.random.default_rng(0)
    return [g.standard_normal(s).astype(np.float32) for s in ((64, 128), (128, 256), (256,),
                                                               (256, 32))]


def _browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        pytest.skip("chromium and chromedriver are not installed "
                    "(apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


@needs_dot
def test_page_has_pictures_decisions_timing_and_costs(tmp_path):
    path = html_report(mlp, *_args(), path=str(tmp_path / "mlp.html"))
    assert os.listdir(tmp_path) == ["mlp.html"]
    page = open(path).read()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    for level in ("strata", "linalg", "fused", "layout"):
        assert f'id="picture-{level}"><svg' in page
    assert "strata-fuse" in page and "test_explain_html.py:" in page
    assert "StrataFuse" in page and "StrataVectorize" in page  # MLIR's pass timing rows
    for cost in ("cold compile", "restart (disk hit)", "warm call"):
        assert cost in page


@needs_dot
def test_page_renders_in_a_headless_browser(tmp_path):
    path = html_report(mlp, *_args(), path=str(tmp_path / "mlp.html"), costs=False)
    browser = _browser()
    try:
        browser.get("file://" + path)
        assert browser.title == "mlp · strata report"
        # the fused level's picture is drawn: an SVG with a cluster, with a real size
        size = browser.execute_script(
            "const s = document.querySelector('#picture-fused svg');"
            "const r = s.getBoundingClientRect(); return [r.width, r.height,"
            " s.querySelectorAll('g.cluster').length, s.querySelectorAll('g.node').length];")
        width, height, clusters, nodes = size
        assert width > 100 and height > 100 and clusters >= 1 and nodes >= 6
        # the tables render with their rows
        counts = browser.execute_script(
            "return Array.from(document.querySelectorAll('table')).map("
            "t => [t.rows.length, t.getBoundingClientRect().height]);")
        assert len(counts) == 2 and all(rows > 2 and h > 20 for rows, h in counts)
    finally:
        browser.quit()


def test_cli_report_html_and_errors(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import strata

        def f(x):
            return strata.softmax(x) * 2.0

        def f_inputs():
            return [np.ones((4, 8), np.float32)]
    """))

    def strata_cmd(*args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "strata"), *args],
                              capture_output=True, text=True, timeout=600, cwd=tmp_path)

    p = strata_cmd("report", f"{script}:f")
    assert p.returncode == 0, p.stderr
    assert "cold compile" in p.stdout and "warm call" in p.stdout
    if shutil.which("dot"):
        p = strata_cmd("report", "--no-costs", "--html", "out.html", f"{script}:f")
        assert p.returncode == 0, p.stderr
        assert (tmp_path / "out.html").read_text().count("<svg") == 4
    for target, message in ((f"{script}:g", "defines no 'g'"),
                            ("nope.py:f", "no such script 'nope.py'"),
                            ("model", "expected SCRIPT.py:FUNCTION")):
        p = strata_cmd("report", target)
        assert p.returncode == 1 and message in p.stderr and "Traceback" not in p.stderr
