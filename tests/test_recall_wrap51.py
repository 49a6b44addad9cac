"""Session 51 (wrap51): rows of a tensor wrapper class. Ultralytics' ``Boxes``/``Keypoints``
(a ``BaseTensor`` holding ``self.data``, whose ``__getitem__`` returns a new object around
``self.data[idx]`` and whose properties ``cls``, ``conf`` slice it) are walked box by box in
``Results.plot``/``save_txt``/``summary``: ``int(d.cls)`` reads one device scalar per box
(ultralytics PRs 25230, 25842). ``analysis/tensor_wrappers`` finds such classes; HTD201 reads
a view of a walked object's row as a read of the row (MEDIUM where the wrapped tensor's
placement is unknown; HIGH where the objects were made here of a device tensor; nothing where
they hold host data)."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.diagnostics import Confidence

WRAPPER = """
import numpy as np
import torch


class BaseTensor:
    def __init__(self, data: torch.Tensor | np.ndarray, orig_shape) -> None:
        self.data = data
        self.orig_shape = orig_shape

    def cpu(self):
        if isinstance(self.data, np.ndarray):
            return self
        return self.__class__(self.data.cpu(), self.orig_shape)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, idx):
        return self.__class__(self.data[idx], self.orig_shape)


class Boxes(BaseTensor):
    @property
    def cls(self) -> torch.Tensor | np.ndarray:
        return self.data[:, -1]

    @property
    def id(self):
        return self.data[:, -3] if self.data.shape[1] == 7 else None

    @property
    def is_track(self) -> bool:
        return self.data.shape[1] == 7


class Keypoints(BaseTensor):
    @property
    def xy(self):
        return self.data[..., :2]

"""

RESULTS = (
    WRAPPER
    + """
class Results:
    def __init__(self, boxes: torch.Tensor | None = None, keypoints: torch.Tensor | None = None):
        self.boxes = Boxes(boxes, (1, 1)) if boxes is not None else None
        self.keypoints = Keypoints(keypoints, (1, 1)) if keypoints is not None else None

    def plot(self, names):
        pred_boxes = self.boxes
        for d in reversed(pred_boxes):
            c = int(d.cls)
            print(names[c])

    def summary(self):
        out = []
        for i, row in enumerate(self.boxes):
            out.append(int(row.id.item()) if row.is_track else None)
            kpt = self.keypoints[i]
            out.append(kpt.data[0].cpu())
        return out

    def plot_host(self, names):
        pred_boxes = self.boxes.cpu()
        for d in reversed(pred_boxes):
            print(names[int(d.cls)])

    def fields(self):
        return [int(d.orig_shape[0]) for d in self.boxes]
"""
)

BUILT = (
    WRAPPER
    + """
def host_boxes(rows: np.ndarray):
    boxes = Boxes(rows, (1, 1))
    return [int(d.cls) for d in boxes]


def device_boxes(pred: torch.Tensor):
    boxes = Boxes(pred.cuda(), (1, 1))
    return [int(d.cls) for d in boxes]
"""
)

NOT_WRAPPERS = '''
import numpy as np
import torch


class Detections:
    """Numpy only, no device methods: a host holder."""

    def __init__(self, xyxy: np.ndarray, class_id: np.ndarray) -> None:
        self.xyxy = xyxy
        self.class_id = class_id

    def __getitem__(self, idx):
        return Detections(self.xyxy[idx], self.class_id[idx])

    @property
    def area(self):
        return self.xyxy[:, 2]


class Iterated:
    """``__iter__`` decides the items: not the rows ``__getitem__`` slices."""

    def __init__(self, data: torch.Tensor) -> None:
        self.data = data

    def cpu(self):
        return Iterated(self.data.cpu())

    def __getitem__(self, idx):
        return Iterated(self.data[idx])

    def __iter__(self):
        yield from ({"cls": 0} for _ in range(3))

    @property
    def cls(self):
        return self.data[:, -1]


def count(dets: Detections, items: Iterated):
    a = [int(d.area) for d in dets]
    b = [int(d.cls) for d in items]
    return a, b
'''


def _found(code: str) -> list[tuple[int, Confidence]]:
    return sorted((f.start.row, f.confidence) for f in lint(code, "HTD201"))


def test_rows_of_a_wrapper_of_unknown_placement_are_medium() -> None:
    rows = WRAPPER.count("\n")
    found = _found(RESULTS)
    assert [(r - rows, c) for r, c in found] == [
        (10, Confidence.MEDIUM),  # int(d.cls) of reversed(self.boxes)
        (16, Confidence.MEDIUM),  # int(row.id.item()) per row
        (18, Confidence.MEDIUM),  # kpt.data[0].cpu() of kpt = self.keypoints[i]
    ]


def test_wrapper_objects_made_here_take_their_data_placement() -> None:
    rows = WRAPPER.count("\n")
    assert [(r - rows, c) for r, c in _found(BUILT)] == [(9, Confidence.HIGH)]


def test_numpy_holders_and_iterated_classes_are_no_wrappers() -> None:
    assert _found(NOT_WRAPPERS) == []


ITERATED_ROWS = '''
import torch


class Boxes:
    """detectron2's shape: ``__iter__`` yields the rows of ``self.tensor``."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor

    def to(self, device):
        return Boxes(self.tensor.to(device))

    def __iter__(self):
        yield from self.tensor


def corners(boxes: Boxes, host: Boxes):
    out = [box.tolist() for box in boxes]
    return out, [box.tolist() for box in host.to("cpu")]
'''


def test_a_class_iterating_its_tensor_rows_is_walked_row_by_row() -> None:
    assert _found(ITERATED_ROWS) == [(19, Confidence.MEDIUM)]


HOST_MOVED = (
    ITERATED_ROWS
    + """

def moved(boxes: Boxes):
    host = boxes.to("cpu")
    return [box.tolist() for box in host]
"""
)


def test_a_wrapper_moved_to_the_cpu_is_host_rows() -> None:
    assert _found(HOST_MOVED) == [(19, Confidence.MEDIUM)]
