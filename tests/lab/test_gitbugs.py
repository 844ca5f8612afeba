"""Reading GitBugs CSV folders: both date formats, multi-id cells, absent ids."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from proximity.lab.gitbugs import (
    GitBugsFormatError,
    load_gitbugs,
    parse_created,
    report_records,
)

REPORTS = """Summary,Issue id,Status,Priority,Resolution,Created,Resolved,Description
Disk quota exceeded,101,Resolved,Major,Fixed,30/Sep/21 17:20,01/Oct/21 10:00,"quota, with comma"
Quota exceeded again,102,Open,Major,,01/Oct/21 09:00,,"multi
line"
Timezone wrong,103,Open,Minor,,2021-10-02 10:00:00+02:00,,tz
"""
PAIRS = """Issue id,Duplicate id
102,101
101,102
103,"101, 102"
104,101
105
"""


def write(folder, name="tiny"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_bugs.csv").write_text(REPORTS)
    (folder / f"{name}_bugs-combined.csv").write_text(PAIRS)
    return folder


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30/Sep/21 17:20", datetime(2021, 9, 30, 17, 20, tzinfo=UTC)),
        ("2020-01-02 17:14:21+00:00", datetime(2020, 1, 2, 17, 14, 21, tzinfo=UTC)),
        ("2021-10-02 10:00:00+02:00", datetime(2021, 10, 2, 8, 0, tzinfo=UTC)),
    ],
)
def test_both_export_date_formats_parse_to_aware_utc(text, expected):
    assert parse_created(text) == expected


def test_unrecognised_date_names_the_column():
    with pytest.raises(GitBugsFormatError, match="Created"):
        parse_created("yesterday")


def test_pairs_are_undirected_split_from_multi_id_cells_and_absent_ids_dropped(tmp_path):
    dataset = load_gitbugs(write(tmp_path / "tiny"))
    assert dataset.name == "tiny"
    assert [r.issue_id for r in dataset.reports] == ["101", "102", "103"]
    assert dataset.reports[1].description == "multi\nline"
    assert dataset.pairs == (("101", "102"), ("101", "103"), ("102", "103"))
    assert dataset.dropped_pairs == 1


def test_reports_become_declared_tasks_without_invented_acceptance(tmp_path):
    records, created = report_records(load_gitbugs(write(tmp_path / "tiny")))
    assert records[0].objective == "Disk quota exceeded"
    assert records[0].acceptance is None
    assert records[0].scope == "tiny"
    assert created[0] < created[1] < created[2]


def test_folder_without_the_csv_pair_is_a_clear_error(tmp_path):
    with pytest.raises(GitBugsFormatError, match=r"_bugs\.csv"):
        load_gitbugs(tmp_path)
    with pytest.raises(GitBugsFormatError, match="not a folder"):
        load_gitbugs(tmp_path / "absent")
