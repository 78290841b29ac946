"""Render sessions as one self-contained HTML page (inline CSS, JS and data).

The page needs no network at view time: the stylesheet, the script and the data are all
embedded. Each session's data sits in its own ``<script type="application/json">`` block
that the script parses only when the session is picked, so a page of hundreds of sessions
opens as fast as the picker's index.

The script (``assets/viewer.js``) draws, for the picked session: a header (task question,
team, structure, submitted hypothesis, Performance and the judge's factors, metric cards),
a timeline with one swimlane per participant (nodes as time intervals, sequential / loop /
crossing edges, gate requests and decisions, step bands with ratings) and, beside it, the
chronological transcript; clicking a node scrolls the transcript to its entry and clicking
an entry selects its node. An LLM session also gets its model turns under the node details
(:mod:`collabsim.viewer.model_turns`: prompt size, reply, parse result, cost) and a cost card.
With more than one session a picker lists them, filtered by team, structure, task, status and
outcome and sorted by Performance, task or seed, above the page's model-use totals.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from collabsim.core import jsonio
from collabsim.graphs.model import WorkflowGraph
from collabsim.viewer.model_turns import page_totals_text
from collabsim.viewer.sessions import ViewSession, session_from_graph

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body class="{body_class}">
<div id="app">
<nav id="picker" aria-label="sessions">
<h1 class="page-title">{title}</h1>
<div class="filters">
<label>{team_label} <select id="f-team"></select></label>
<label>{structure_label} <select id="f-structure"></select></label>
<label>task <select id="f-task"></select></label>
<label>status <select id="f-status"></select></label>
<label>outcome <select id="f-outcome"></select></label>
<label>sort <select id="f-sort">
<option value="">as listed</option>
<option value="perf-desc">Performance &#8595;</option>
<option value="perf-asc">Performance &#8593;</option>
<option value="task">task, seed</option>
<option value="seed">seed, task</option>
</select></label>
<input id="f-text" type="search" placeholder="filter by task or id">
</div>
<div id="picker-count" class="muted"></div>
{page_totals}
<ol id="picker-list"></ol>
</nav>
<div id="session">
<section id="story" aria-label="what was asked and how it ended"></section>
<div class="toolbar">
<div class="legend">
<span><span class="sw" style="background:var(--human)"></span>human</span>
<span><span class="sw" style="background:var(--ai)"></span>AI</span>
<span><span class="ln" style="border-color:var(--seq)"></span>sequential</span>
<span><span class="ln" style="border-color:var(--cross)"></span>crossing (human&#8596;AI)</span>
<span><span class="ln" style="border-color:var(--loop);border-top-style:dashed"></span>loop</span>
<span><b>?</b> gate request &nbsp; <b>&#10003;</b>/<b>&#10007;</b> approve/reject &nbsp; <b>A</b>/<b>M</b>/<b>R</b> adopt/modify/reject</span>
</div>
<label class="zoom">zoom <input id="zoom" type="range" min="0.5" max="6" step="0.25" value="1"></label>
</div>
<main id="work">
<div id="left">
<div id="timeline"><svg id="timeline-svg" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="workflow timeline"></svg></div>
<div id="detail"><p class="muted">Click a node or a transcript entry.</p></div>
<section id="model-turns" aria-label="model turns"></section>
</div>
<aside id="transcript" aria-label="transcript"></aside>
</main>
</div>
</div>
<script type="application/json" id="collabsim-index">{index}</script>
{sessions}
<script>
{js}
</script>
</body>
</html>
"""


def _asset(name: str) -> str:
    return resources.files("collabsim.viewer").joinpath("assets", name).read_text(encoding="utf-8")


def _json_for_script(payload: object) -> str:
    # a "<" inside the data could close the script element or open a comment: JSON's
    # \u003c escape keeps the text identical after parsing
    text = jsonio.dumps(payload, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def render_page(sessions: Sequence[ViewSession], title: str) -> str:
    """One page for ``sessions`` (a picker when there are several).

    Args:
        sessions: The sessions, in the order the picker lists them.
        title: Page title.

    Returns:
        A complete, self-contained HTML document.
    """
    if not sessions:
        raise ValueError("no session to show")
    kolab_only = all(s.index["kind"] == "kolab" for s in sessions)
    blocks = "\n".join(
        f'<script type="application/json" id="collabsim-session-{i}">'
        f"{_json_for_script(s.payload)}</script>"
        for i, s in enumerate(sessions)
    )
    index = [{**s.index, "i": i} for i, s in enumerate(sessions)]
    totals = page_totals_text(index)
    return _TEMPLATE.format(
        page_totals=(f'<div id="page-totals" class="muted">{html.escape(totals)}</div>'
                     if totals else ""),
        title=html.escape(title),
        body_class="single" if len(sessions) == 1 else "many",
        team_label="participant" if kolab_only else "team",
        structure_label="category" if kolab_only else "structure",
        css=_asset("viewer.css"),
        js=_asset("viewer.js"),
        index=_json_for_script(index),
        sessions=blocks,
    )


def render_html(
    graph: WorkflowGraph,
    title: str | None = None,
    *,
    row: Mapping[str, Any] | None = None,
    gold: str | None = None,
) -> str:
    """The page of one session (see :func:`collabsim.viewer.sessions.session_from_graph`).

    Args:
        graph: The workflow graph to draw.
        title: Page title (default: the session id).
        row: The session's metrics row (Performance, factors), when known.
        gold: The gold hypothesis; only when the user asked to see it.
    """
    view = session_from_graph(graph, row=row, gold=gold)
    return render_page([view], title or f"Session {graph.session.session_id}")


def write_page(sessions: Sequence[ViewSession], path: str | Path, title: str) -> Path:
    """Write :func:`render_page` to ``path`` (parent folders created; atomic replace)."""
    path = Path(path)
    text = render_page(sessions, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # any lone surrogate left outside the data block is shown, not a failed page
    tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
    tmp.replace(path)
    return path


def write_view(
    graph: WorkflowGraph,
    path: str | Path,
    title: str | None = None,
    *,
    row: Mapping[str, Any] | None = None,
) -> Path:
    """Write the page of one session to ``path`` (parent folders created).

    Args:
        graph: The session's graph.
        path: HTML file to write.
        title: Page title (default: the session id).
        row: The session's metrics row (Performance and the judge's factors), when known.
    """
    view = session_from_graph(graph, row=row)
    return write_page([view], path, title or f"Session {graph.session.session_id}")
