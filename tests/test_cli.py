"""The dgraph command."""

import subprocess
import sys

import pandas as pd
import pytest

from dgraph.cli import main


def test_cli_runs_each_algorithm_on_a_running_cluster(client, capsys, tmp_path):
    addr = client.scheduler.address
    assert main(["run", "bfs", "--dataset", "karate", "--source", "1", "--scheduler", addr, "--ranks", "3"]) == 0
    out = capsys.readouterr()
    assert "34 vertices, 78 edges" in out.out and "supersteps" in out.out and "bfs done in" in out.err
    path = str(tmp_path / "cc.parquet")
    assert main(["run", "wcc", "--kronecker", "8", "--scheduler", addr, "--output", path]) == 0
    assert "component groups" in capsys.readouterr().out
    assert len(pd.read_parquet(path)) == 256
    assert main(["run", "bfs", "--dataset", "karate", "--source", "0", "--scheduler", addr]) == 2
    assert "BFS source 0 is not a vertex" in capsys.readouterr().err


@pytest.mark.slow  # a fresh process that starts a cluster of its own
def test_main_job_from_a_fresh_process():
    """What the README's first command runs, with a local cluster of its own."""
    proc = subprocess.run(
        [sys.executable, "-m", "dgraph.cli", "run", "pagerank", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "5,242 vertices, 14,496 edges" in proc.stdout
    assert "converged True" in proc.stdout


@pytest.mark.slow  # a fresh process that starts a cluster of its own
def test_without_a_client_a_local_cluster_starts_and_says_so():
    code = "import dgraph; g = dgraph.datasets.load('karate'); print(g.num_edges)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "78"
    assert proc.stderr.count("started a local cluster") == 1


def test_gpu_extra_is_named_when_missing(capsys):
    import importlib.util

    import pytest

    from dgraph.cluster import gpu_cluster

    if importlib.util.find_spec("dask_cuda") is not None:
        pytest.skip("dask-cuda is installed here")
    with pytest.raises(ImportError, match=r"pip install 'dask-dgraph\[gpu\]'"):
        gpu_cluster()
    assert main(["run", "bfs", "--dataset", "karate", "--gpu"]) == 2
    assert "pip install 'dask-dgraph[gpu]'" in capsys.readouterr().err


def test_cli_runs_every_algorithm(client, capsys, tmp_path):
    addr = client.scheduler.address
    for algo, expect in (
        ("sssp", "distance"),
        ("cdlp", "label groups"),
        ("lcc", "lcc"),
        ("triangles", "triangles"),
        ("core", "core"),
        ("bc", "betweenness"),
        ("mwm", "mate groups"),
    ):
        assert main(["run", algo, "--dataset", "karate", "--scheduler", addr, "--verify"]) == 0, algo
        out = capsys.readouterr().out
        assert expect in out and "verified   valid" in out, algo
    path = tmp_path / "roads.tsv"
    path.write_text("1\t2\t0.5\n2\t3\t0.25\n1\t3\t2.0\n")
    assert (
        main(["run", "sssp", "--input", str(path), "--weight", "--directed", "--source", "1", "--scheduler", addr]) == 0
    )
    out = capsys.readouterr().out
    assert "0.75" in out
    for algo in ("bfs", "scc", "wcc", "pagerank"):
        argv = ["run", algo, "--input", str(path), "--directed", "--source", "1", "--verify", "--scheduler", addr]
        assert main(argv[:5] + argv[7:] if algo != "bfs" else argv) == 0, algo
        assert "verified   valid" in capsys.readouterr().out, algo
    assert main(["run", "scc", "--dataset", "karate", "--scheduler", addr]) == 2
    assert "directed graph" in capsys.readouterr().err


def test_orchestrate_bench_prints_every_strategy(client, capsys):
    addr = client.scheduler.address
    assert (
        main(["orchestrate-bench", "--ranks", "2,4", "--tasks-per-rank", "500", "--zipf", "2.0", "--scheduler", addr])
        == 0
    )
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| 2.0 |")]
    assert [r.split("|")[3].strip() for r in rows] == ["push", "pull", "sort", "tdorch"] * 2
    assert "max/mean" in out


def test_cli_grouped_transport_and_domains(client, capsys):
    addr = client.scheduler.address
    assert (
        main(
            [
                "run",
                "pagerank",
                "--dataset",
                "karate",
                "--ranks",
                "6",
                "--transport",
                "grouped",
                "--domains",
                "3",
                "--scheduler",
                addr,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "domains    3 (monitors" in out and "transport grouped: inter-domain messages" in out
