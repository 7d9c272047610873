"""The Python snippets of docs/connecting.md, run as written (twice: they must be idempotent)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import ENDPOINT

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "connecting.md"


def snippets(section="Python"):
    text = DOC.read_text()
    _, sep, rest = text.partition(f"\n## {section}\n")
    assert sep, f"{DOC} has no section {section!r}"
    rest = rest.split("\n## ")[0]
    found = re.findall(r"(?ms)^```python\n(.*?)^```\n", rest)
    assert found, f"{DOC}'s section {section!r} has no python block"
    return found


@pytest.mark.parametrize("index", range(len(snippets())))
def test_connecting_snippet(index):
    code = snippets()[index]
    env = dict(os.environ, COSMOS_ENDPOINT=ENDPOINT, PYTHONWARNINGS="ignore")
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
    if index == 0:
        assert out.stdout.splitlines() == ["12.5", "['o2', 'o1']"]
    else:
        assert out.stdout.splitlines() == ["['o3']"]
