"""The Python module (build/python/anatomy*.so) against the CLI it fronts:
run from ctest with PYTHONPATH=build/python, from the checkout's root."""
import json
import os
import shutil
import subprocess
import sqlite3

import pytest

import anatomy

ROOT = os.environ.get("ANATOMY_SOURCE_DIR", os.getcwd())
# The CLI beside the module (build/anatomy), or where ANATOMY_BINARY points.
BINARY = os.environ.get("ANATOMY_BINARY") or os.path.join(os.path.dirname(anatomy.__file__), "..", "anatomy")

TINY = {
    "name": "tiny",
    "model": {"preset": "llama3-8b", "layers": 4},
    "cluster": {"system": "dgx-h100", "gpus": 16},
    "training": {"seq_len": 2048, "global_batch": 32},
}


def cli_json(*args):
    out = subprocess.run([BINARY, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_run_a_path_returns_what_the_cli_prints_as_json():
    case = os.path.join(ROOT, "validation", "a1-1_7b.yaml")
    r = anatomy.run(case)
    assert r == cli_json("run", case)
    assert r["schema"] == "anatomy.run.iteration"
    assert r["iteration_s"] > 0


def test_run_a_dict_a_yaml_string_and_overrides_agree():
    # The same scenario three ways, and tp 2 given as an override.
    as_dict = anatomy.run(TINY, set={"parallelism.tp": 2})
    as_yaml = anatomy.run(
        "model: {preset: llama3-8b, layers: 4}\ncluster: {system: dgx-h100, gpus: 16}\n"
        "parallelism: {tp: 2}\ntraining: {seq_len: 2048, global_batch: 32}\nname: tiny\n")
    assert as_dict["iteration_s"] == as_yaml["iteration_s"]
    assert as_dict["plan"].startswith("TP2 ")


def test_a_dict_gives_the_clis_numbers_with_the_shipped_calibration(tmp_path):
    # DGX H100 runs read the shipped H200 table: the module finds it as the CLI does.
    f = tmp_path / "tiny.yaml"
    f.write_text(json.dumps(TINY))
    r = anatomy.run(TINY)
    assert r == cli_json("run", str(f))
    assert r["compute_model"].startswith("calibration table")


def test_input_errors_raise_an_exception_carrying_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  tpp: 2\n")
    with pytest.raises(anatomy.InputError) as e:
        anatomy.run(str(bad))
    assert e.value.file == str(bad)
    assert e.value.line == 4
    assert e.value.field == "parallelism.tpp"
    assert str(e.value).startswith(f"{bad}:4: parallelism.tpp: ")
    assert isinstance(e.value, ValueError)
    with pytest.raises(anatomy.InputError) as e:
        anatomy.run(TINY, set={"parallelism.tp": 3})
    assert "parallelism" in e.value.field


def test_collective_matches_the_collective_case_the_cli_runs(tmp_path):
    r = anatomy.collective(op="all_reduce", bytes="1GiB", system="dgx-h100", gpus=8)
    assert r["schema"] == "anatomy.run.collective"
    case = tmp_path / "c.yaml"
    case.write_text("name: all_reduce of 1GiB on 8 x dgx-h100\ncluster: {system: dgx-h100, gpus: 8}\n"
                    "collective: {op: all_reduce, bytes: 1GiB, algorithm: auto}\n")
    assert r == cli_json("run", str(case))
    rows = anatomy.collective(bytes=["1MiB", "1GiB"], gpus=8)
    assert len(rows) == 2 and rows[0]["time_us"] < rows[1]["time_us"]


def test_a_collective_takes_nccls_cta_limits_as_the_cli_does():
    # NCCL_MAX_CTAS=8 on one DGX B200: a ring at 8 CTAs of 20.4 GB/s, at most
    # 163.2 GB/s of busbw (about 640 at NCCL's own 32), as anatomy collective
    # --max-ctas 8 reads it.
    r = anatomy.collective(op="all_reduce", bytes="1GiB", system="dgx-b200", gpus=8, algorithm="ring",
                           set={"collective.max_ctas": 8})
    assert 150 < r["busbw_GBps"] <= 163.2
    free = anatomy.collective(op="all_reduce", bytes="1GiB", system="dgx-b200", gpus=8, algorithm="ring")
    assert free["busbw_GBps"] > 600


def test_a_kernel_case_runs_as_the_cli_runs_it():
    # A kernel case through run(): the same JSON as `anatomy run`, a GEMM's
    # 2 m n k FLOPs.
    path = os.path.join(ROOT, "scenarios", "kernels", "b200-gemm-8192.yaml")
    r = anatomy.run(path)
    assert r["schema"] == "anatomy.run.kernel"
    assert r == cli_json("run", path)
    assert r["flops"] == 2 * 8192 ** 3
    small = anatomy.run(path, set={"kernel.m": 1024})
    assert small["time_us"] < r["time_us"]


def test_validate_one_case():
    v = anatomy.validate(os.path.join(ROOT, "validation", "a1-1_7b.yaml"))
    assert v["cases"][0]["case"] == "A1-1.7B"


def test_validate_fits_a_series(tmp_path):
    # Two runs of one plan at 192 and 384 micro-batches a pipeline: one line
    # each through the published and the simulated steps.
    for n in (384, 768):
        shutil.copy(os.path.join(ROOT, "validation", "a2-ptdp-175b-%d.yaml" % n), tmp_path)
    v = anatomy.validate(str(tmp_path), threads=2)
    assert v == anatomy.validate(str(tmp_path), threads=1)  # the same at any thread count
    [fit] = v["series"]
    assert fit["series"] == "A2-PTD-P-175B" and fit["cases"] == 2
    assert (fit["min_micro_batches"], fit["max_micro_batches"]) == (192, 384)
    assert fit["published_per_micro_batch_s"] > 0 and fit["simulated_per_micro_batch_s"] > 0
    # The simulated fixed part, bucket by bucket, adds up to the whole.
    assert abs(sum(fit["simulated_fixed_parts_s"].values()) - fit["simulated_fixed_s"]) < 1e-9


def test_sweep_returns_flat_rows_and_skips_stored_points(tmp_path):
    space = {
        "scenario": TINY,
        "axes": {"parallelism.tp": [1, 2, 3], "cluster.fabric.nic_speed": ["200Gbps", "400Gbps"]},
    }
    store = str(tmp_path / "s.sqlite")
    rows = anatomy.sweep(space, store=store, threads=2)
    assert len(rows) == 6
    assert [r["index"] for r in rows] == list(range(6))
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 2 and all(r["parallelism.tp"] == 3 for r in failed)
    ok = [r for r in rows if r["status"] == "ok"]
    assert all(isinstance(r["iteration_s"], float) for r in ok)
    assert set(rows[0]) == set(rows[-1])  # the same columns in every row (pandas.DataFrame(rows))
    walls = {r["index"]: r["wall_s"] for r in rows}
    again = anatomy.sweep(space, store=store)
    assert {r["index"]: r["wall_s"] for r in again} == walls  # nothing recomputed
    con = sqlite3.connect(store)
    assert con.execute("SELECT count(*), count(DISTINCT point_key) FROM points").fetchone() == (6, 6)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_bad_sweep_raises_with_the_sweep_files_line(tmp_path):
    bad = tmp_path / "sweep.yaml"
    bad.write_text("scenario: {model: llama3-8b}\naxes:\n  parallelism.tpp: [1, 2]\n")
    with pytest.raises(anatomy.InputError) as e:
        anatomy.sweep(str(bad), store=str(tmp_path / "s.sqlite"))
    assert (e.value.file, e.value.line, e.value.field) == (str(bad), 3, "axes.parallelism.tpp")
