from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

Sample = dict[str, torch.Tensor]


class ImageCaptionDataset(Dataset):
    def __init__(self, root: Path, tokenizer: Callable[[str], list[int]], size: int = 512) -> None:
        self.root = root
        self.tokenizer = tokenizer
        self.size = size
        self.records = json.loads((root / "captions.json").read_text())

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: int) -> Sample:
        record = self.records[index]
        image = Image.open(self.root / record["file"]).convert("RGB").resize((self.size, self.size))
        pixels = torch.from_numpy(np.asarray(image, dtype=np.float32)).permute(2, 0, 1)
        return {
            "pixel_values": pixels / 127.5 - 1.0,
            "input_ids": torch.tensor(self.tokenizer(record["caption"]), dtype=torch.long),
        }


def collate_samples(samples: list[Sample]) -> Sample:
    return {
        "pixel_values": torch.stack([s["pixel_values"] for s in samples]),
        "input_ids": pad_sequence([s["input_ids"] for s in samples], batch_first=True),
    }


def make_device_collate(device: torch.device) -> Callable[[list[Sample]], Sample]:
    """A collate function for in-process loading (num_workers=0) that hands out device batches."""

    def collate(samples: list[Sample]) -> Sample:
        images = [s["pixel_values"].to(device) for s in samples]  # expect: HTD101
        return {
            "pixel_values": torch.stack(images),
            "input_ids": pad_sequence([s["input_ids"] for s in samples], batch_first=True),
        }

    return collate


def make_loaders(train_set: Dataset, val_set: Dataset, batch_size: int, num_workers: int = 4) -> tuple[DataLoader, DataLoader]:
    train = DataLoader(
        train_set,
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        pin_memory=True,
        collate_fn=collate_samples,
        drop_last=True,
    )
    # Validation batches are not pinned.
    val = DataLoader(val_set, batch_size=batch_size, num_workers=2, collate_fn=collate_samples)
    return train, val
