from .drafter import Drafter


class SpecWorker:
    def __init__(self, drafter: Drafter) -> None:
        self.drafter = drafter

    def execute_model(self, hidden, num_spec: int) -> list[list[int]]:
        drafts = self.drafter.propose(hidden, num_spec)
        out = []
        for d in drafts:
            out.append(d.tolist())  # expect: HTD201
        return out
