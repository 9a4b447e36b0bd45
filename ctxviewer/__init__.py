"""ctxviewer: a desktop debugger for LLM request traces (what each model request actually sent)."""

__version__ = "0.1.0"
