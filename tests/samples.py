"""Source texts more than one test module uses."""

from __future__ import annotations

# One finding of h2dlint's on each line, each suppressed in another way.
SUPPRESSED = """\
\"\"\"Every way of suppressing an h2dlint finding that Ruff reads without a warning.\"\"\"

import torch


def send(ids: list[int], dev: torch.device) -> list[torch.Tensor]:
    \"\"\"Copy the ids to the device, each suppression form on its own line.\"\"\"
    a = torch.tensor(ids).to(dev, non_blocking=True)  # noqa: HTD102
    unused = torch.tensor(ids).to(dev, non_blocking=True)  # noqa: F841, HTD102
    c = torch.tensor(ids).to(dev, non_blocking=True)  #noqa:HTD102
    d = torch.tensor(ids).to(dev, non_blocking=True)  # NOQA: HTD102
    e = torch.tensor(ids).to(dev, non_blocking=True)  # noqa: HTD101, HTD102
    f = torch.tensor(ids).to(dev, non_blocking=True)  # h2dlint: ignore[HTD101, HTD102]
    g = torch.tensor(ids).to(dev, non_blocking=True)  # h2dlint: ignore[HTD102]
    h = torch.tensor(ids).to(dev, non_blocking=True)  # h2dlint: ignore
    i = torch.tensor(ids).to(dev, non_blocking=True)  # noqa: HTD102  # h2dlint: ignore[HTD102]
    return [a, c, d, e, f, g, h, i]
"""

SKIPPED = """\
\"\"\"A file h2dlint skips whole.\"\"\"

# h2dlint: skip-file
import torch


def send(ids: list[int], dev: torch.device) -> torch.Tensor:
    \"\"\"Copy the ids to the device.\"\"\"
    return torch.tensor(ids).to(dev, non_blocking=True)
"""
