from dataclasses import dataclass

import torch


@dataclass
class AttnMetadata:
    seq_lens: torch.Tensor
    seq_lens_cpu: torch.Tensor
    block_tables: torch.Tensor
