"""Summary parts shared by the workers of a parallel run (project/shared_parts.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from h2dlint.project.shared_parts import SharedParts
from h2dlint.project.summary import SummaryStore


def test_a_part_one_process_computed_is_read_by_another_store() -> None:
    shared = SharedParts.create()
    assert shared is not None
    try:
        first, second = SummaryStore(), SummaryStore()
        first.shared = second.shared = shared
        value = {"functions": [["f", None, [[".g", 3]]]], "imports": []}
        assert first.part("d1", "edges", lambda: value) == value

        def not_again() -> object:
            raise AssertionError("computed twice")

        assert second.part("d1", "edges", not_again) == value
        assert second.part("d1", "missing", lambda: None) is None  # None is a value too
        assert first.part("d1", "missing", not_again) is None
        # What a store knows without computing stays its own.
        assert second.stored("d1", "edges") == (value,)
        assert SummaryStore().stored("d1", "edges") is None
        # Only the computing store hands the part back to be saved.
        assert first.take_fresh() == {"d1": {"edges": value}}
        assert second.take_fresh() == {"d1": {"missing": None}}
    finally:
        shared.remove()
    assert not os.path.exists(shared.directory)


def test_an_unreadable_part_is_computed() -> None:
    shared = SharedParts.create()
    assert shared is not None
    try:
        with open(os.path.join(shared.directory, "d2.top"), "wb") as handle:
            handle.write(b"not a pickle")
        store = SummaryStore()
        store.shared = shared
        assert store.part("d2", "top", lambda: {"imports": {}}) == {"imports": {}}
        assert shared.get("d2", "top") == ({"imports": {}},)  # written over, whole
    finally:
        shared.remove()


def test_a_directory_a_killed_run_left_is_removed_by_the_next_run() -> None:
    shared = SharedParts.create()
    assert shared is not None
    base = os.path.dirname(shared.directory)
    # A run killed before its cleanup: its directory is named for a process that is gone.
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    orphan = os.path.join(base, f"h2dlint-parts-{gone.stdout.strip()}-x")
    os.mkdir(orphan)
    open(os.path.join(orphan, "d.part"), "wb").close()
    live = SharedParts.create()  # the running one's directory (this process) stays
    assert live is not None
    try:
        assert not os.path.exists(orphan)
        assert os.path.isdir(shared.directory)
    finally:
        shared.remove()
        live.remove()
