"""Session viewer: one self-contained HTML timeline per workflow graph."""

from collabsim.viewer.html import render_html, write_view
from collabsim.viewer.payload import graph_payload
from collabsim.viewer.sources import GraphSourceError, load_graph, normalise_session_id

__all__ = [
    "GraphSourceError",
    "graph_payload",
    "load_graph",
    "normalise_session_id",
    "render_html",
    "write_view",
]
