"""The device facts behind session 41's gloo fix (docs/precision.md, "Session 41 (gloo41)"),
each with the twin that must keep its verdict. A device chosen between the host and a GPU
(``torch.device("cpu" if backend == "gloo" else "cuda")``, detectron2's ``comm.py`` copied into
yolox and effdet) stays unknown through ``.to(device=d)``, a helper's return, a parameter every
call passes it, ``t.device``, ``device=t.device`` factories and ``t.new_*``; the same chain from
``torch.device("cuda")`` stays the device. A list gathered on a gloo group holds host tensors
(gloo gathers take CPU tensors only); on an NCCL group, or the default one, its items keep
their device."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows, package_records

GATHER = """
import torch
import torch.distributed as dist
def _serialize(data, group):
    device = {device}
    return torch.ByteTensor(torch.ByteStorage.from_buffer(data)).to(device=device)
def _pad(tensor, group, world):
    sizes = [torch.zeros([1], dtype=torch.int64, device=tensor.device) for _ in range(world)]
    dist.all_gather(sizes, tensor.new_tensor([tensor.numel()]), group=group)
    sizes = [int(s.item()) for s in sizes]
    padding = torch.zeros((max(sizes) - tensor.numel(),), device=tensor.device)
    return sizes, torch.cat((tensor, padding), dim=0)
def all_gather(data, group, world):
    tensor = _serialize(data, group)
    sizes, tensor = _pad(tensor, group, world)
    received = [torch.empty((max(sizes),), dtype=torch.uint8, device=tensor.device) for _ in sizes]
    dist.all_gather(received, tensor, group=group)
    return [t.cpu().numpy().tobytes() for t in received]
"""
CHOICE = 'torch.device("cpu" if dist.get_backend(group) == "gloo" else "cuda")'


def test_a_chosen_device_stays_unknown_through_moves_returns_and_parameters(
    tmp_path: Path,
) -> None:
    assert cli_rows(tmp_path, GATHER.format(device=CHOICE), "HTD201") == []
    # A GPU test is no choice, and a CUDA buffer's lists are on the device.
    gpu = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    assert cli_rows(tmp_path, GATHER.format(device=gpu), "HTD201") == [10, 18]
    cuda = 'torch.device("cuda")'
    assert cli_rows(tmp_path, GATHER.format(device=cuda), "HTD201") == [10, 18]


NEW = """
import torch
def rows(x, flag):
    device = "cpu" if flag else "cuda"
    t = x.to(device=device)
    dev = t.device
    z = {made}
    return [v.item() for v in z.unbind(0)]
"""


def test_new_tensors_and_names_of_a_chosen_device_stay_unknown(tmp_path: Path) -> None:
    for made in ("t.new_zeros(4)", "torch.zeros(4, device=dev)", "torch.zeros_like(t)"):
        assert cli_rows(tmp_path, NEW.format(made=made), "HTD201") == [], made
    # A factory on the CUDA device itself stays the device.
    cuda = NEW.format(made="torch.zeros(4, device=torch.cuda.current_device())")
    assert cli_rows(tmp_path, cuda, "HTD201") == [8]


GROUPS = """
import functools
import torch
import torch.distributed as dist
@functools.lru_cache()
def _cpu_group():
    if dist.get_backend() == "nccl":
        return dist.new_group(backend="gloo")
    return dist.group.WORLD
class Coordinator:
    def __init__(self, ranks):
        self.group = dist.new_group(ranks, backend="{backend}")
    def counts(self, x, world):
        outs = [torch.zeros(1, device=x.device) for _ in range(world)]
        dist.all_gather(outs, x, group=self.group)
        return [o.item() for o in outs]
def sizes(x, world, group=None):
    {fallback}
    outs = [torch.zeros(1, device=x.device) for _ in range(world)]
    dist.all_gather(outs, x, group=group)
    return [o.item() for o in outs]
"""


def test_a_gather_on_a_gloo_group_fills_host_tensors(tmp_path: Path) -> None:
    gloo = GROUPS.format(backend="gloo", fallback="group = _cpu_group()")
    assert cli_rows(tmp_path, gloo, "HTD201") == []
    fallback = GROUPS.format(
        backend="gloo", fallback="if group is None:\n        group = _cpu_group()"
    )
    assert cli_rows(tmp_path, fallback, "HTD201") == []
    # An NCCL group, and a group only a caller gives, leave the items on the device.
    nccl = GROUPS.format(backend="nccl", fallback="pass")
    assert cli_rows(tmp_path, nccl, "HTD201") == [16, 21]


def test_a_choice_made_in_another_module(tmp_path: Path) -> None:
    files = {
        "comm.py": (
            "import torch\n"
            "def serialize(data, backend):\n"
            '    device = torch.device("cpu" if backend == "gloo" else "cuda")\n'
            "    return torch.ByteTensor(list(data)).to(device=device)\n"
        ),
        "gather.py": (
            "import torch\n"
            "import torch.distributed as dist\n"
            "from pkg.comm import serialize\n"
            "def gather(data, backend, world):\n"
            "    tensor = serialize(data, backend)\n"
            "    outs = [torch.empty_like(tensor, device=tensor.device) for _ in range(world)]\n"
            "    dist.all_gather(outs, tensor)\n"
            "    return [o.item() for o in outs]\n"
        ),
    }
    assert package_records(tmp_path, files, "HTD201") == []
