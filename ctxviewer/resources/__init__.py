"""Runtime assets of ctxviewer (icons, stylesheet), installed as the ``ctxviewer.resources`` package.

Load them with :func:`ctxviewer.util.assets.read_text` / :func:`ctxviewer.util.assets.path`, never by file path.
"""
