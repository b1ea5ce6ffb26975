"""What the tests and the benchmarks share: the pure-Python reference (the
oracle), the hypothesis strategies and record helpers, the generators of
histories and session trees, the provider fixtures and oracles, the engine
tests' data, the benchmark harness and the fair plain-Python baseline.

``tests/`` is on the import path of pytest runs (``pythonpath`` in
pyproject.toml): ``from support import reference``.
"""
