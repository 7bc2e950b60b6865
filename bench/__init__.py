"""Benchmarks: each module prints its figures; run one with `python -m bench.<name>`."""
