from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class StepPlan:
    num_scheduled: np.ndarray
    token_ids: np.ndarray
