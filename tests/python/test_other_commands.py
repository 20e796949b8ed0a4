"""`symbiosis kernel-models` and `symbiosis figures`."""

import json

from conftest import run_cli


def test_kernel_models_json_and_errors(tmp_path):
    out = tmp_path / "k.json"
    plot = tmp_path / "k.png"
    proc = run_cli("kernel-models", "--workload", "zipfian", "--data-size", "16MiB",
                   "--sizes", "4", "--rate", "0.5", "--json", str(out), "--plot", str(plot))
    assert "MAE" in proc.stdout
    assert "the sample holds about 64 groups" in proc.stdout  # 4096 blocks / 32 * 0.5
    result = json.loads(out.read_text())
    models = [c["model"] for c in result["curves"]]
    assert models[0] == "kernel" and {"block-lru", "page-lru", "sampled", "m-aware",
                                      "ghost"} <= set(models)
    assert len(result["capacities"]) == 4
    assert result["curves"][0]["mean_abs_error"] == 0
    for curve in result["curves"]:
        assert len(curve["hit_ratio"]) == 4
        assert all(0 <= h <= 1 for h in curve["hit_ratio"])
    assert plot.read_bytes()[:4] == b"\x89PNG"

    for args, needle in ((["--rate", "0"], "--rate"), (["--group", "0"], "--group"),
                         (["--sizes", "1"], "--sizes"), (["--workload", "nope"], "nope"),
                         (["--sizes", "4294967296"], "--sizes"),
                         (["--group", "4294967296"], "--group"),
                         (["--plot", "k.svgz"], "--plot"),
                         (["--data-size", "4MiB", "--rate", "0.015625"], "sample")):
        bad = run_cli("kernel-models", "--data-size", "4MiB", "--quiet", *args, check=False)
        assert bad.returncode == 2 and needle in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_figures_small(tmp_path):
    run_cli("figures", "--only", "closed_form", "--memory", "8MiB", "--points", "5",
            "--out", str(tmp_path), "--quiet")
    data = json.loads((tmp_path / "closed_form_gap.json").read_text())
    assert len(data["inclusive"]) == 5 and len(data["exclusive"]) == 5
    assert (tmp_path / "closed_form_gap.png").read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "never"
    bad = run_cli("figures", "--only", "fig99", "--out", str(out), check=False)
    assert bad.returncode == 2 and "fig99" in bad.stderr
    assert not out.exists()
    none = run_cli(check=False)
    assert none.returncode == 2 and "give a command" in none.stderr
