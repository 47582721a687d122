"""The benchmarks behind ``ctxkeep bench``: a deterministic session generator with planted
ground truth, the quality benchmark (what survives compaction at a budget) and the speed
benchmark (audit and compaction throughput against same-run baselines).

Library code: it never prints; the CLI (``ctxkeep.cli.bench``) shows progress and tables.
"""
