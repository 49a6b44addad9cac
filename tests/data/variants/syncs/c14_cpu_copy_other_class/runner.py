import torch

from .state import MMState


class Runner:
    def __init__(self) -> None:
        self.states: dict[str, MMState] = {}

    def _prepare_inputs(self, req_ids: list[str]) -> list[int]:
        counts = []
        for rid in req_ids:
            st = self.states[rid]
            for i in range(st.grid.shape[0]):  # expect-not: HTD201
                counts.append(int(torch.prod(st.grid[i]).item()))
            for g in st.grid:  # expect-not: HTD201
                counts.append(int(g[1] * g[2]))
            counts.extend(int(p) for p in st.mrope_positions[0])  # expect-not: HTD201
            counts.extend(st.lengths)
        return counts
