"""The tree's layers point one way (tools/check_layers.py)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_no_include_or_import_climbs_a_layer():
    run = subprocess.run([sys.executable, str(REPO / "tools" / "check_layers.py")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_check_catches_a_climbing_include(tmp_path, monkeypatch):
    # A model that includes the Controller: the check names it.
    sys.path.insert(0, str(REPO / "tools"))
    import check_layers
    tree = tmp_path / "tree"
    (tree / "src" / "model").mkdir(parents=True)
    (tree / "src" / "online").mkdir(parents=True)
    (tree / "include" / "symbiosis").mkdir(parents=True)
    (tree / "src" / "online" / "controller.cc").write_text('#include "symbiosis/controller.h"\n')
    (tree / "include" / "symbiosis" / "controller.h").write_text("\n")
    (tree / "include" / "symbiosis" / "ghost.h").write_text('#include "symbiosis/controller.h"\n')
    (tree / "src" / "model" / "ghost.cc").write_text('#include "symbiosis/ghost.h"\n')
    (tree / "python" / "symbiosis").mkdir(parents=True)
    monkeypatch.setattr(check_layers, "ROOT", str(tree))
    found = check_layers.cpp_violations()
    assert ("include/symbiosis/ghost.h", "symbiosis/controller.h",
            "model may not include online") in found
    assert all(v[0] != "src/online/controller.cc" for v in found)
