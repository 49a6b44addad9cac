"""Grammar-constrained decoding: a bitmask of allowed tokens per structured request."""
