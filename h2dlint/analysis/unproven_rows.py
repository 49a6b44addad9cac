"""Why HTD201 leaves out the rows of a tensor it does not prove on a device (a MEDIUM finding:
surely a tensor, or on a hot path), one question per kind of host code, asked in one place.

Each answer is its own module's; this one only orders them, cheapest first, and says which
applies. A row proven on a device is never left out here: the reasons below say the rows are
host rows (or not rows of one tensor), which a proof of the device contradicts.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.batch_augmentors import in_batch_augmentor
from h2dlint.analysis.data_folders import in_data_folder
from h2dlint.analysis.error_handlers import read_on_error_path
from h2dlint.analysis.host_callers import passed_on_host
from h2dlint.analysis.host_company import shown_on_host
from h2dlint.analysis.numpy_comparisons import numpy_mask
from h2dlint.analysis.numpy_modules import numpy_only_module
from h2dlint.analysis.numpy_rows import row_read_through_numpy
from h2dlint.analysis.passed_fields import field_passed_on_host
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.pytest_tests import collected_module
from h2dlint.analysis.row_findings import RowFinding
from h2dlint.analysis.row_waits import waiting_value
from h2dlint.analysis.sample_transforms import called_per_sample
from h2dlint.analysis.star_arguments import walks_star_arguments
from h2dlint.analysis.tokenizer_decodes import in_tokenizer_decode
from h2dlint.analysis.type_tests import not_a_tensor_here
from h2dlint.context import FileContext


def unproven_rows_on_host(
    context: FileContext,
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    node: cst.CSTNode,
    finding: RowFinding,
) -> str | None:
    """Why the rows ``finding`` reads at ``node`` (the last of ``ancestors``) are host rows,
    or None where nothing says so."""
    sync, loop = finding.sync, finding.loop
    if not_a_tensor_here(provenance, ancestors, sync.tensor):
        return "the `else` of `if isinstance(x, torch.Tensor)`: a list's rows"
    if in_tokenizer_decode(ancestors):
        return "a text tokenizer's decode of the ids handed to it: host ids"
    if row_read_through_numpy(sync.call, sync.tensor):
        return "`boxes[i].numpy()` raises on a device tensor: host rows"
    if in_batch_augmentor(context.imports, ancestors):
        return "the data loader's batch augmentor: host batches"
    if in_data_folder(context.path, ancestors):
        return "a `datasets/` or `preprocessors/` folder's code: host data"
    if read_on_error_path(ancestors[:-1], node, sync.call):
        return "in `except Exception:`: runs when the step failed"
    if walks_star_arguments(ancestors, loop.tensor):
        return "`for t in args` of `*args`: the call's few arguments, read one by one"
    if numpy_only_module(context):
        return "a module in numpy that imports no torch and calls no tensor method: host arrays"
    waiting = waiting_value(sync.call, loop)  # a value computed from the row: what is read
    if waiting is not None and numpy_mask(provenance, waiting, provenance.current_frame()):
        return "`names == name` of `names = np.array(...)`: a numpy mask"
    if shown_on_host(context, ancestors, loop.tensor, sync.tensor):
        return "`seqlens + torch.tensor(pads)` in the function: host tensors, or it raises"
    if collected_module(context.file_name):
        return "a module pytest collects: its tests run once per test case"
    if called_per_sample(context, ancestors):
        return "a method the module's `Dataset` calls per sample: the loader's host data"
    if passed_on_host(provenance, ancestors, sync.tensor):
        return "every call of the function passes the tensor on the host: host rows"
    if field_passed_on_host(provenance, ancestors, sync.tensor):
        return "every call fills the dict parameter's field with host data: host rows"
    return None
