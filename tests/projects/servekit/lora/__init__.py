"""LoRA: adapters loaded into slots once, the per-token slot mapping rebuilt every step."""
