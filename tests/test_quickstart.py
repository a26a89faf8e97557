"""The README's Quickstart, run as the file a user saves it to."""

import pathlib
import re
import subprocess
import sys

import pytest
from conftest import foreign_stderr

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def _quickstart():
    text = README.read_text()
    section = text[text.index("## Quickstart") :]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


@pytest.mark.slow
def test_the_quickstart_runs_as_a_script_and_prints_its_results(tmp_path):
    script = tmp_path / "quickstart.py"
    script.write_text(_quickstart())
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"ann\s+0\s+<NA>", out), out  # bfs: the source at distance 0
    assert re.search(r"zoe\s+<NA>\s+<NA>", out), out  # an isolated vertex is unreachable
    assert re.search(r"zoe\s+zoe", out) and re.search(r"eve\s+dan", out), out  # components
    assert "pagerank" in out and "supersteps" in out, out
    assert foreign_stderr(done.stderr) == [], done.stderr
