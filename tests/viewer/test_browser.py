"""The session page in a real headless Chromium (installed from the OS packages).

The page must run without console errors and draw one ``g.node`` per graph node; a click on
a node must scroll the transcript to its entry and a click on an entry must select its node
(a small script appended to a copy of the page clicks and records what it sees in ``body``
attributes, read back from ``--dump-dom``). The browser is required: a missing binary fails
the test (install it with ``apt-get install -y chromium``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers.browser import open_in_browser

from collabsim.viewer import load_graph, load_view_sessions, write_page, write_view


def assert_drawn(page: Path, profile: Path, n_nodes: int) -> None:
    dom, console = open_in_browser(page, profile)
    errors = [m for m in console if not m.startswith("collabsim-view:")]
    assert not errors, errors
    assert f"collabsim-view: drew {n_nodes} of {n_nodes} nodes" in console
    assert 'data-view-status="ok"' in dom
    assert len(re.findall(r'<g class="node ', dom)) == n_nodes
    assert f'data-drawn-nodes="{n_nodes}"' in dom


def test_simulated_dr_scaffolded_session_is_drawn(dr_scaffolded_session, tmp_path):
    graph = load_graph(dr_scaffolded_session)
    assert any(n.extra.get("status") == "pending" for n in graph.nodes)  # a gate request
    page = write_view(graph, tmp_path / "sim.html")
    assert_drawn(page, tmp_path / "profile", len(graph))
    dom, _ = open_in_browser(page, tmp_path / "profile")
    widths = [float(w) for w in re.findall(r'<rect class="iv"[^>]* width="([0-9.]+)"', dom)]
    assert len(widths) == len(graph) and min(widths) >= 14  # short AI nodes stay visible


@pytest.mark.parametrize("session", ["p1|s1", "p12|session2", "p13|s1"])  # p13: overlaps
def test_kolab_session_is_drawn(kolab_sessions_path, tmp_path, session):
    graph = load_graph(kolab_sessions_path, session)
    page = write_view(graph, tmp_path / "kolab.html")
    assert_drawn(page, tmp_path / "profile", len(graph))


def test_a_script_error_would_be_caught(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    _, console = open_in_browser(page, tmp_path / "profile")
    assert any("Uncaught ReferenceError" in m for m in console)


# a script appended to a copy of the page: click, then record what the page shows
CLICK_NODE = """<script>
(function () {
  var box = document.getElementById("transcript"), b = document.body;
  b.setAttribute("data-t-before", String(box.scrollTop));
  document.querySelector('g.node[data-id="%s"]').dispatchEvent(new MouseEvent("click", {bubbles: true}));
  var active = box.querySelectorAll("li.entry.active");
  var r = active[0].getBoundingClientRect(), c = box.getBoundingClientRect();
  b.setAttribute("data-t-active", active.length + ":" + active[0].getAttribute("data-node"));
  b.setAttribute("data-t-after", String(box.scrollTop));
  b.setAttribute("data-t-visible", String(r.top >= c.top && r.top < c.bottom));
})();
</script>"""
CLICK_ENTRY = """<script>
(function () {
  document.querySelector('#transcript li.entry[data-node="%s"]').dispatchEvent(new MouseEvent("click", {bubbles: true}));
  var sel = document.querySelectorAll("g.node.selected");
  document.body.setAttribute("data-t-selected", sel.length + ":" + sel[0].getAttribute("data-id"));
})();
</script>"""
PICK = """<script>
(function () {
  var f = document.getElementById("f-structure");
  f.value = "%s";
  f.dispatchEvent(new Event("change"));
  var items = document.querySelectorAll("#picker-list li.pick");
  document.body.setAttribute("data-t-listed", String(items.length));
  items[0].dispatchEvent(new MouseEvent("click", {bubbles: true}));
})();
</script>"""


def with_script(page: Path, script: str, out: Path) -> Path:
    text = page.read_text(encoding="utf-8")
    out.write_text(text.replace("</body>", script + "\n</body>"), encoding="utf-8")
    return out


def attr(dom: str, name: str) -> str:
    match = re.search(rf'{name}="([^"]*)"', dom)
    assert match, f"{name} not set: the test script did not run"
    return match.group(1)


def test_clicking_a_node_scrolls_the_transcript_to_its_entry(dr_scaffolded_session, tmp_path):
    graph = load_graph(dr_scaffolded_session)
    last = max(graph.nodes, key=lambda n: n.extra["seq"]).id  # its entry starts far down
    page = with_script(write_view(graph, tmp_path / "s.html"), CLICK_NODE % last,
                       tmp_path / "click.html")
    dom, console = open_in_browser(page, tmp_path / "profile")
    assert not [m for m in console if not m.startswith("collabsim-view:")], console
    assert attr(dom, "data-t-active") == f"1:{last}"
    assert attr(dom, "data-t-before") == "0" and float(attr(dom, "data-t-after")) > 0
    assert attr(dom, "data-t-visible") == "true"
    assert f'data-selected-node="{last}"' in dom


def test_clicking_a_transcript_entry_selects_its_node(dr_scaffolded_session, tmp_path):
    graph = load_graph(dr_scaffolded_session)
    node = graph.nodes[len(graph.nodes) // 2].id
    page = with_script(write_view(graph, tmp_path / "s.html"), CLICK_ENTRY % node,
                       tmp_path / "click.html")
    dom, _ = open_in_browser(page, tmp_path / "profile")
    assert attr(dom, "data-t-selected") == f"1:{node}"


def test_a_url_fragment_opens_a_session_and_node(kolab_sessions_path, tmp_path, collabsim_cli):
    out = tmp_path / "kolab.html"
    proc = collabsim_cli("view", str(kolab_sessions_path), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dom, _ = open_in_browser(out, tmp_path / "profile", "#s=1&node=n3")
    assert 'data-session="p1|session2"' in dom and 'data-selected-node="n3"' in dom
    assert re.search(r'<li class="entry [^"]*active[^"]*"[^>]*data-node="n3"', dom)


def test_sweep_picker_filters_and_switches_sessions(viewer_job, tmp_path, collabsim_cli):
    out = tmp_path / "sweep.html"
    proc = collabsim_cli("view", str(viewer_job), "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dom, console = open_in_browser(out, tmp_path / "profile")
    assert not [m for m in console if not m.startswith("collabsim-view:")], console
    assert len(re.findall(r'<li class="pick ', dom)) == 2
    first = attr(dom, "data-session")
    page = with_script(out, PICK % "scaffolded", tmp_path / "pick.html")
    dom, _ = open_in_browser(page, tmp_path / "profile")
    assert attr(dom, "data-t-listed") == "1"
    picked = attr(dom, "data-session")
    assert picked.endswith("|DR|scaffolded|seed0") and picked != first
    assert "<svg" in dom and len(re.findall(r'<g class="node ', dom)) > 3


# a script appended to a copy of the page: filter and sort the picker, record what it lists
FILTER_SORT = """<script>
(function () {
  var b = document.body;
  function set(id, value) {
    var f = document.getElementById(id);
    f.value = value;
    f.dispatchEvent(new Event("change"));
  }
  function listed() {
    return Array.prototype.map.call(document.querySelectorAll("#picker-list li.pick"),
      function (li) { return li.getAttribute("data-i"); }).join(",");
  }
  set("f-sort", "perf-desc"); b.setAttribute("data-t-perf-desc", listed());
  set("f-sort", "perf-asc"); b.setAttribute("data-t-perf-asc", listed());
  set("f-sort", "task"); b.setAttribute("data-t-task", listed());
  set("f-sort", "seed"); b.setAttribute("data-t-seed", listed());
  set("f-status", "max_turns"); b.setAttribute("data-t-status", listed());
  var shown = document.querySelector("#picker-list li.current");
  b.setAttribute("data-t-status-shown", shown ? shown.getAttribute("data-i") : "none");
  set("f-status", ""); set("f-task", "gen_b"); b.setAttribute("data-t-task-filter", listed());
  set("f-team", "DR"); set("f-structure", "scaffolded"); b.setAttribute("data-t-combined", listed());
  b.setAttribute("data-t-count", document.getElementById("picker-count").textContent);
  document.querySelector("#picker-list li.pick").dispatchEvent(new MouseEvent("click", {bubbles: true}));
})();
</script>"""


def varied_sessions(viewer_job):
    """The job's two real sessions, each also under other picker rows (task, seed, status,
    Performance set by hand), so every sort key and filter has something to separate."""
    real = {s.index["structure"]: s for s in load_view_sessions(viewer_job)}
    assert set(real) == {"default", "scaffolded"}
    rows = [  # picker position: structure, task, seed, status, Performance
        ("default", "gen_b", "1", "finished", 0.5),
        ("scaffolded", "gen_a", "10", "finished", 1.0),
        ("default", "gen_a", "2", "max_turns", None),
        ("scaffolded", "gen_b", "0", "finished", 0.25),
    ]
    return [replace(real[st], index={**real[st].index, "task": task, "seed": seed,
                                     "status": status, "perf": perf})
            for st, task, seed, status, perf in rows]


def test_job_page_filters_and_sorts_sessions(viewer_job, tmp_path):
    page = write_page(varied_sessions(viewer_job), tmp_path / "job.html", "job")
    dom, console = open_in_browser(with_script(page, FILTER_SORT, tmp_path / "fs.html"),
                                   tmp_path / "profile")
    assert not [m for m in console if not m.startswith("collabsim-view:")], console
    assert attr(dom, "data-t-perf-desc") == "1,0,3,2"  # not scored last either way
    assert attr(dom, "data-t-perf-asc") == "3,0,1,2"
    assert attr(dom, "data-t-task") == "2,1,3,0"  # task, then seed as a number
    assert attr(dom, "data-t-seed") == "3,0,2,1"  # 10 after 2
    assert attr(dom, "data-t-status") == "2"
    # the shown session follows the filters: the one they hid gave way to the one listed
    assert attr(dom, "data-t-status-shown") == "2"
    assert attr(dom, "data-t-task-filter") == "3,0"  # sorted by seed still
    assert attr(dom, "data-t-combined") == "3"
    assert attr(dom, "data-t-count") == "1 of 4 sessions"
    assert attr(dom, "data-session").endswith("|DR|scaffolded|seed0")


def test_job_page_index_carries_each_sessions_status(viewer_job):
    statuses = {s.index["status"] for s in load_view_sessions(viewer_job)}
    assert statuses and "" not in statuses  # result.json's status, e.g. finished

