from __future__ import annotations

import os

import pytest

# The example projects and the variant batteries are data for test_seed_projects.py and
# test_variants_*.py, not tests (a battery case may hold a test_*.py: test code h2dlint skips).
collect_ignore_glob = ["projects/*", "data/*"]


@pytest.fixture(autouse=True)
def _no_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read or write a result cache it did not ask for."""
    monkeypatch.delenv("H2DLINT_CACHE_DIR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def pytest_report_header() -> str:
    return f"h2dlint tests, cwd={os.getcwd()}"
