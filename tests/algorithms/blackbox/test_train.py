import importlib
import json
import sys

from algorithms.blackbox import load_agents


def test_import_has_no_side_effects(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sys.modules.pop("algorithms.blackbox.train", None)
    importlib.import_module("algorithms.blackbox.train")
    assert list(tmp_path.iterdir()) == []


def test_short_training_checkpoints_and_resumes(tmp_path):
    from algorithms.blackbox.train import main

    assert main(["--minutes", "0.01", "--seed", "0", "--out", str(tmp_path), "--batch", "1", "--no-progress",
                 "--ppo-epochs", "1"]) == 0
    meta = json.loads((tmp_path / "designx.json").read_text())
    assert meta["iterations"] >= 1 and (tmp_path / "state.pt").is_file()
    assert main(["--minutes", "0.01", "--out", str(tmp_path), "--batch", "1", "--no-progress", "--resume",
                 "--ppo-epochs", "1"]) == 0
    assert json.loads((tmp_path / "designx.json").read_text())["iterations"] >= meta["iterations"] + 1
    load_agents(tmp_path / "designx.pt")
