"""Runtime assets of ctxviewer (icons, stylesheet, rule words, endpoint profiles, Table 3.1), installed
as the ``ctxviewer.resources`` package.

Load them with :func:`ctxviewer.util.assets.read_text` / :func:`ctxviewer.util.assets.read_bytes`
(or :func:`ctxviewer.util.assets.files`), never by file path.
"""
