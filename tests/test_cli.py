"""The dgraph command."""

import subprocess
import sys

import pandas as pd
import pytest
from conftest import foreign_stderr

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


DOCUMENTED = {
    "pagerank --workers 1": ["5,242 vertices, 14,496 edges", "converged True"],
    "pagerank --dataset rome99 --weight --verify --workers 1": ["weights 'weight'", "verified   valid"],
    "louvain --dataset email-Eu-core --undirected --workers 1": ["(undirected)", "modularity 0.4"],
}


@pytest.mark.slow  # a fresh process that starts a cluster of its own
@pytest.mark.parametrize("command", list(DOCUMENTED))
def test_the_documented_commands_run_clean_from_fresh_processes(command):
    """The README's main job and the commands its CLI section shows: right, and nothing on stderr
    but dgraph's own status lines (no warning, no dask log line, at start or at close)."""
    proc = subprocess.run(
        [sys.executable, "-m", "dgraph.cli", "run", *command.split()], capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all(e in proc.stdout for e in DOCUMENTED[command]), (command, proc.stdout)
    assert foreign_stderr(proc.stderr) == [], (command, proc.stderr)


@pytest.mark.slow  # a fresh process that starts a cluster of its own
def test_without_a_client_a_local_cluster_starts_and_says_so():
    code = "import dgraph; g = dgraph.datasets.load('karate'); print(g.num_edges)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "78"
    assert proc.stderr.count("started a local cluster") == 1
    assert foreign_stderr(proc.stderr) == [], proc.stderr


def test_gpu_extra_is_named_when_missing(capsys):
    import importlib.util

    import pytest

    from dgraph.cluster import gpu_cluster

    if importlib.util.find_spec("dask_cuda") is not None:
        pytest.skip("dask-cuda is installed here")
    with pytest.raises(ImportError, match=r"pip install '\.\[gpu\]' in a checkout"):
        gpu_cluster()
    assert main(["run", "bfs", "--dataset", "karate", "--gpu"]) == 2
    assert "pip install '.[gpu]' in a checkout" in capsys.readouterr().err


@pytest.mark.slow
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


def test_input_errors_come_before_any_cluster(capsys, tmp_path, monkeypatch):
    """Each mistake is one line and exit status 2, and no cluster is started to find it."""
    import distributed

    def no_cluster(*a, **k):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    for argv, says in (
        (["run", "bfs", "--input", str(tmp_path / "missing.tsv")], "missing.tsv' does not exist"),
        (["run", "bfs", "--input", str(tmp_path / "*.nothing")], "no file matches it"),
        (["run", "bfs", "--dataset", "karat"], "'karat' is not an embedded dataset"),
        (["run", "pagerank", "--dataset", "karate", "--output", str(tmp_path / "out.txt")], "name a .csv or .parquet"),
        (["run", "pagerank", "--dataset", "karate", "--output", str(tmp_path / "full")], "not empty"),
        (["run", "pagerank", "--dataset", "karate", "--output", str(tmp_path / "no" / "x.csv")], "no directory"),
        (["run", "louvain", "--dataset", "email-Eu-core"], "email-Eu-core is directed: add --undirected"),
        (["run", "pagerank", "--dataset", "karate", "--weight"], "karate has no weights; weighted datasets: rome99"),
        (["run", "wcc", "--kronecker", "5", "--weight"], "Kronecker graphs have no weights"),
        (["run", "wcc", "--dataset", "karate", "--source", "1"], "wcc takes no source"),
        (["run", "bfs", "--dataset", "karate", "--layout", "3d"], "'3d' is not a layout"),
        (["run", "bfs", "--dataset", "karate", "--ranks", "0"], "--ranks must be at least 1"),
        (["run", "bfs", "--dataset", "karate", "--no-header"], "describe an --input file"),
        (["partition", "--dataset", "karat"], "'karat' is not an embedded dataset"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("dgraph: error: ") and err.count("\n") == 1 and says in err, (argv, err)


def test_weight_reaches_every_weighted_algorithm_and_its_check(client, capsys, tmp_path):
    import dgraph
    from dgraph import algorithms as alg

    addr = client.scheduler.address
    out = tmp_path / "pr.csv"
    argv = ["run", "pagerank", "--dataset", "rome99", "--weight", "--verify", "--output", str(out)]
    assert main([*argv, "--scheduler", addr]) == 0
    printed = capsys.readouterr().out
    assert "weights 'weight'" in printed and "verified   valid" in printed
    g = dgraph.datasets.load("rome99")
    want = alg.pagerank(g).compute().set_index("vertex")["pagerank"]
    unit = alg.pagerank(g, weight=None).compute().set_index("vertex")["pagerank"]
    got = pd.read_csv(out).set_index("vertex")["pagerank"]
    assert (got - want).abs().max() < 1e-6 < (got - unit).abs().max()
    assert main(["run", "pagerank", "--dataset", "rome99", "--no-weight", "--verify", "--scheduler", addr]) == 0
    printed = capsys.readouterr().out
    assert "weights" not in printed and "verified   valid" in printed


def test_undirected_and_directed_apply_to_datasets_and_kronecker(client, capsys, tmp_path):
    addr = client.scheduler.address
    argv = ["run", "louvain", "--dataset", "email-Eu-core", "--undirected", "--verify", "--scheduler", addr]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "(undirected)" in printed and "verified   valid" in printed
    assert main(["run", "scc", "--kronecker", "6", "--directed", "--verify", "--scheduler", addr]) == 0
    assert "(directed)" in capsys.readouterr().out


def test_output_by_extension(client, capsys, tmp_path):
    addr = client.scheduler.address
    base = ["run", "wcc", "--dataset", "karate", "--ranks", "2", "--scheduler", addr, "--output"]
    assert main([*base, str(tmp_path / "cc.csv")]) == 0
    assert (tmp_path / "cc.csv").is_file() and len(pd.read_csv(tmp_path / "cc.csv")) == 34
    assert main([*base, str(tmp_path / "cc.parquet")]) == 0
    assert (tmp_path / "cc.parquet").is_file() and len(pd.read_parquet(tmp_path / "cc.parquet")) == 34
    assert main([*base, str(tmp_path / "parts") + "/"]) == 0
    assert (tmp_path / "parts").is_dir() and len(pd.read_parquet(tmp_path / "parts")) == 34
    capsys.readouterr()


def test_summary_reads_well_on_a_small_run(client, capsys):
    import re

    addr = client.scheduler.address
    assert main(["run", "pagerank", "--dataset", "karate", "--ranks", "1", "--scheduler", addr]) == 0
    printed = capsys.readouterr().out
    assert "run        one rank, no messages" in printed and "supersteps 0" not in printed
    numbers = re.findall(r"\d+\.\d+(?:e-?\d+)?", printed.split("run        ")[1])
    assert numbers and all(len(re.sub(r"e.*|\.|^0+", "", n).lstrip("0")) <= 6 for n in numbers), numbers
    assert main(["run", "bfs", "--dataset", "karate", "--ranks", "2", "--scheduler", addr]) == 0
    assert re.search(r"run        2 ranks, \d+ supersteps, [\d,]+ messages, [\d.]+ \w?B", capsys.readouterr().out)
