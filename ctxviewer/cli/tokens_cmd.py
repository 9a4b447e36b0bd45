"""``ctxviewer tokens REQUEST.json``: count a raw chat request by its endpoint's rule.

Registered on the ``ctxviewer`` group in :mod:`ctxviewer.cli`; the counting is
:func:`ctxviewer.tokens.request_accounting.count_request`, the same the GUI and the builder use.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from tabulate import tabulate

from ctxviewer.cli.status import BadInput
from ctxviewer.tokens.counting import UnknownEncodingError
from ctxviewer.tokens.profiles import ProfileError
from ctxviewer.tokens.request_accounting import RequestCount, RequestShapeError, count_request


def render_text(name: str, rc: RequestCount) -> str:
    """The text report of ``ctxviewer tokens``: items, tool definitions, the sum that adds up."""
    res = rc.resolution
    # an assumed encoding is said once, by the reason ("no profile for 'x'; o200k_base assumed")
    how = res.reason + (", a cross-vendor estimate" if res.profile.estimate else "") if res.assumed \
        else f"{res.label}; {res.reason}"
    lines = [f"{name}: {rc.total:,} input tokens on {res.model or 'an unnamed model'} ({how})"]
    rows = [[i.index, i.role, i.category, f"{i.content:,}", f"{i.framing:,}", "; ".join(i.notes)]
            for i in rc.items]
    if rows:
        lines.append(tabulate(rows, headers=["#", "role", "category", "content", "framing", "notes"],
                              disable_numparse=True, colalign=("right", "left", "left", "right", "right", "left")))
    else:  # tabulate aligns no header over an empty table
        lines.append("items: none (the request has no messages)")
    if rc.tool_defs:
        parts = ", ".join(f"{t.name} {t.content:,} + {t.overhead:,} overhead" for t in rc.tool_defs)
        lines.append(f"tool definitions: {rc.tools:,} tokens ({parts}; "
                     f"{res.profile.tools.func_end} closing)")
    lines.append(f"framing: {rc.framing:,} tokens (per message, roles, names; reply priming {rc.reply_priming})")
    lines.append(f"total: {rc.total:,} = content {rc.content:,} + framing {rc.framing:,} + tools {rc.tools:,}")
    lines.extend(f"note: {n}" for n in rc.notes if n != res.reason)
    return "\n".join(lines)


def _model_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not value.strip():  # '' would silently mean "the request's model"
        raise click.BadParameter("an empty model name; give one (gpt-4o, claude-3-5-sonnet) or leave --model out")
    return value


@click.command("tokens")
@click.argument("request", type=click.Path(exists=True, dir_okay=False))
@click.option("--model", default=None, callback=_model_name, help="Model whose endpoint rule to use (default: the request's 'model').")
@click.option("--encoding", default=None, help="Override the encoding (cl100k_base, o200k_base, o200k_harmony).")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON with keys total, framing, tools, encoding, assumed, items.")
def tokens_cmd(request: str, model: str | None, encoding: str | None, as_json: bool) -> None:
    """Count the input tokens of a raw chat REQUEST (OpenAI or Anthropic shaped JSON).

    Prints each message's content and framing tokens, the tool-definition tokens and the total,
    with the encoding and whether it was assumed (a model without a profile). For non-OpenAI
    models the count is a cross-vendor estimate: prefer the provider-reported usage.

    \b
    Example:
        ctxviewer tokens request.json --model gpt-4o
        ctxviewer tokens request.json --encoding cl100k_base --json
    """
    from ctxviewer.util.file_kind import InputFileError, check_readable

    try:
        check_readable(request, "tokens")
    except InputFileError as exc:
        raise BadInput(str(exc)) from None
    try:
        data = Path(request).read_bytes()
        body = json.loads(data.decode("utf-8-sig"))
    except OSError as exc:
        raise BadInput(f"{request}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # a database, an image, a UTF-16 file: not the codec's words
        what = ("an SQLite database (a trace database? `ctxviewer show DB TRACE_ID` counts a stored trace)"
                if data.startswith(b"SQLite format 3\x00") else f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        raise BadInput(f"{request}: not a JSON request: {what}") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{request}: not a JSON request: {exc}") from None
    except RecursionError:
        raise BadInput(f"{request}: not a JSON request: a value is nested too deep to read") from None
    try:
        rc = count_request(body, model, encoding)
    except (RequestShapeError, UnknownEncodingError, ProfileError) as exc:
        raise BadInput(f"{request}: {exc}") from None
    except RecursionError:
        raise BadInput(f"{request}: a value is nested too deep to count") from None
    if as_json:
        click.echo(json.dumps(rc.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(request, rc))
