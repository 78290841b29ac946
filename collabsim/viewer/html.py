"""Render a workflow graph as one self-contained HTML page (inline CSS, JS and data).

The page needs no network at view time: the stylesheet, the script and the graph are all
embedded. The script (``assets/viewer.js``) draws a timeline with one swimlane per
participant, nodes as time intervals, sequential / loop / crossing edges, gate requests and
decisions, step bands with ratings, and a detail panel for the clicked node.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from collabsim.graphs.model import WorkflowGraph
from collabsim.graphs.timefmt import format_clock
from collabsim.viewer.payload import graph_payload

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
<body>
<header>
<h1>{title}</h1>
<div class="meta">{meta}</div>
<div class="goal">{goal}</div>
</header>
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
<main>
<div id="timeline"><svg id="timeline-svg" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="workflow timeline"></svg></div>
<aside id="detail"><h2>Details</h2><p class="muted">Click a node to see its code, output or message.</p>
<p class="muted">{counts}</p></aside>
</main>
<script type="application/json" id="collabsim-data">{data}</script>
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
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c")


def render_html(graph: WorkflowGraph, title: str | None = None) -> str:
    """The session page for ``graph`` as one HTML string.

    Args:
        graph: The workflow graph to draw.
        title: Page title (default: the session id).

    Returns:
        A complete, self-contained HTML document.
    """
    payload = graph_payload(graph)
    info = graph.session
    title = title or f"Session {info.session_id}"
    meta_parts = [p for p in (info.participant_id, info.occupation, info.domain) if p]
    times = [t for n in graph.nodes for iv in n.intervals for t in iv]
    if times:
        meta_parts.append(f"duration {format_clock(round(max(times) - min(times)))}")
    counts = payload["counts"]
    return _TEMPLATE.format(
        title=html.escape(title),
        meta=html.escape(" · ".join(meta_parts)),
        goal=html.escape(info.goal),
        counts=html.escape(
            f"{counts['nodes']} nodes, {counts['edges']} edges "
            f"({counts['crossing']} crossing, {counts['loops']} loops), "
            f"{len(graph.responses)} responses, {len(graph.steps)} steps"
        ),
        css=_asset("viewer.css"),
        js=_asset("viewer.js"),
        data=_json_for_script(payload),
    )


def write_view(graph: WorkflowGraph, path: str | Path, title: str | None = None) -> Path:
    """Write the session page for ``graph`` to ``path`` (parent folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_html(graph, title), encoding="utf-8")
    tmp.replace(path)
    return path
