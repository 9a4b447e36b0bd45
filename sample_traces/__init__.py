"""The bundled sample traces and their builder (not shipped in the wheel).

``python -m sample_traces.make_samples`` (from the repository root) rebuilds ``traces.jsonl`` and
``samples.db`` from the scenario modules; tests import it as ``from sample_traces import make_samples``.
"""
