"""Local shadow trails keep what git hands over, file names that are not UTF-8 included."""

from __future__ import annotations

import json

from proximity.agent.state import LocalState


def test_a_trail_naming_a_file_that_is_not_utf8_is_saved_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "state"))
    # git's bytes b"caf\xe9.py" decoded with surrogateescape, as the replay's readers do
    name = b"caf\xe9.py".decode("utf-8", "surrogateescape")
    document = {"trailId": "t1", "receipts": [{"paths": [name]}]}
    path = LocalState(tmp_path / "repo.git").save_trail(document)
    assert json.loads(path.read_text("utf-8")) == document
