"""MCCFR on several workers (threads or Ray actors) with deterministic epochs."""
