"""The published report for the installed torch: every reproduction in it fails when run as shown."""

import json
from pathlib import Path

import pytest
import torch
from reproductions import assert_each_fails

PUBLISHED = Path(__file__).resolve().parent.parent / "reports" / "published"
INSTALLED = torch.__version__.split("+")[0]
REPORT = PUBLISHED / f"torch-{INSTALLED}" / "report.json"


def _failures() -> list[dict]:
    if not REPORT.is_file():
        return []
    return json.loads(REPORT.read_text())["correctness"]["failures"]


def test_the_published_report_was_made_with_this_torch():
    if not REPORT.is_file():
        pytest.skip(f"no published report for torch {INSTALLED} in {PUBLISHED}")
    environment = json.loads(REPORT.read_text())["environment"]
    assert environment["torch"]["version"].split("+")[0] == INSTALLED


def test_each_published_reproduction_fails_as_shown():
    failures = _failures()
    if not failures:
        pytest.skip(f"no published failures for torch {INSTALLED}")
    assert_each_fails(failures)
