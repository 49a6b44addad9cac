from .request import CachedRequest


class Runner:
    def __init__(self) -> None:
        self.requests: dict[str, CachedRequest] = {}

    def _update_states(self, req_ids: list[str]) -> list[int]:
        sizes = []
        for req in self.requests.values():
            for g in req.mm_grid:
                sizes.append(int(g.prod()))  # expect: HTD201
        for rid in req_ids:
            req = self.requests[rid]
            for g in req.mm_grid_host:  # expect-not: HTD201
                sizes.append(int(g.prod()))
        return sizes
