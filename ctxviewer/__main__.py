"""``python -m ctxviewer``: the same as the ``ctxviewer`` command."""

from ctxviewer.cli import main

if __name__ == "__main__":
    main()
