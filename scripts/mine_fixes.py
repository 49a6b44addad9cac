"""Mine upstream fixes of host<->device copies and syncs from consecutive releases on PyPI.

For each release pair below (or given with ``--pair NAME:OLD:NEW``) both versions are fetched
into the corpus cache (``scripts/fetch_corpus.py``: ``pip download --no-deps``, ``.py`` files
only, outside the repository), every ``.py`` file the two versions share is diffed with
difflib, and a hunk becomes a candidate when a removed line holds a copy/sync marker
(``.item()``, ``.cpu()``, ``.to(``, ``torch.tensor(``, ``nonzero`` ...) and the added side
looks like it removes, vectorises or moves it: fewer markers, ``non_blocking``/``pin_memory``/
``device=``/``output_size=`` gained, or the same statement re-added with less indentation
(moved out of a loop). Candidates are written as TSV for a person to label:

    python scripts/mine_fixes.py -o /tmp/candidates.tsv
    python scripts/mine_fixes.py --pair lmdeploy:0.17.0:0.18.0 -o -

Only lines and short summaries are printed, never whole files. vllm, vllm-omni and sglang are
refused: they are reserved for an independent evaluation. A file that names vllm or sglang in
either version (a vendored copy, an integration shim) is skipped unread: its lines are never
diffed or printed, and the count of such files is reported per pair.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import re
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from fetch_corpus import RESERVED, fetch

# Session 16's consecutive releases of three packages (see the end of PAIRS).
_FMS = ("1.0.0", "1.2.0", "1.4.0", "1.6.0", "1.8.0", "1.10.0", "1.11.0", "1.12.1", "1.13.1")
_LMCACHE = ("0.3.3", "0.3.6", "0.3.9", "0.3.12", "0.3.15")
_XFUSER = ("0.3.5", "0.4.0", "0.4.3", "0.4.5", "0.5.0")
# Session 17's older releases (transfer families).
_LMDEPLOY_OLD = ("0.2.0", "0.2.3", "0.2.6", "0.3.0", "0.4.0", "0.4.2")
_TRANSFORMERS_4 = (
    "4.50.3",
    "4.51.3",
    "4.52.4",
    "4.53.3",
    "4.54.1",
    "4.55.4",
    "4.56.2",
    "4.57.6",
    "5.0.0",
    "5.2.0",
    "5.4.0",
    "5.5.4",
    "5.6.2",
)
_ACCELERATE = ("0.34.2", "1.0.1", "1.3.0", "1.6.0", "1.8.1", "1.10.0")
# Session 19's never-mined packages (consecutive pairs of these).
_TRL = (
    "0.19.0",
    "0.21.0",
    "0.23.1",
    "0.25.1",
    "0.27.2",
    "0.29.1",
    "1.2.0",
    "1.6.0",
    "1.10.0",
    "1.13.0",
    "1.16.0",
)
_TORCHRL = ("0.10.1", "0.11.1", "0.12.0", "0.13.3", "0.14.1")
_LEROBOT = ("0.3.3", "0.4.0", "0.4.2", "0.4.4")
_SBERT = ("5.0.0", "5.2.3", "5.5.1", "6.0.1", "6.3.0")
# Session 20's transformers releases between the session-17 and session-7 pairs.
_TRANSFORMERS_5_MID = (
    "5.6.2",
    "5.7.0",
    "5.8.0",
    "5.9.0",
    "5.10.1",
    "5.11.0",
    "5.12.0",
    "5.13.0",
    "5.14.0",
)
# Session 20 (helper recall20b): model and training code never mined before.
_ULTRALYTICS = ("8.3.0", "8.3.100", "8.3.200", "8.4.0", "8.4.100", "8.4.190")
_MONAI = ("1.3.2", "1.4.0", "1.5.0", "1.5.2", "1.6.1")
_KORNIA = ("0.7.4", "0.8.0", "0.8.2", "0.9.0")
_TORCHMETRICS = ("1.5.2", "1.6.3", "1.7.4", "1.8.2", "1.9.0")
_PYG = ("2.5.3", "2.6.1", "2.7.0", "2.8.1")
# Session 21 (helper recall21b): model, quantization and training code never mined before.
_MODELOPT = ("0.33.1", "0.35.1", "0.37.0", "0.39.0", "0.41.0", "0.43.0", "0.45.0", "0.47.0")
_TRANSFORMER_ENGINE = ("2.8.0", "2.10.0", "2.12.0", "2.14.1", "2.16.1", "2.18.0", "2.20.2")
_BITSANDBYTES = ("0.45.5", "0.46.1", "0.47.0", "0.48.2", "0.49.2", "0.50.2")
# Session 21 (helper recall21a): exllamav3 before the session-10 pairs, lmcache in smaller steps.
_EXLLAMAV3_EARLY = ("0.0.6", "0.0.12", "0.0.16", "0.0.20", "0.0.25", "0.0.30", "0.0.35", "0.0.43")
_LMCACHE_LATE = ("0.3.15", "0.4.1", "0.4.4", "0.4.7", "0.5.0", "0.5.3", "0.5.6")
# Session 22 (helper recall22a): deepspeed, exllamav2 and optimum releases never diffed.
_DEEPSPEED_EARLY = ("0.12.0", "0.12.6", "0.13.0", "0.13.5", "0.14.0", "0.14.5", "0.15.0")
_EXLLAMAV2_EARLY = ("0.0.4", "0.0.7", "0.0.10", "0.0.13", "0.0.16", "0.0.19", "0.0.21")
_OPTIMUM_MID = ("1.17.1", "1.19.2", "1.21.4", "1.23.3", "1.24.0")

# Session 22 (helper recall22b): model, RL, training-loop and speech code never mined before.
_SB3 = ("1.8.0", "2.0.0", "2.1.0", "2.2.1", "2.3.2", "2.4.1", "2.5.0", "2.6.0", "2.7.1", "2.8.0")
_SB3 = (*_SB3, "2.9.2")
_TIANSHOU = ("0.5.1", "1.0.0", "1.1.0", "1.2.0", "2.0.1")
_WHISPERX = ("3.3.1", "3.4.2", "3.5.0", "3.7.0", "3.8.6")
_MMENGINE = ("0.8.5", "0.9.1", "0.10.3", "0.10.5", "0.10.7")
_NEMO = ("2.2.1", "2.3.3", "2.4.1", "2.5.3", "2.6.2", "2.7.3", "3.0.0")

# Session 23 (helper heldout23): packages whose releases had never been diffed.
_ANOMALIB = ("1.1.0", "1.2.0", "2.0.0", "2.2.0", "2.4.0", "2.6.0", "2.7.0")
_GLINER = ("0.2.13", "0.2.17", "0.2.21", "0.2.25", "0.2.29")
_LIGHTLY = ("1.5.10", "1.5.15", "1.5.20", "1.5.26", "1.6.0")
_FAIRSEQ2 = ("0.2.1", "0.3.0", "0.4.0", "0.4.6", "0.5.2", "0.6", "0.7.0", "0.8.1")
_PYANNOTE = ("3.0.1", "3.1.1", "3.3.2", "3.4.0", "4.0.0", "4.0.7")
# Session 24 (helper heldout24a): RL-training, fine-tuning, quantisation and ASR releases.
_VERL = ("0.3.0.post1", "0.4.0", "0.4.1", "0.5.0", "0.6.1", "0.7.1", "0.8.0", "0.9.1")
_LLM_FOUNDRY = ("0.10.0", "0.14.5", "0.17.1", "0.19.0", "0.21.0", "0.22.0")
_AXOLOTL = ("0.8.1", "0.10.0", "0.12.2", "0.14.0", "0.16.1", "0.18.0", "0.19.0")
# Session 24 (helper heldout24b): scientific and forecasting code never diffed.
_PYRO = ("1.8.0", "1.8.3", "1.8.6", "1.9.0", "1.9.2")
_GPYTORCH = ("1.9.1", "1.11", "1.12", "1.13", "1.14", "1.15.2")
_BOTORCH = ("0.9.5", "0.11.3", "0.13.0", "0.15.1", "0.17.2", "0.18.1")
_NEURALFORECAST = ("1.6.4", "1.7.7", "2.0.1", "3.0.2", "3.1.9", "3.3.0")

# Consecutive releases over roughly the last one to two years, serving engines and model code
# first. Kept modest: every version is a full download of the package's .py files.
# Session 26 (helper heldout26).
_SURYA = ("0.4.15", "0.6.1", "0.9.3", "0.12.1", "0.14.7", "0.16.7", "0.17.1", "0.22.1")
_DOCLING_MODELS = ("2.0.8", "3.4.4", "3.10.3", "3.15.0", "4.0.4")
_OPTIMUM_INTEL = ("1.15.2", "1.17.2", "1.18.3", "1.20.1", "1.22.0", "1.24.0", "1.26.1", "2.2.0")
_FAIRCHEM = ("1.10.0", "2.2.0", "2.7.1", "2.13.0", "2.18.1", "2.24.0")
_RFDETR = ("1.2.1", "1.4.3", "1.6.5", "1.8.3", "1.10.1", "1.11.2")
# Session 27 (helper heldout27).
_OLMO_CORE = ("1.0.0", "1.3.0", "1.6.0", "1.9.0", "2.1.0", "2.3.0", "2.6.0", "3.0.0")
_COMPRESSED_TENSORS = ("0.12.2", "0.14.0", "0.16.0", "0.18.0", "0.20.1")
_TORCH_TENSORRT = ("2.6.0", "2.8.0", "2.10.0", "2.12.0", "2.14.0")
_PROTENIX = ("0.4.0", "0.5.0", "0.7.0", "1.0.0", "1.1.0", "2.0.0")
_OPTIMUM = ("1.17.0", "1.20.0", "1.23.0", "1.26.1", "2.0.0", "2.3.0")
_NNUNET = ("2.1.2", "2.2.1", "2.3.1", "2.4.2", "2.5.2", "2.6.4", "2.8.1")
# Session 28 (helper heldout28).
_EOLE = ("0.0.1", "0.0.3", "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.4.4", "0.5.0", "0.5.3", "0.6.0")
_EOLE += ("0.6.4",)
_OPENNMT = ("2.3.0", "3.0.4", "3.1.3", "3.2.0", "3.3", "3.4.3", "3.5.1")
_X_TRANSFORMERS = ("1.25.6", "1.30.0", "1.35.0", "1.40.0", "1.44.8", "2.3.0", "2.10.0", "2.20.0")
_X_TRANSFORMERS += ("2.31.10",)
_STABLE_TS = ("2.6.0", "2.10.0", "2.13.0", "2.15.0", "2.17.0", "2.19.1")
PAIRS: list[tuple[str, str, str]] = [
    ("lmdeploy", "0.9.2", "0.10.0"),
    ("lmdeploy", "0.10.0", "0.11.0"),
    ("lmdeploy", "0.11.0", "0.12.0"),
    ("lmdeploy", "0.12.0", "0.13.0"),
    ("lmdeploy", "0.13.0", "0.14.0"),
    ("lmdeploy", "0.14.0", "0.15.0"),
    ("lmdeploy", "0.15.0", "0.16.0"),
    ("lmdeploy", "0.16.0", "0.17.0"),
    ("lmdeploy", "0.17.0", "0.18.0"),
    ("transformers", "5.16.0", "5.17.0"),
    ("transformers", "5.17.0", "5.18.0"),
    ("transformers", "5.18.0", "5.19.0"),
    ("transformers", "5.19.0", "5.20.0"),
    ("transformers", "5.20.0", "5.21.0"),
    ("transformers", "5.21.0", "5.22.0"),
    ("transformers", "5.22.0", "5.23.0"),
    ("transformers", "5.23.0", "5.24.0"),
    ("diffusers", "0.36.0", "0.37.0"),
    ("diffusers", "0.37.0", "0.38.0"),
    ("diffusers", "0.38.0", "0.39.0"),
    ("diffusers", "0.39.0", "0.40.0"),
    ("diffusers", "0.40.0", "0.41.0"),
    ("diffusers", "0.41.0", "0.42.1"),
    ("megatron-core", "0.13.1", "0.14.0"),
    ("megatron-core", "0.14.0", "0.15.0"),
    ("megatron-core", "0.15.0", "0.16.1"),
    ("deepspeed", "0.18.9", "0.19.0"),
    ("deepspeed", "0.19.0", "0.19.8"),
    ("torchrec", "1.7.0", "1.8.0"),
    ("torchrec", "1.8.0", "1.9.2"),
    ("accelerate", "1.13.0", "1.15.0"),
    ("peft", "0.20.0", "0.21.2"),
    ("timm", "1.0.25", "1.0.31"),
    ("lightning", "2.6.0", "2.6.6"),
    ("torchao", "0.16.0", "0.17.0"),
    ("torchao", "0.17.0", "0.18.0"),
    ("flashinfer-python", "0.6.18", "0.7.4"),
    ("torchtune", "0.5.0", "0.6.1"),
    ("exllamav2", "0.2.9", "0.3.2"),
    ("litgpt", "0.5.11", "0.5.13"),
    ("gptqmodel", "7.6.0", "7.7.0"),
    # Session 7: more serving engines and inference code (issue #11).
    ("lmdeploy", "0.7.3", "0.8.0"),
    ("lmdeploy", "0.8.0", "0.9.0"),
    ("lmdeploy", "0.9.0", "0.9.2"),
    ("deepspeed-mii", "0.3.1", "0.3.2"),
    ("deepspeed-mii", "0.3.2", "0.3.3"),
    ("mistral-inference", "1.4.0", "1.5.0"),
    ("mistral-inference", "1.5.0", "1.6.0"),
    ("optimum", "1.24.0", "1.25.0"),
    ("optimum", "1.26.1", "1.27.0"),
    ("litgpt", "0.5.7", "0.5.9"),
    ("litgpt", "0.5.9", "0.5.11"),
    ("torchtune", "0.4.0", "0.5.0"),
    ("exllamav2", "0.2.7", "0.2.9"),
    ("flashinfer-python", "0.6.17", "0.6.18"),
    ("transformers", "5.14.0", "5.15.0"),
    ("transformers", "5.15.0", "5.16.0"),
    ("diffusers", "0.34.0", "0.35.0"),
    ("diffusers", "0.35.0", "0.36.0"),
    # Session 14: a kernel library's host code, a TTS model, tensor collections and their
    # CUDA-graph wrapper (read with --pair first; mamba-ssm and torchrl would not download).
    ("liger-kernel", "0.6.0", "0.6.5"),
    ("liger-kernel", "0.6.5", "0.7.0"),
    ("liger-kernel", "0.7.0", "0.8.0"),
    ("liger-kernel", "0.8.0", "0.8.5"),
    ("moshi", "0.2.4", "0.2.8"),
    ("moshi", "0.2.8", "0.2.13"),
    ("chatterbox-tts", "0.1.2", "0.1.4"),
    ("chatterbox-tts", "0.1.4", "0.1.7"),
    ("f5-tts", "1.1.0", "1.1.10"),
    ("f5-tts", "1.1.10", "1.1.22"),
    ("tensordict", "0.11.0", "0.12.0"),
    ("tensordict", "0.12.0", "0.14.0"),
    ("tensordict", "0.14.0", "0.15.3"),
    # Session 16: pairs mined before for transfers only (session 15) or not at all, now for
    # every marker; the held-out rows came from fastvideo, colossalai and megatron-core.
    ("fastvideo", "0.1.0", "0.1.3"),
    ("fastvideo", "0.1.5", "0.1.7"),
    ("fastvideo", "0.1.7", "0.2.0"),
    ("colossalai", "0.3.6", "0.3.9"),
    ("colossalai", "0.3.9", "0.4.0"),
    ("colossalai", "0.4.0", "0.4.3"),
    ("colossalai", "0.4.3", "0.4.6"),
    ("colossalai", "0.4.6", "0.4.9"),
    ("colossalai", "0.4.9", "0.5.0"),
    ("megatron-core", "0.7.0", "0.8.0"),
    ("megatron-core", "0.8.0", "0.9.0"),
    ("megatron-core", "0.9.0", "0.10.0"),
    ("megatron-core", "0.10.0", "0.11.0"),
    ("lmdeploy", "0.4.2", "0.5.0"),
    ("lmdeploy", "0.6.5", "0.7.0"),
    ("lmdeploy", "0.7.0", "0.7.3"),
    ("deepspeed", "0.15.0", "0.15.4"),
    ("deepspeed", "0.15.4", "0.16.0"),
    ("deepspeed", "0.16.0", "0.16.5"),
    ("deepspeed", "0.16.5", "0.17.0"),
    ("deepspeed", "0.17.0", "0.17.6"),
    *(("ibm-fms", a, b) for a, b in itertools.pairwise(_FMS)),
    *(("lmcache", a, b) for a, b in itertools.pairwise(_LMCACHE)),
    *(("xfuser", a, b) for a, b in itertools.pairwise(_XFUSER)),
    ("transformers", "5.24.0", "5.25.0"),
    ("openrlhf", "0.9.0", "0.10.4"),
    # Session 17 (transfer families). Batch 1, tuned on:
    *(("lmdeploy", a, b) for a, b in itertools.pairwise(_LMDEPLOY_OLD)),
    ("lmdeploy", "0.5.0", "0.5.3"),
    ("lmdeploy", "0.5.3", "0.6.0"),
    *(("transformers", a, b) for a, b in itertools.pairwise(_TRANSFORMERS_4)),
    ("diffusers", "0.31.0", "0.32.2"),
    ("diffusers", "0.32.2", "0.33.1"),
    ("diffusers", "0.33.1", "0.34.0"),
    ("peft", "0.15.2", "0.16.0"),
    ("peft", "0.16.0", "0.17.1"),
    ("peft", "0.17.1", "0.18.1"),
    *(("accelerate", a, b) for a, b in itertools.pairwise(_ACCELERATE)),
    ("tensordict", "0.8.3", "0.9.1"),
    ("tensordict", "0.9.1", "0.10.0"),
    ("tensordict", "0.10.0", "0.11.0"),
    ("openrlhf", "0.8.0", "0.8.11"),
    ("openrlhf", "0.8.11", "0.9.0"),
    ("exllamav2", "0.1.8", "0.2.0"),
    ("exllamav2", "0.2.0", "0.2.5"),
    # Session 17, batch 2 (held out):
    ("transformers", "4.46.3", "4.48.3"),
    ("transformers", "4.48.3", "4.50.3"),
    ("diffusers", "0.29.2", "0.30.3"),
    ("diffusers", "0.30.3", "0.31.0"),
    ("peft", "0.13.2", "0.15.2"),
    ("lmdeploy", "0.1.0", "0.2.0"),
    ("accelerate", "0.30.1", "0.34.2"),
    ("tensordict", "0.6.2", "0.8.3"),
    ("torchtune", "0.2.1", "0.3.1"),
    ("torchtune", "0.3.1", "0.4.0"),
    ("litgpt", "0.4.13", "0.5.0"),
    ("litgpt", "0.5.0", "0.5.7"),
    ("deepspeed-mii", "0.2.4", "0.3.1"),
    ("exllamav2", "0.0.21", "0.1.0"),
    ("exllamav2", "0.1.0", "0.1.8"),
    ("llama-models", "0.1.5", "0.2.0"),
    ("llama-models", "0.2.0", "0.3.0"),
    ("openrlhf", "0.6.4", "0.7.5"),
    ("openrlhf", "0.7.5", "0.8.0"),
    # Session 19 (helper recall19): packages whose releases had never been mined. Files that
    # name vllm or sglang were deleted unread before reading (most of trl's trainers).
    *(("trl", a, b) for a, b in itertools.pairwise(_TRL)),
    *(("torchrl", a, b) for a, b in itertools.pairwise(_TORCHRL)),
    *(("lerobot", a, b) for a, b in itertools.pairwise(_LEROBOT)),
    *(("sentence-transformers", a, b) for a, b in itertools.pairwise(_SBERT)),
    ("timm", "1.0.15", "1.0.20"),
    ("timm", "1.0.20", "1.0.25"),
    ("torchao", "0.12.0", "0.14.1"),
    ("torchao", "0.14.1", "0.16.0"),
    ("mamba-ssm", "2.2.2", "2.2.6.post3"),
    ("mamba-ssm", "2.2.6.post3", "2.3.2.post1"),
    ("accelerate", "1.15.0", "1.16.0"),
    ("peft", "0.18.1", "0.20.0"),
    # Session 20 (helper recall20a): serving, inference and quantization packages never mined.
    # Files naming vllm or sglang were deleted unread from every version before mining.
    ("airllm", "2.11.0", "3.2.0"),
    ("airllm", "3.2.0", "4.0.0"),
    ("auto-round", "0.14.2", "0.15.1"),
    ("auto-round", "0.15.1", "0.16.1"),
    ("autoawq", "0.2.6", "0.2.7.post3"),
    ("autoawq", "0.2.7.post3", "0.2.9"),
    ("autoawq", "0.2.3", "0.2.6"),
    ("cache-dit", "1.2.3", "1.3.0"),
    ("cache-dit", "1.3.0", "1.3.12"),
    ("cache-dit", "1.3.12", "1.5.3"),
    ("cache-dit", "1.0.16", "1.1.10"),
    ("cache-dit", "1.1.10", "1.2.3"),
    ("coqui-tts", "0.26.2", "0.27.5"),
    ("coqui-tts", "0.27.5", "0.28.0"),
    ("diffsynth", "2.0.18", "2.1.6"),
    ("diffsynth", "2.1.6", "2.1.12"),
    ("diffsynth", "1.1.9", "2.0.18"),
    ("exllamav2", "0.2.5", "0.2.7"),
    ("fish-speech-lib", "0.1.0", "0.1.1.1"),
    ("funasr", "1.3.30", "1.4.8"),
    ("funasr", "1.4.8", "1.4.16"),
    ("funasr", "1.2.9", "1.3.30"),
    ("hqq", "0.2.5", "0.2.6"),
    ("hqq", "0.2.6", "0.2.7.post1"),
    ("hqq", "0.2.7.post1", "0.2.8.post1"),
    ("hqq", "0.2.1", "0.2.5"),
    ("infinity-emb", "0.0.70", "0.0.74"),
    ("infinity-emb", "0.0.74", "0.0.78"),
    ("ipex-llm", "2.1.0", "2.2.0"),
    ("kokoro", "0.8.4", "0.9.4"),
    ("kvpress", "0.4.3", "0.5.0"),
    ("kvpress", "0.5.0", "0.5.2"),
    ("kvpress", "0.5.2", "0.5.5"),
    ("kvpress", "0.2.10", "0.3.0"),
    ("kvpress", "0.3.0", "0.4.3"),
    ("llmcompressor", "0.12.0", "0.13.0"),
    ("llmcompressor", "0.13.0", "0.14.0"),
    ("optimum-habana", "1.20.0", "1.21.2"),
    ("optimum-habana", "1.18.1", "1.19.1"),
    ("optimum-habana", "1.19.1", "1.20.0"),
    ("optimum-quanto", "0.2.4", "0.2.7"),
    ("parler-tts", "0.2.2", "0.2.3"),
    ("petals", "2.1.0", "2.2.0.post1"),
    ("petals", "2.0.1", "2.1.0"),
    ("petals", "2.2.0", "2.2.0.post1"),
    ("tokasaurus", "0.0.2", "0.0.3"),
    ("tokasaurus", "0.0.3", "0.0.3.post1"),
    ("tokasaurus", "0.0.3.post1", "0.0.4"),
    # Session 20 (helper recall20c): serving-like code only (transformers' generation/,
    # cache_utils.py, integrations/; flash-attn's Python wrappers; logits processors). The
    # 5.6.2 -> 5.14.0 pairs had been mined in sessions 10 and 12 but never recorded here; the
    # 4.50.3 -> 5.6.2 pairs above (session 17) were read for transfers only, so their sync
    # candidates in these folders were read for the first time. Files that name vllm or sglang
    # were deleted (or skipped) unread.
    *(("transformers", a, b) for a, b in itertools.pairwise(_TRANSFORMERS_5_MID)),
    ("flash-attn", "2.6.3", "2.7.4.post1"),
    ("flash-attn", "2.7.4.post1", "2.8.3.post2"),
    *(("outlines", a, b) for a, b in itertools.pairwise(("0.1.14", "1.0.4", "1.2.3", "1.3.3"))),
    *(("xgrammar", a, b) for a, b in itertools.pairwise(("0.1.19", "0.1.25", "0.2.0", "0.2.8"))),
    ("llguidance", "0.7.30", "1.3.0"),
    ("llguidance", "1.3.0", "1.9.1"),
    # Session 20 (helper recall20b): model and training code whose releases had never been
    # mined. No file of these versions named vllm or sglang.
    *(("ultralytics", a, b) for a, b in itertools.pairwise(_ULTRALYTICS)),
    *(("monai", a, b) for a, b in itertools.pairwise(_MONAI)),
    *(("kornia", a, b) for a, b in itertools.pairwise(_KORNIA)),
    *(("torchmetrics", a, b) for a, b in itertools.pairwise(_TORCHMETRICS)),
    *(("torch-geometric", a, b) for a, b in itertools.pairwise(_PYG)),
    ("speechbrain", "1.0.3", "1.1.0"),
    ("speechbrain", "1.1.0", "1.1.2"),
    ("mosaicml", "0.28.0", "0.30.0"),
    ("mosaicml", "0.30.0", "0.32.1"),
    ("open-clip-torch", "2.29.0", "3.0.0"),
    ("open-clip-torch", "3.0.0", "3.3.0"),
    ("sam2", "0.4.1", "1.1.0"),
    # Session 21 (helper recall21b): transformer-engine's wheel (its PyTorch part holds the
    # held-out rows), nvidia-modelopt, bitsandbytes. Files naming vllm or sglang were deleted
    # unread from every version before mining (modelopt: 1 to 32 per version; bitsandbytes
    # 0.50.2: 1; transformer-engine: none).
    *(("nvidia-modelopt", a, b) for a, b in itertools.pairwise(_MODELOPT)),
    *(("transformer-engine", a, b) for a, b in itertools.pairwise(_TRANSFORMER_ENGINE)),
    *(("bitsandbytes", a, b) for a, b in itertools.pairwise(_BITSANDBYTES)),
    # Session 21 (helper recall21a): serving and structured-generation releases never mined
    # (exllamav3 before 0.0.43, older outlines/xgrammar/llguidance, punica, fschat,
    # lm-format-enforcer, transformers-cfg, guidance, auto-gptq, mistral-inference 1.1-1.4,
    # deepspeed-mii 0.2.2-0.2.4, lmcache 0.3.15-0.5.6 in smaller steps). Files naming vllm or
    # sglang were deleted unread from every version first. ktransformers and minference would
    # not download (payload-only or missing wheels).
    *(("exllamav3", a, b) for a, b in itertools.pairwise(_EXLLAMAV3_EARLY)),
    *(("outlines", a, b) for a, b in itertools.pairwise(("0.0.34", "0.0.40", "0.0.46", "0.1.0"))),
    ("outlines", "0.1.0", "0.1.14"),
    ("xgrammar", "0.1.6", "0.1.10"),
    ("xgrammar", "0.1.10", "0.1.13"),
    ("xgrammar", "0.1.13", "0.1.19"),
    ("llguidance", "0.6.31", "0.7.0"),
    ("punica", "0.0.10", "0.0.23"),
    ("punica", "0.0.23", "0.1.0"),
    ("punica", "0.1.0", "0.2.1"),
    ("fschat", "0.2.20", "0.2.30"),
    ("fschat", "0.2.30", "0.2.33"),
    ("fschat", "0.2.33", "0.2.36"),
    *(
        ("lm-format-enforcer", a, b)
        for a, b in itertools.pairwise(("0.9.0", "0.10.1", "0.10.12", "0.11.3"))
    ),
    *(
        ("transformers-cfg", a, b)
        for a, b in itertools.pairwise(("0.1.3", "0.2.0", "0.2.4", "0.2.7"))
    ),
    *(("guidance", a, b) for a, b in itertools.pairwise(("0.1.10", "0.1.16", "0.2.0", "0.3.1"))),
    *(("auto-gptq", a, b) for a, b in itertools.pairwise(("0.4.2", "0.5.1", "0.6.0", "0.7.1"))),
    ("mistral-inference", "1.1.0", "1.3.1"),
    ("mistral-inference", "1.3.1", "1.4.0"),
    ("deepspeed-mii", "0.2.2", "0.2.3"),
    ("deepspeed-mii", "0.2.3", "0.2.4"),
    *(("lmcache", a, b) for a, b in itertools.pairwise(_LMCACHE_LATE)),
    # Session 22 (helper recall22b): model, RL, training-loop and speech code never mined
    # (nemo-toolkit's asr/tts/audio/speechlm collections read; stable-baselines3, tianshou,
    # whisperx, mmengine; older trl, timm, speechbrain, open-clip-torch, peft, torchtune).
    # Files naming vllm or sglang were deleted unread first (nemo-toolkit 2.4.1-2.7.3: 10-12
    # per version; trl 0.15.2: 6, 0.17.0: 9); nemo-toolkit 3.0.0 is shared, so it was read from
    # a copy without its 8 such files.
    *(("stable-baselines3", a, b) for a, b in itertools.pairwise(_SB3)),
    *(("tianshou", a, b) for a, b in itertools.pairwise(_TIANSHOU)),
    *(("whisperx", a, b) for a, b in itertools.pairwise(_WHISPERX)),
    *(("mmengine", a, b) for a, b in itertools.pairwise(_MMENGINE)),
    *(("nemo-toolkit", a, b) for a, b in itertools.pairwise(_NEMO)),
    ("trl", "0.9.6", "0.11.4"),
    ("trl", "0.11.4", "0.12.2"),
    ("trl", "0.12.2", "0.15.2"),
    ("trl", "0.15.2", "0.17.0"),
    ("trl", "0.17.0", "0.19.0"),
    *(
        ("timm", a, b)
        for a, b in itertools.pairwise(("0.9.7", "0.9.16", "1.0.3", "1.0.9", "1.0.15"))
    ),
    ("speechbrain", "0.5.16", "1.0.0"),
    ("speechbrain", "1.0.0", "1.0.3"),
    ("open-clip-torch", "2.24.0", "2.26.1"),
    ("open-clip-torch", "2.26.1", "2.29.0"),
    ("peft", "0.10.0", "0.12.0"),
    ("peft", "0.12.0", "0.13.2"),
    ("torchtune", "0.1.1", "0.2.1"),
    # Session 22 (helper recall22a): deepspeed before the session-16 pairs (FastGen's first
    # releases, ZeRO and MoE) and between the session-16 and session-1 pairs, exllamav2 before
    # 0.0.21, xfuser after 0.5.0, moshi before 0.2.4, optimum 1.17-1.24. Files naming vllm or
    # sglang were deleted unread from every version fetched first (xfuser 0.5.0 and 0.6.0: 7
    # each; optimum 1.23.3 and 1.24.0: 1 each); xfuser 0.7.0 (shared, pinned) was not
    # touched: its 8 such files were filtered out of the candidates unread.
    *(("deepspeed", a, b) for a, b in itertools.pairwise(_DEEPSPEED_EARLY)),
    ("deepspeed", "0.17.6", "0.18.0"),
    ("deepspeed", "0.18.0", "0.18.9"),
    *(("exllamav2", a, b) for a, b in itertools.pairwise(_EXLLAMAV2_EARLY)),
    ("xfuser", "0.5.0", "0.6.0"),
    ("xfuser", "0.6.0", "0.7.0"),
    ("moshi", "0.2.1", "0.2.4"),
    *(("optimum", a, b) for a, b in itertools.pairwise(_OPTIMUM_MID)),
    # Session 23 (helper heldout23b): the newest releases of packages mined before, in single
    # steps (transformers 5.24.0 -> 5.25.0 above had never been fetched). Files naming vllm or
    # sglang were deleted unread from every version fetched first (transformers 5.25.0: 75;
    # trl 1.15.0: 45; unsloth 2026.10.7 and 2026.10.8: 64 and 68; torchao 0.17.0: 6;
    # liger-kernel 0.8.4: 7; exllamav3 1.6.3 and 1.6.4: 5 each; megatron-core 0.16.0: 2); the
    # shared pinned versions kept theirs, filtered out of the candidates unread.
    ("megatron-core", "0.16.0", "0.16.1"),
    ("deepspeed", "0.19.6", "0.19.7"),
    ("deepspeed", "0.19.7", "0.19.8"),
    ("trl", "1.15.0", "1.16.0"),
    ("timm", "1.0.30", "1.0.31"),
    ("liger-kernel", "0.8.4", "0.8.5"),
    ("lerobot", "0.4.3", "0.4.4"),
    ("unsloth", "2026.10.7", "2026.10.8"),
    ("unsloth", "2026.10.8", "2026.10.9"),
    ("exllamav3", "1.6.3", "1.6.4"),
    ("exllamav3", "1.6.4", "1.6.5"),
    # Session 23 (helper heldout23): anomaly detection, NLP, SSL, detection, speech, codec,
    # splatting, metric-learning and training-loop code never diffed; files naming vllm or
    # sglang were deleted unread from every release fetched first (ms-swift only: 45 to 56
    # per release). The kept rows came from anomalib, gliner, torchvision, audiocraft and
    # nerfstudio.
    *(("anomalib", a, b) for a, b in itertools.pairwise(_ANOMALIB)),
    *(("gliner", a, b) for a, b in itertools.pairwise(_GLINER)),
    *(("lightly", a, b) for a, b in itertools.pairwise(_LIGHTLY)),
    *(("fairseq2", a, b) for a, b in itertools.pairwise(_FAIRSEQ2)),
    *(("pyannote.audio", a, b) for a, b in itertools.pairwise(_PYANNOTE)),
    *(("xtuner", a, b) for a, b in itertools.pairwise(("0.1.5", "0.1.8", "0.1.11", "0.2.0"))),
    *(("flair", a, b) for a, b in itertools.pairwise(("0.13.1", "0.14.0", "0.15.1"))),
    *(("pytorch-ignite", a, b) for a, b in itertools.pairwise(("0.4.13", "0.5.1", "0.5.5"))),
    *(("espnet", a, b) for a, b in itertools.pairwise(("202402", "202412", "202506", "202511"))),
    *(
        ("pytorch-metric-learning", a, b)
        for a, b in itertools.pairwise(("2.3.0", "2.5.0", "2.7.0", "2.9.0"))
    ),
    *(
        ("gsplat", a, b)
        for a, b in itertools.pairwise(("0.1.10", "1.0.0", "1.3.0", "1.4.0", "1.5.3"))
    ),
    *(("mmdet", a, b) for a, b in itertools.pairwise(("3.0.0", "3.1.0", "3.2.0", "3.3.0"))),
    *(("audiocraft", a, b) for a, b in itertools.pairwise(("1.0.0", "1.1.0", "1.2.0", "1.3.0"))),
    *(("lightning", a, b) for a, b in itertools.pairwise(("2.3.3", "2.4.0", "2.5.0", "2.6.0"))),
    *(("torchvision", a, b) for a, b in itertools.pairwise(("0.25.0", "0.27.0", "0.29.1"))),
    *(("ms-swift", a, b) for a, b in itertools.pairwise(("3.10.0", "3.11.0", "3.12.0", "4.0.0"))),
    ("nerfstudio", "0.3.4", "1.0.3"),
    ("nerfstudio", "1.0.3", "1.1.5"),
    ("torchgeo", "0.6.2", "0.7.2"),
    ("torchgeo", "0.7.2", "0.8.1"),
    ("yolov5", "7.0.8", "7.0.14"),
    ("FlagEmbedding", "1.2.11", "1.3.5"),
    ("FlagEmbedding", "1.3.5", "1.4.2"),
    ("infinity-emb", "0.0.60", "0.0.66"),
    ("infinity-emb", "0.0.66", "0.0.70"),
    # Session 24 (helper heldout24a): RL-training (verl), fine-tuning (llm-foundry, axolotl,
    # llamafactory), quantisation (compressed-tensors, older bitsandbytes), fault tolerance
    # (torchft), embeddings (older sentence-transformers), evaluation (opencompass) and
    # NeMo's releases before the session-22 pairs (ASR decoding and Megatron GPT). Files
    # naming vllm or sglang were deleted unread from every release fetched first (verl: 69 to
    # 106 per release; axolotl 10 to 35; llamafactory 9 to 15; compressed-tensors 0.10.2 and
    # 0.12.2: 3 and 5; opencompass 95 to 107; nemo-toolkit 2.0.0-2.2.1: 9 or 10). The kept
    # rows came from verl, nemo-toolkit and llamafactory.
    *(("verl", a, b) for a, b in itertools.pairwise(_VERL)),
    *(("llm-foundry", a, b) for a, b in itertools.pairwise(_LLM_FOUNDRY)),
    *(("axolotl", a, b) for a, b in itertools.pairwise(_AXOLOTL)),
    ("compressed-tensors", "0.10.2", "0.12.2"),
    *(("llamafactory", a, b) for a, b in itertools.pairwise(("0.8.3", "0.9.1", "0.9.3", "0.9.5"))),
    ("torchft", "0.1.1", "0.2.0"),
    *(
        ("sentence-transformers", a, b)
        for a, b in itertools.pairwise(("3.0.1", "3.4.1", "4.1.0", "5.0.0"))
    ),
    *(
        ("bitsandbytes", a, b)
        for a, b in itertools.pairwise(("0.42.0", "0.43.3", "0.44.1", "0.45.5"))
    ),
    *(("nemo-toolkit", a, b) for a, b in itertools.pairwise(("1.23.0", "2.0.0", "2.1.0", "2.2.1"))),
    *(("opencompass", a, b) for a, b in itertools.pairwise(("0.3.9", "0.4.2", "0.5.4"))),
    # Session 24 (helper heldout24b): scientific, forecasting, tabular, vision and audio code
    # never diffed (pyro-ppl, gpytorch, botorch, neuralforecast, descript-audio-codec, encodec,
    # skorch, pytorch-tabnet, supervision), and releases before those mined of monai,
    # torchmetrics, ultralytics, torch-geometric, kornia and torchrl. Files naming vllm or
    # sglang were deleted unread from every release fetched first (torchrl 0.9.2: 15, 0.10.1:
    # 28; none in the others). Rows kept from ultralytics 8.2.0, botorch 0.9.5, neuralforecast
    # 1.6.4, pytorch-tabnet 4.0, torch-geometric 2.3.1, kornia 0.6.8 and 0.7.0, torchmetrics 1.0.3.
    *(("pyro-ppl", a, b) for a, b in itertools.pairwise(_PYRO)),
    *(("gpytorch", a, b) for a, b in itertools.pairwise(_GPYTORCH)),
    *(("botorch", a, b) for a, b in itertools.pairwise(_BOTORCH)),
    *(("neuralforecast", a, b) for a, b in itertools.pairwise(_NEURALFORECAST)),
    ("descript-audio-codec", "0.0.5", "1.0.0"),
    ("encodec", "0.1.0", "0.1.1"),
    *(("skorch", a, b) for a, b in itertools.pairwise(("0.15.0", "1.0.0", "1.2.0", "1.4.0"))),
    *(("pytorch-tabnet", a, b) for a, b in itertools.pairwise(("3.1.1", "4.0", "4.1.0"))),
    *(("supervision", a, b) for a, b in itertools.pairwise(("0.22.0", "0.26.1", "0.31.2"))),
    *(("monai", a, b) for a, b in itertools.pairwise(("1.0.1", "1.1.0", "1.2.0", "1.3.2"))),
    *(
        ("torchmetrics", a, b)
        for a, b in itertools.pairwise(("1.0.3", "1.1.2", "1.2.1", "1.3.2", "1.4.3", "1.5.2"))
    ),
    *(("ultralytics", a, b) for a, b in itertools.pairwise(("8.0.200", "8.1.0", "8.2.0", "8.3.0"))),
    *(
        ("torch-geometric", a, b)
        for a, b in itertools.pairwise(("2.2.0", "2.3.1", "2.4.0", "2.5.3"))
    ),
    *(("kornia", a, b) for a, b in itertools.pairwise(("0.6.8", "0.6.12", "0.7.0", "0.7.4"))),
    *(
        ("torchrl", a, b)
        for a, b in itertools.pairwise(("0.5.0", "0.7.2", "0.8.1", "0.9.2", "0.10.1"))
    ),
    # Session 26 (helper heldout26): OCR, document, forecasting, NLP, quantisation, retrieval,
    # Intel's IPEX/OpenVINO serving code, detection, atomistic and RL packages never diffed.
    # Files naming vllm or sglang were deleted unread from every release first (gemlite 0.4.8+,
    # optimum-intel 1.22.0+, surya-ocr 0.22.1, unsloth-zoo). Rows kept from surya-ocr, chronos-
    # forecasting, unsloth-zoo, optimum-intel, rfdetr, fairchem-core and mace-torch.
    *(("surya-ocr", a, b) for a, b in itertools.pairwise(_SURYA)),
    *(("docling-ibm-models", a, b) for a, b in itertools.pairwise(_DOCLING_MODELS)),
    *(
        ("python-doctr", a, b)
        for a, b in itertools.pairwise(("0.8.1", "0.10.0", "0.12.0", "1.1.0"))
    ),
    *(
        ("pytorch-forecasting", a, b)
        for a, b in itertools.pairwise(("0.10.1", "1.1.1", "1.4.0", "1.8.0"))
    ),
    *(
        ("chronos-forecasting", a, b)
        for a, b in itertools.pairwise(("1.3.0", "1.5.3", "2.0.1", "2.3.2"))
    ),
    *(("gluonts", a, b) for a, b in itertools.pairwise(("0.13.9", "0.15.1", "0.17.0"))),
    *(("stanza", a, b) for a, b in itertools.pairwise(("1.7.0", "1.9.2", "1.11.1", "1.15.0"))),
    ("unsloth-zoo", "2026.8.17", "2026.10.9"),
    *(("gemlite", a, b) for a, b in itertools.pairwise(("0.4.1", "0.4.8", "0.5.1", "0.6.0.post2"))),
    ("aqlm", "1.0.3", "1.1.7"),
    ("rerankers", "0.5.3", "0.10.0"),
    *(("colpali-engine", a, b) for a, b in itertools.pairwise(("0.3.0", "0.3.8", "0.3.18"))),
    *(("optimum-intel", a, b) for a, b in itertools.pairwise(_OPTIMUM_INTEL)),
    *(("fairchem-core", a, b) for a, b in itertools.pairwise(_FAIRCHEM)),
    *(("rfdetr", a, b) for a, b in itertools.pairwise(_RFDETR)),
    *(("d3rlpy", a, b) for a, b in itertools.pairwise(("2.3.0", "2.6.2", "2.8.1"))),
    *(("pylate", a, b) for a, b in itertools.pairwise(("1.1.7", "1.3.4", "1.6.0"))),
    *(("para-attn", a, b) for a, b in itertools.pairwise(("0.3.10", "0.3.20", "0.3.30", "0.3.38"))),
    *(("mace-torch", a, b) for a, b in itertools.pairwise(("0.3.6", "0.3.10", "0.3.13", "0.3.16"))),
    *(("esm", a, b) for a, b in itertools.pairwise(("3.0.8", "3.1.6", "3.2.1"))),
    *(("boltz", a, b) for a, b in itertools.pairwise(("0.4.1", "1.0.0", "2.0.3", "2.2.1"))),
    # Session 27 (helper heldout27): model, serving-adjacent and scientific packages never
    # scored (OLMo, AlphaFold-3 and interatomic models, TensorRT and ONNX Runtime runtimes,
    # quantisation, super-resolution, segmentation, TTS, RWKV, retrieval). Files naming vllm
    # or sglang were deleted unread from every release first (ai2-olmo-core 3.0.0: 1;
    # compressed-tensors 0.12.2 to 0.20.1: 5, 88, 108, 111, 121; optimum 1.23.0 to 2.3.0: 1
    # each; chattts 0.2.0 to 0.2.5: 12 each). Rows kept from ai2-olmo-core, protenix and
    # orb-models.
    *(("ai2-olmo-core", a, b) for a, b in itertools.pairwise(_OLMO_CORE)),
    *(
        ("ai2-olmo", a, b)
        for a, b in itertools.pairwise(("0.2.5", "0.3.0", "0.4.0", "0.5.1", "0.6.0"))
    ),
    *(("compressed-tensors", a, b) for a, b in itertools.pairwise(_COMPRESSED_TENSORS)),
    *(("torch-tensorrt", a, b) for a, b in itertools.pairwise(_TORCH_TENSORRT)),
    *(("protenix", a, b) for a, b in itertools.pairwise(_PROTENIX)),
    *(("spandrel", a, b) for a, b in itertools.pairwise(("0.1.0", "0.2.0", "0.3.0", "0.4.2"))),
    ("optimum-quanto", "0.2.1", "0.2.4"),
    *(("chai-lab", a, b) for a, b in itertools.pairwise(("0.2.0", "0.4.2", "0.6.1"))),
    ("k-diffusion", "0.0.12", "0.1.1.post1"),
    *(("optimum", a, b) for a, b in itertools.pairwise(_OPTIMUM)),
    *(("lightning", a, b) for a, b in itertools.pairwise(("2.1.4", "2.3.3", "2.5.0", "2.6.6"))),
    *(("colbert-ai", a, b) for a, b in itertools.pairwise(("0.2.15", "0.2.19", "0.2.22"))),
    *(("orb-models", a, b) for a, b in itertools.pairwise(("0.3.2", "0.4.2", "0.5.5"))),
    *(("chgnet", a, b) for a, b in itertools.pairwise(("0.3.1", "0.3.8", "0.4.2"))),
    *(("infinity-emb", a, b) for a, b in itertools.pairwise(("0.0.40", "0.0.50", "0.0.60"))),
    *(("nnunetv2", a, b) for a, b in itertools.pairwise(_NNUNET)),
    *(("chattts", a, b) for a, b in itertools.pairwise(("0.1.1", "0.2.0", "0.2.3", "0.2.5"))),
    *(
        ("rwkv", a, b)
        for a, b in itertools.pairwise(("0.7.5", "0.8.0", "0.8.10", "0.8.20", "0.8.32"))
    ),
    # Session 28 (helper heldout28): translation and generation engines (eole, OpenNMT-py),
    # model code (x-transformers) and a Whisper inference wrapper (stable-ts), never scored.
    # Files naming vllm or sglang were deleted unread first (eole 0.4.4, 0.5.3, 0.6.0: 1
    # each; 0.6.4: 2). Rows kept from eole and opennmt-py.
    *(("eole", a, b) for a, b in itertools.pairwise(_EOLE)),
    *(("opennmt-py", a, b) for a, b in itertools.pairwise(_OPENNMT)),
    *(("x-transformers", a, b) for a, b in itertools.pairwise(_X_TRANSFORMERS)),
    *(("stable-ts", a, b) for a, b in itertools.pairwise(_STABLE_TS)),
    # Session 29 (helper peritem29): serving and model packages never diffed, read for the
    # per-item transfer family. 63 candidate lines, no row kept (docs/recall.md). Files naming
    # vllm or sglang were deleted unread first (torchserve 0.11.1, 0.12.0: 2 each).
    *(
        ("fairseq2", a, b)
        for a, b in itertools.pairwise(("0.4.6", "0.5.2", "0.6", "0.7.0", "0.8.1"))
    ),
    *(
        ("pyannote-audio", a, b)
        for a, b in itertools.pairwise(("3.1.1", "3.3.2", "4.0.0", "4.0.7"))
    ),
    *(("whisperx", a, b) for a, b in itertools.pairwise(("3.3.4", "3.4.3", "3.7.4", "3.8.6"))),
    *(("monai", a, b) for a, b in itertools.pairwise(("1.3.2", "1.4.0", "1.5.2", "1.6.1"))),
    *(
        ("torchserve", a, b)
        for a, b in itertools.pairwise(("0.8.2", "0.9.0", "0.10.0", "0.11.1", "0.12.0"))
    ),
    # Session 31 (helper mine31): releases never diffed, read for the transfer and
    # implicit-sync families (349 candidates; rows kept from exllamav3 and torchrec, see
    # docs/recall.md). Files naming vllm or sglang were skipped unread (xinference: 130).
    *(("xinference", a, b) for a, b in itertools.pairwise(("3.0.0", "3.5.0", "4.0.0", "4.0.1"))),
    ("xinference", "4.0.1", "4.1.0"),
    *(("torchtitan", a, b) for a, b in itertools.pairwise(("0.1.0", "0.2.0", "0.2.2", "0.3.0"))),
    *(("megatron-core", a, b) for a, b in itertools.pairwise(("0.11.0", "0.12.0", "0.13.1"))),
    *(
        ("exllamav3", a, b)
        for a, b in itertools.pairwise(("0.0.43", "1.0.0", "1.4.0", "1.4.9", "1.5.0", "1.6.4"))
    ),
    ("flashinfer-python", "0.6.10", "0.6.17"),
    ("torchrec", "1.5.1", "1.7.0"),
    ("fastvideo", "0.1.3", "0.1.7"),
    ("lmcache", "0.5.3", "0.5.6"),
    # Session 34 (recall34, docs/recall.md): flash-linear-attention from 0.3.1 on is a
    # metapackage, its code in fla-core; the other pairs gave nothing.
    *(("fla-core", a, b) for a, b in itertools.pairwise(("0.3.2", "0.4.0", "0.4.2", "0.5.0"))),
    *(("fla-core", a, b) for a, b in itertools.pairwise(("0.5.0", "0.5.2", "0.6.0"))),
    *(("flashinfer-python", a, b) for a, b in itertools.pairwise(("0.4.1", "0.5.0", "0.5.3"))),
    *(("megablocks", a, b) for a, b in itertools.pairwise(("0.6.1", "0.7.0", "0.8.0", "0.9.0"))),
    ("megablocks", "0.9.0", "0.10.0"),
    *(("xinference", a, b) for a, b in itertools.pairwise(("2.10.0", "2.11.0", "2.12.0", "3.0.0"))),
    ("nanotron", "0.2", "0.4"),
    ("xformers", "0.0.32.post2", "0.0.33.post2"),
    ("xformers", "0.0.33.post2", "0.0.35"),
    ("lightning-thunder", "0.2.3", "0.2.6"),
    # Session 36 (mine36, docs/recall.md): releases never diffed. Rows kept from nemo-automodel
    # and diffsynth-engine; openrlhf, fastvideo, megatron-bridge, oumi, lm-eval, cosmos-predict2
    # and the exllamav3 steps gave none. Files naming vllm or sglang were skipped unread
    # (nemo-automodel 0.6.0->0.7.0: 36; openrlhf: 10 per pair; oumi: 16-17).
    *(
        ("nemo-automodel", a, b)
        for a, b in itertools.pairwise(("0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0"))
    ),
    *(("diffsynth-engine", a, b) for a, b in itertools.pairwise(("0.5.0", "0.6.0", "0.7.0"))),
    *(("openrlhf", a, b) for a, b in itertools.pairwise(("0.10.4", "0.11.0", "0.11.2"))),
    ("fastvideo", "0.2.0", "0.2.1"),
    ("megatron-bridge", "0.3.0", "0.3.1"),
    *(("oumi", a, b) for a, b in itertools.pairwise(("0.7", "0.8", "0.9"))),
    *(("lm-eval", a, b) for a, b in itertools.pairwise(("0.4.10", "0.4.11", "0.4.12", "0.4.13"))),
    ("cosmos-predict2", "1.0.7", "1.0.9"),
    *(("exllamav3", a, b) for a, b in itertools.pairwise(("1.5.0", "1.5.3", "1.6.0", "1.6.3"))),
    # Session 37 (helper mine37): ms-swift 4.x, unsloth 2026.9-10, liger-kernel 0.5, deepspeed
    # 0.19 patch steps, megatron-core 0.15.3, lmdeploy 0.12 patches, transformers patches, xtuner.
    *(
        ("ms-swift", a, b)
        for a, b in itertools.pairwise(
            ("4.0.0", "4.1.0", "4.2.0", "4.3.0", "4.4.0", "4.5.0", "4.6.0")
        )
    ),
    *(
        ("unsloth", a, b)
        for a, b in itertools.pairwise(
            ("2026.9.8", "2026.9.14", "2026.10.1", "2026.10.4", "2026.10.7")
        )
    ),
    *(("liger-kernel", a, b) for a, b in itertools.pairwise(("0.5.0", "0.5.5", "0.5.10", "0.6.0"))),
    *(("deepspeed", a, b) for a, b in itertools.pairwise(("0.19.0", "0.19.3", "0.19.6"))),
    ("megatron-core", "0.15.3", "0.16.0"),
    ("lmdeploy", "0.12.0", "0.12.3"),
    ("transformers", "5.20.0", "5.20.2"),
    ("transformers", "5.22.0", "5.22.2"),
    ("xtuner", "0.1.11", "0.2.0"),
    # Session 42 (mine42, docs/recall.md): never diffed before. Rows kept from adv-optm,
    # torchebm, torchdr and lmms-engine; the others gave none (gptqmodel 6.0.3 is an sdist that
    # compiles C++ to download: skipped).
    ("openrlhf", "0.11.0", "0.11.2"),
    *(("neutts", a, b) for a, b in itertools.pairwise(("1.0.0", "1.2.1", "1.4.1"))),
    *(("yunchang", a, b) for a, b in itertools.pairwise(("0.5.1", "0.6.0", "0.6.4"))),
    *(("gptqmodel", a, b) for a, b in itertools.pairwise(("5.8.0", "7.0.0", "7.2.0", "7.3.6"))),
    *(
        ("mmgp", a, b)
        for a, b in itertools.pairwise(("3.5.12", "3.6.8", "3.7.0", "3.7.8", "3.8.2"))
    ),
    ("litserve", "0.2.10", "0.2.19"),
    *(("whittle", a, b) for a, b in itertools.pairwise(("0.3.0", "0.4.0", "0.4.1", "0.5.1"))),
    *(
        ("adv-optm", a, b)
        for a, b in itertools.pairwise(("1.1.0", "1.2.0", "1.2.13", "2.0.0", "2.5", "2.5.16"))
    ),
    *(("torchebm", a, b) for a, b in itertools.pairwise(("0.6.0", "0.7.1", "0.7.5", "0.8.0"))),
    *(("torchebm", a, b) for a, b in itertools.pairwise(("0.8.0", "0.8.5", "0.8.9"))),
    *(("fvdb-reality-capture", a, b) for a, b in itertools.pairwise(("0.1.0", "0.3.0", "0.4.0"))),
    ("torchdr", "0.4", "0.5"),
    ("lmms-engine", "0.1.2", "0.1.4"),
    *(("neuracore", a, b) for a, b in itertools.pairwise(("17.0.1", "18.0.0", "18.2.0", "19.0.0"))),
    ("neuracore", "16.1.0", "17.0.0"),
    # Session 49 (mine49, docs/recall.md): finer steps of pairs mined coarsely before, and
    # releases never diffed. Rows kept from lmdeploy 0.10.1 and verl 0.7.0/0.8.0 only; most
    # fine-step hunks were the coarse pairs' fixes seen again. Files naming vllm or sglang were
    # skipped unread by the script (verl: 31-41 per pair; trl: 6-25).
    *(("lmdeploy", a, b) for a, b in itertools.pairwise(("0.10.0", "0.10.1", "0.10.2"))),
    ("lmdeploy", "0.9.0", "0.9.1"),
    ("lmdeploy", "0.9.2", "0.9.2.post1"),
    ("lmdeploy", "0.11.0", "0.11.1"),
    *(
        ("exllamav3", a, b)
        for a, b in itertools.pairwise(
            ("1.0.0", "1.1.0", "1.2.0", "1.4.0", "1.4.1", "1.4.2", "1.4.5", "1.4.9")
        )
    ),
    *(("exllamav3", a, b) for a, b in itertools.pairwise(("1.6.0", "1.6.1", "1.6.2", "1.6.3"))),
    ("flashinfer-python", "0.7.0", "0.7.0.post1"),
    ("flashinfer-python", "0.7.2", "0.7.2.post1"),
    ("flashinfer-python", "0.6.18", "0.6.18.post1"),
    *(
        ("flashinfer-python", a, b)
        for a, b in itertools.pairwise(("0.6.16", "0.6.16.post2", "0.6.16.post4"))
    ),
    ("ktransformers", "0.6.4", "0.7.0"),
    *(("fastvideo", a, b) for a, b in itertools.pairwise(("0.1.3", "0.1.4", "0.1.5"))),
    *(
        ("megatron-core", a, b)
        for a, b in itertools.pairwise(("0.15.0", "0.15.1", "0.15.2", "0.15.3"))
    ),
    *(("megatron-core", a, b) for a, b in itertools.pairwise(("0.12.0", "0.12.1", "0.12.3"))),
    ("megatron-core", "0.13.0", "0.13.1"),
    *(
        ("megatron-core", a, b)
        for a, b in itertools.pairwise(
            ("0.16.1", "0.17.0", "0.17.1", "0.18.0", "0.18.2", "0.19.0", "0.19.2")
        )
    ),
    *(("trl", a, b) for a, b in itertools.pairwise(("1.13.0", "1.14.0", "1.14.2", "1.15.0"))),
    *(("verl", a, b) for a, b in itertools.pairwise(("0.8.0", "0.9.0", "0.9.1"))),
    ("verl", "0.7.0", "0.7.1"),
    *(
        ("liger-kernel", a, b)
        for a, b in itertools.pairwise(("0.8.0", "0.8.1", "0.8.2", "0.8.3", "0.8.4"))
    ),
    *(
        ("funasr", a, b)
        for a, b in itertools.pairwise(("1.4.8", "1.4.10", "1.4.12", "1.4.14", "1.4.16"))
    ),
    *(
        ("openrlhf", a, b)
        for a, b in itertools.pairwise(("0.10.0", "0.10.1", "0.10.2", "0.10.3", "0.10.4"))
    ),
    *(("speechbrain", a, b) for a, b in itertools.pairwise(("1.1.0", "1.1.1", "1.1.2"))),
    *(("torchtitan", a, b) for a, b in itertools.pairwise(("0.2.0", "0.2.1", "0.2.2"))),
    *(("nemo-automodel", a, b) for a, b in itertools.pairwise(("0.1.0", "0.1.2", "0.2.0"))),
    *(("diffusers", a, b) for a, b in itertools.pairwise(("0.35.0", "0.35.1", "0.35.2"))),
    ("diffusers", "0.37.0", "0.37.1"),
    *(("diffusers", a, b) for a, b in itertools.pairwise(("0.41.0", "0.42.0", "0.42.1"))),
    ("transformers", "5.16.0", "5.16.1"),
    ("transformers", "5.21.0", "5.21.1"),
    *(
        ("nunchaku", a, b)
        for a, b in itertools.pairwise(("0.15.0", "0.15.2", "0.15.4", "0.16.0", "0.16.1"))
    ),
    *(
        ("kt-kernel", a, b)
        for a, b in itertools.pairwise(("0.5.3", "0.6.1", "0.6.3", "0.6.4", "0.7.0", "0.7.2"))
    ),
    *(("lmms-eval", a, b) for a, b in itertools.pairwise(("0.5.0", "0.6.0", "0.7", "0.7.3"))),
    *(("mineru", a, b) for a, b in itertools.pairwise(("3.4.5", "4.0.0", "4.0.6", "4.0.12"))),
    *(("sageattention", a, b) for a, b in itertools.pairwise(("1.0.0", "1.0.3", "1.0.6"))),
    *(("lighteval", a, b) for a, b in itertools.pairwise(("0.10.0", "0.11.0", "0.12.0", "0.13.0"))),
    *(("invokeai", a, b) for a, b in itertools.pairwise(("6.11.0", "6.12.0", "6.13.0", "6.14.2"))),
    *(
        ("intel-extension-for-pytorch", a, b)
        for a, b in itertools.pairwise(("2.6.0", "2.7.0", "2.8.0"))
    ),
    *(("neural-compressor", a, b) for a, b in itertools.pairwise(("3.7", "3.8", "3.9", "3.10"))),
    *(("onediff", a, b) for a, b in itertools.pairwise(("1.0.0", "1.1.0", "1.2.0"))),
    *(("modelscope", a, b) for a, b in itertools.pairwise(("1.38.0", "1.39.0", "1.40.2"))),
    *(
        ("torchaudio", a, b)
        for a, b in itertools.pairwise(("2.5.0", "2.6.0", "2.7.0", "2.8.0", "2.9.0", "2.10.0"))
    ),
    ("torchaudio", "2.10.0", "2.11.1"),
    *(
        ("torchcodec", a, b)
        for a, b in itertools.pairwise(("0.11.1", "0.13.0", "0.15.0", "0.17.0"))
    ),
    *(("gsv-tts-lite", a, b) for a, b in itertools.pairwise(("0.3.18", "0.4.2", "0.4.7"))),
    # Session 50 (mine50, docs/recall.md): the releases around fixes that pull-request threads
    # name (trl PR 6842, diffusers PR 13564, ultralytics PRs 24744/25230/25842, LibreYOLO PR 726,
    # neuracore PR 893); rows were read from the threads' hunks, not from these diffs alone.
    ("trl", "1.10.0", "1.11.0"),
    ("diffusers", "0.38.0", "0.39.0"),
    ("ultralytics", "8.4.60", "8.4.96"),
    ("ultralytics", "8.4.96", "8.4.98"),
    ("ultralytics", "8.4.98", "8.4.130"),
    ("libreyolo", "1.4.0", "1.5.0"),
    ("neuracore", "15.0.0", "16.0.0"),
    # Session 51 (mine51b, docs/recall.md): the releases around fixes that pull-request threads
    # name (diffusers PRs 13461 and 9153, x-transformers PR 355, transformers PRs 44005 and
    # 36861, torchmetrics PRs 2640 and 2943, LibreYOLO PR 765); rows were read from the threads
    # and these diffs (diffusers 0.30.3 -> 0.31.0, PR 9153's, is paired above already).
    ("diffusers", "0.37.1", "0.38.0"),
    ("x-transformers", "2.25.2", "2.25.3"),
    ("transformers", "5.0.0", "5.2.0"),
    ("transformers", "4.49.0", "4.50.3"),
    ("torchmetrics", "1.4.0.post0", "1.4.1"),
    ("torchmetrics", "1.6.1", "1.7.0"),
    ("libreyolo", "1.5.0", "1.6.0"),
    # Session 51 (mine51a, docs/recall.md): the releases around fixes that pull-request threads
    # name (ms-swift PR 9795, trl PR 5218; torchtitan PR 3274's class, 0.2.2 -> 0.3.0 above).
    ("ms-swift", "4.4.2", "4.5.0"),
    ("trl", "0.29.0", "1.0.0"),
]
# A removed line must hold one of these to start a candidate.
MARKER = re.compile(
    r"\.item\(\)|\.tolist\(\)|\.cpu\(\)|\.numpy\(\)|\.to\(|\.cuda\(|non_blocking|pin_memory"
    r"|torch\.(?:tensor|as_tensor|from_numpy|cat|stack)\(|\bout=|synchronize\("
    r"|\b(?:int|float|bool)\(\s*[A-Za-z_]|\.nonzero\(|torch\.nonzero|\bunique\(|masked_select"
    r"|repeat_interleave|\.copy_\(|torch\.where\([^,()]*\)$"
)
# Gained on the added side, these suggest the copy was made cheap rather than removed.
FIX_MARKER = re.compile(
    r"non_blocking\s*=\s*True|pin_memory|\bdevice\s*=|output_size\s*=|\bout\s*=|\.copy_\("
)
SKIP_PARTS = frozenset({"tests", "test", "testing", "examples", "benchmarks", "docs"})
FIELDS = ["package", "old", "new", "file", "old_line", "old_text", "reason", "new_side"]


@dataclass(frozen=True)
class Candidate:
    package: str
    old: str
    new: str
    file: str
    old_line: int
    old_text: str
    reason: str
    new_side: str

    def row(self) -> list[str]:
        return [
            self.package,
            self.old,
            self.new,
            self.file,
            str(self.old_line),
            _clip(self.old_text.strip(), 200),
            self.reason,
            _clip(self.new_side, 300),
        ]


def _clip(text: str, limit: int) -> str:
    text = text.replace("\t", " ").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _markers(lines: list[str]) -> int:
    return sum(len(MARKER.findall(line)) for line in lines if not line.lstrip().startswith("#"))


def _fixes(lines: list[str]) -> int:
    return sum(len(FIX_MARKER.findall(line)) for line in lines if not line.lstrip().startswith("#"))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _py_files(root: Path) -> dict[str, Path]:
    """Relative path (from the version's folder, version prefix of an sdist removed) -> file."""
    files: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        key_parts = parts[1:] if parts and re.search(r"-\d", parts[0]) else parts
        if SKIP_PARTS.intersection(key_parts[:-1]) or key_parts[-1].startswith("test_"):
            continue
        files["/".join(key_parts)] = path
    return files


def diff_file(
    package: str, old: str, new: str, rel_old: str, old_lines: list[str], new_lines: list[str]
) -> Iterator[Candidate]:
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    inserted = {
        line.strip(): _indent(line)
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for line in new_lines[j1:j2]
        if line.strip()
    }
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("replace", "delete"):
            continue
        removed = old_lines[i1:i2]
        added = new_lines[j1:j2]
        if len(removed) > 40:  # a rewritten function, not a fix one can read
            continue
        old_count, new_count = _markers(removed), _markers(added)
        old_fix, new_fix = _fixes(removed), _fixes(added)
        reasons: list[str] = []
        if new_fix > old_fix:
            reasons.append("fix-gained")
        if old_count > new_count:
            reasons.append(f"markers {old_count}->{new_count}")
        summary = " | ".join(line.strip() for line in added if line.strip())
        for offset, line in enumerate(removed):
            if not MARKER.search(line) or line.lstrip().startswith("#"):
                continue
            moved = line.strip() in inserted and inserted[line.strip()] < _indent(line)
            why = [*reasons, "moved-out"] if moved else reasons
            if not why:
                continue
            yield Candidate(
                package,
                old,
                new,
                rel_old,
                i1 + offset + 1,
                line,
                ",".join(why),
                summary or "(deleted)",
            )


# Bytes that mark a file as naming a reserved project (case-blind).
NAMES_RESERVED = re.compile(rb"vllm|sglang", re.IGNORECASE)


@dataclass
class Mined:
    candidates: list[Candidate]
    skipped_reserved: int  # shared files that name vllm or sglang in either version, unread


def mine_pair(package: str, old: str, new: str) -> Mined:
    if package.lower() in RESERVED:
        raise ValueError(f"{package} is reserved for independent evaluation")
    old_root, new_root = fetch(package, old), fetch(package, new)
    old_files, new_files = _py_files(old_root), _py_files(new_root)
    mined = Mined([], 0)
    for key in sorted(old_files.keys() & new_files.keys()):
        old_path, new_path = old_files[key], new_files[key]
        old_bytes, new_bytes = old_path.read_bytes(), new_path.read_bytes()
        if old_bytes == new_bytes:
            continue
        if NAMES_RESERVED.search(old_bytes) or NAMES_RESERVED.search(new_bytes):
            mined.skipped_reserved += 1
            continue
        rel_old = old_path.relative_to(old_root).as_posix()
        old_lines = old_bytes.decode("utf-8", errors="replace").splitlines()
        new_lines = new_bytes.decode("utf-8", errors="replace").splitlines()
        mined.candidates.extend(diff_file(package, old, new, rel_old, old_lines, new_lines))
    return mined


def _write(out: TextIO, rows: list[Candidate]) -> None:
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(FIELDS)
    for cand in rows:
        writer.writerow(cand.row())


def _parse_pair(text: str) -> tuple[str, str, str]:
    parts = text.split(":")
    if len(parts) != 3 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected NAME:OLD:NEW, got {text!r}")
    if parts[0].lower() in RESERVED:
        raise argparse.ArgumentTypeError(f"{parts[0]} is reserved for independent evaluation")
    return parts[0], parts[1], parts[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", action="append", type=_parse_pair, help="NAME:OLD:NEW")
    parser.add_argument("--package", action="append", help="only the default pairs of these")
    parser.add_argument("-o", "--output", default="-", help="TSV file (default: stdout)")
    parser.add_argument("-j", "--jobs", type=int, default=4, help="parallel downloads")
    args = parser.parse_args(argv)
    pairs = args.pair or [p for p in PAIRS if not args.package or p[0] in args.package]

    def run(pair: tuple[str, str, str]) -> tuple[tuple[str, str, str], Mined | str]:
        try:
            return pair, mine_pair(*pair)
        except Exception as exc:  # one failing pair must not lose the others
            return pair, f"{type(exc).__name__}: {exc}"

    def prefetch(version: tuple[str, str]) -> None:
        try:
            fetch(*version)
        except Exception as exc:
            print(f"{version[0]}=={version[1]}: FAILED {exc}", file=sys.stderr)

    # Each version once, in parallel, before any diff: two pairs sharing a version must not
    # race to unpack it.
    versions = sorted({(name, v) for name, old, new in pairs for v in (old, new)})
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(prefetch, versions))
    rows: list[Candidate] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for (name, old, new), result in pool.map(run, pairs):
            if isinstance(result, str):
                print(f"{name} {old}->{new}: FAILED {result}", file=sys.stderr)
                continue
            skipped = (
                f" ({result.skipped_reserved} changed files naming vllm/sglang skipped unread)"
                if result.skipped_reserved
                else ""
            )
            print(
                f"{name} {old}->{new}: {len(result.candidates)} candidates{skipped}",
                file=sys.stderr,
            )
            rows.extend(result.candidates)
    if args.output == "-":
        _write(sys.stdout, rows)
    else:
        with open(args.output, "w", newline="") as out:
            _write(out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
