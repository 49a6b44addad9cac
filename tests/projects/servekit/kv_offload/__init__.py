"""KV-cache offload: blocks swapped between the device cache and a pinned host pool."""
