"""Words that say a branch runs once every so many steps: the names of a period (a divisor or an
interval compared with) and of a counter of steps (what a remainder divides). One list for the
analyses, which read libcst trees (``sync_basics``, ``periodic_exits``), and for the project
index's summaries, which read CPython's ``ast`` (``step_loops``), so both sides of a periodic
exit agree."""

from __future__ import annotations

# Words of a name in a test that says the branch is taken once every so many steps.
PERIOD_WORDS = ("interval", "every", "period", "freq")

# Words of a counter of steps or calls, the left side of ``if step % n != 0: return``.
STEP_COUNTER_WORDS = ("step", "iter", "epoch", "batch_idx", "count", "tick", "round")
