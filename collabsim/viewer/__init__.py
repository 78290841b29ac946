"""Session viewer: one self-contained HTML page per session, sweep, store or Kolab file."""

from collabsim.viewer.html import render_html, render_page, write_page, write_view
from collabsim.viewer.payload import graph_payload
from collabsim.viewer.sessions import ViewSession, load_view_sessions, session_from_graph
from collabsim.viewer.sources import GraphSourceError, load_graph, normalise_session_id

__all__ = [
    "GraphSourceError",
    "ViewSession",
    "graph_payload",
    "load_graph",
    "load_view_sessions",
    "normalise_session_id",
    "render_html",
    "render_page",
    "session_from_graph",
    "write_page",
    "write_view",
]
