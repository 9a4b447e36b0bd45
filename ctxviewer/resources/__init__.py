"""Runtime assets of ctxviewer (icons, stylesheet), installed as the ``ctxviewer.resources`` package.

Load them with :func:`ctxviewer.assets.read_text` / :func:`ctxviewer.assets.path`, never by file path.
"""
