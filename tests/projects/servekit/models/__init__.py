"""Model code: a vision-language model, its vision encoder, rotary position helpers and a
mixture-of-experts layer. None of it names a step: the worker calls it once per step."""
