"""Swaps blocks on a side stream and reports them done through events."""

from __future__ import annotations

import torch

from servekit.kv_offload.host_pool import allocate_host_pool


class OffloadHandler:
    def __init__(self, gpu_caches: list[torch.Tensor], num_host_blocks: int) -> None:
        self.gpu_caches = gpu_caches
        self.host_caches = [allocate_host_pool(num_host_blocks, tuple(c.shape[1:]), c.dtype) for c in gpu_caches]  # expect-not: HTD101
        self.stream = torch.cuda.Stream()
        self.events: dict[int, torch.cuda.Event] = {}

    def swap_in(self, job_id: int, src_blocks: list[int], dst_blocks: list[int]) -> None:
        event = torch.cuda.Event()
        with torch.cuda.stream(self.stream):
            for gpu_cache, host_cache in zip(self.gpu_caches, self.host_caches):
                for src, dst in zip(src_blocks, dst_blocks):
                    gpu_cache[dst].copy_(host_cache[src], non_blocking=True)  # allow: HTD101; expect-not: HTD102, HTD105
            event.record(self.stream)
        self.events[job_id] = event

    def swap_in_blocking(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        for gpu_cache, host_cache in zip(self.gpu_caches, self.host_caches):
            gpu_cache[dst_blocks[0]] = host_cache[src_blocks[0]].to(gpu_cache.device)  # expect: HTD105; allow: HTD101

    def swap_out(self, job_id: int, src_blocks: list[int], dst_blocks: list[int]) -> None:
        event = torch.cuda.Event()
        with torch.cuda.stream(self.stream):
            for gpu_cache, host_cache in zip(self.gpu_caches, self.host_caches):
                for src, dst in zip(src_blocks, dst_blocks):
                    host_cache[dst].copy_(gpu_cache[src], non_blocking=True)  # expect-not: HTD101, HTD102
            event.record(self.stream)
        self.events[job_id] = event

    def get_finished(self) -> list[int]:
        # Polled every step: an event query does not wait.
        done = [job for job, event in self.events.items() if event.query()]  # expect-not: HTD202
        for job in done:
            del self.events[job]
        return done

    def wait(self, job_id: int) -> None:
        self.events.pop(job_id).synchronize()  # expect-not: HTD202
