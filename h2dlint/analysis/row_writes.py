"""A row of a device tensor written by index into a host tensor or array (HTD201).

``order = torch.zeros((n, n))`` then, per pair of a nested loop, ``order[i, j] = yhat[idx]``
with ``yhat`` the model's output on the device (kraken's reading-order validation, session
41): PyTorch copies the 0-d device tensor into the host element, a blocking device-to-host
copy per element, as ``float(yhat[idx])`` would read it. Only a write into a tensor made on
the host (a factory without a device, a ``.cpu()`` result) or into a numpy array counts: a
write into a device tensor is a copy on the device (no sync), and a write into a list or a
dict keeps a reference to the tensor (nothing is read).
"""

from __future__ import annotations

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import RowSync


def host_write(provenance: Provenance, sync: RowSync, frame: Frame) -> bool:
    """Whether the row write ``sync`` (its ``written``) writes into a numpy array or a tensor
    proven on the host."""
    written = sync.written
    if written is None:
        return False
    if provenance.is_numpy_array(written, frame):
        return True
    return provenance.where(written, frame).on_host
