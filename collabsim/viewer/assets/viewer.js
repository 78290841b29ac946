/* collabsim session viewer: draws the sessions embedded in this page.
   Plain SVG and vanilla JavaScript, no network: everything it needs is in this file.
   The picker's index is parsed at load; a session's data only when it is picked. */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var ROW_H = 28, PAD = 9, NODE_H = 22, LEFT = 110, TOP = 64, RIGHT = 30, AXIS_H = 26;
  var MIN_W = 14;  // a node is never drawn narrower than this (short AI actions stay clickable)
  var index = JSON.parse(document.getElementById("collabsim-index").textContent);
  var VERBS = {
    SEND_TEAMMATE_MESSAGE: "said", EXECUTE_CODE: "ran code", EDITOR_UPDATE: "edited the hypothesis",
    FINISH: "submitted", APPROVE: "approved", REJECT: "rejected", MEMORY_ADD: "added to group memory",
    MEMORY_AGREE: "agreed to the group memory", INVALID: "invalid action",
    SESSION_START: "session started", PHASE_START: "phase started", SESSION_END: "session ended"
  };
  var STATUS = {
    pending: "requested (waits for the gate owner)", approved: "approved: took effect",
    rejected: "rejected: did not take effect", error: "error", interrupted: "cut off by the end"
  };

  function $(id) { return document.getElementById(id); }
  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function h(tag, cls, textValue, parent) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (textValue !== undefined && textValue !== null) { node.textContent = textValue; }
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function clock(sec) {
    sec = Math.max(0, Math.round(sec));
    var hh = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
    function two(v) { return (v < 10 ? "0" : "") + v; }
    return (hh ? hh + ":" + two(m) : m) + ":" + two(s);
  }
  function fit(str, px) {
    var max = Math.floor(px / 6.2);
    if (max < 2) { return ""; }
    return str.length <= max ? str : str.slice(0, Math.max(1, max - 1)) + "\u2026";
  }
  function text(parent, x, y, str, cls, anchor) {
    var t = el("text", { x: x, y: y, "class": cls || "", "text-anchor": anchor || "start" }, parent);
    t.textContent = str;
    return t;
  }
  function num(v, digits) {
    if (v === null || v === undefined) { return "\u2013"; }
    return Number(v).toFixed(digits);
  }

  // ------------------------------------------------------------------ the picked session
  var data = null, byId = {}, entryOf = {}, selected = null, current = -1, t0 = 0, t1 = 1;
  var svg = $("timeline-svg"), zoomInput = $("zoom");

  function load(i) {
    data = JSON.parse($("collabsim-session-" + i).textContent);
    current = i;
    selected = null;
    byId = {}; entryOf = {};
    data.nodes.forEach(function (n) { byId[n.id] = n; });
    t0 = Infinity; t1 = -Infinity;
    data.nodes.forEach(function (n) {
      n.intervals.forEach(function (iv) { t0 = Math.min(t0, iv[0]); t1 = Math.max(t1, iv[1]); });
    });
    if (!isFinite(t0)) { t0 = 0; t1 = 1; }
    if (t1 <= t0) { t1 = t0 + 1; }
    // steps without a recorded time range span their nodes
    data.steps.forEach(function (s) {
      if (s.time_range) { return; }
      var lo = Infinity, hi = -Infinity;
      data.nodes.forEach(function (n) {
        if (n.step !== s.key) { return; }
        n.intervals.forEach(function (iv) { lo = Math.min(lo, iv[0]); hi = Math.max(hi, iv[1]); });
      });
      if (isFinite(lo)) { s.time_range = [lo, hi]; }
    });
    drawStory();
    drawTranscript();
    drawModelTurns();
    draw();
    $("detail").innerHTML = "";
    h("p", "muted", "Click a node or a transcript entry.", $("detail"));
    Array.prototype.forEach.call(document.querySelectorAll("#picker-list li"), function (li) {
      li.classList.toggle("current", Number(li.getAttribute("data-i")) === i);
    });
    document.body.setAttribute("data-session", data.session.session_id);
    document.title = (index.length > 1 ? document.querySelector(".page-title").textContent + " \u2013 " : "") +
      data.session.session_id;
  }

  // ------------------------------------------------------------------ header
  function drawStory() {
    var box = $("story"), hd = data.header;
    box.innerHTML = "";
    box.className = "outcome-" + hd.outcome.replace(/\s+/g, "-");
    var top = h("div", "story-top", null, box);
    var left = h("div", "story-main", null, top);
    h("div", "kicker", hd.kind === "kolab" ? "Recorded session " + data.session.session_id :
      "Task question", left);
    h("h2", "question", hd.question || (hd.kind === "kolab" ? data.session.occupation || "" :
      "(the trace does not record the question)"), left);
    var facts = h("div", "facts", null, left);
    hd.facts.forEach(function (f) {
      var s = h("span", "fact", null, facts);
      h("span", "k", f[0], s);
      h("span", "v", f[1], s);
    });
    if (hd.kind === "simulated") {
      var score = h("div", "score", null, top);
      h("div", "kicker", "Performance", score);
      h("div", "perf", num(hd.performance, 2), score);
      h("div", "badge-outcome", hd.outcome, score);
      var fac = h("div", "factors", null, score);
      hd.factors.forEach(function (f, k) {
        if (k) { h("span", "times", "\u00d7", fac); }
        var item = h("span", "factor", null, fac);
        item.title = f.hint;
        h("span", "fv", num(f.value, 2), item);
        h("span", "fk", f.label, item);
      });
      if (hd.judge) { h("div", "muted small", "judge: " + hd.judge, score); }
      var hyp = h("div", "hypothesis", null, left);
      h("div", "kicker", "Submitted hypothesis", hyp);
      h("blockquote", "", hd.hypothesis || "(nothing submitted)", hyp);
      if (hd.gold !== undefined) {
        var gold = h("div", "hypothesis gold", null, left);
        h("div", "kicker", "Gold hypothesis (shown on request: --show-gold)", gold);
        h("blockquote", "", hd.gold, gold);
      }
    }
    if (hd.error) { h("div", "error", hd.error, left); }
    var cards = h("div", "cards", null, box);
    hd.cards.forEach(function (c) {
      var card = h("div", "card", null, cards);
      card.title = c.hint;
      h("div", "cv", c.value, card);
      h("div", "ck", c.label, card);
      h("div", "ch", c.hint, card);
    });
  }

  // ------------------------------------------------------------------ model turns
  function drawModelTurns() {
    var box = $("model-turns"), turns = data.model_turns || [];
    box.innerHTML = "";
    box.style.display = turns.length ? "" : "none";
    if (!turns.length) { return; }
    h("h3", "", "Model turns (" + turns.length + " calls, from llm_calls.jsonl)", box);
    var table = h("table", "turns", null, box);
    var head = h("tr", "", null, h("thead", "", null, table));
    ["#", "seat", "model", "prompt tok", "reply tok", "cost $", "parse result", "reply"].forEach(
      function (c) { h("th", "", c, head); });
    var body = h("tbody", "", null, table);
    turns.forEach(function (t) {
      var tr = h("tr", t.parse.indexOf("action ") === 0 ? "ok" : "bad", null, body);
      h("td", "n", String(t.call), tr);
      h("td", "", t.tag, tr);
      h("td", "", t.model, tr);
      h("td", "n", String(t.prompt_tokens), tr);
      h("td", "n", String(t.completion_tokens), tr);
      h("td", "n", (t.cost_known ? "" : "? ") + Number(t.cost_usd).toFixed(6) +
        (t.cached ? " (cached)" : ""), tr);
      h("td", "parse", t.parse, tr);
      var cell = h("td", "reply", null, tr);
      var det = h("details", "", null, cell);
      h("summary", "", t.reply.split("\n")[0].slice(0, 80) || "(empty reply)", det);
      h("pre", "", t.reply, det);
    });
  }

  // ------------------------------------------------------------------ transcript
  function verb(e) {
    if (!e.act) { return ""; }
    var v = VERBS[e.act] || e.act.toLowerCase();
    if (e.status === "pending") { v = "asked to: " + v.replace(/^ran /, "run ").replace(/^edited /, "edit ").replace(/^submitted/, "submit"); }
    return v;
  }
  function drawTranscript() {
    var box = $("transcript");
    box.innerHTML = "";
    h("h3", "", "Transcript (" + data.transcript.length + ")", box);
    if (!data.transcript.length) { h("p", "muted", "No transcript for this session.", box); }
    var list = h("ol", "entries", null, box);
    data.transcript.forEach(function (e) {
      var li = h("li", "entry " + e.who + (e.node ? " linked" : " unlinked") +
                 (e.status && e.status !== "ok" ? " st-" + e.status : ""), null, list);
      li.id = "entry-" + e.seq;
      if (e.node) { li.setAttribute("data-node", e.node); entryOf[e.node] = li; }
      var head = h("div", "ehead", null, li);
      h("span", "time", e.t ? clock(e.t[0]) : "", head);
      h("span", "actor " + e.who, e.actor, head);
      h("span", "verb", verb(e), head);
      if (e.status && STATUS[e.status] && e.status !== "pending") { h("span", "status", STATUS[e.status], head); }
      if (e.note) { h("div", "note", e.note, li); }
      if (e.text) {
        if (e.act === "EXECUTE_CODE") { h("pre", "code", e.text, li); }
        else { h("div", "etext", e.text, li); }
      }
      if (e.out) { h("pre", "out", e.out, li); }
      if (e.node) { li.addEventListener("click", function () { select(e.node, "transcript"); }); }
    });
  }

  // ------------------------------------------------------------------ timeline
  function draw() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var box = $("timeline");
    var baseWidth = Math.max(560, (box && box.clientWidth) || 900);
    var width = baseWidth * Number(zoomInput.value);
    var plotW = width - LEFT - RIGHT;
    function x(t) { return LEFT + (t - t0) / (t1 - t0) * plotW; }
    function ivs(n) { return n.intervals.length ? n.intervals : [[t0, t0]]; }
    // sub-rows: nodes of one participant that overlap as drawn (after the minimum width)
    var rowEnds = {}, laneTop = {}, lanesH = 0;
    data.lanes.forEach(function (l) { rowEnds[l.actor] = []; });
    data.nodes.slice().sort(function (a, b) { return ivs(a)[0][0] - ivs(b)[0][0]; }).forEach(function (n) {
      var iv = ivs(n), start = x(iv[0][0]);
      var end = Math.max(x(iv[iv.length - 1][1]), start + MIN_W);
      var ends = rowEnds[n.actor], r = 0;
      while (r < ends.length && ends[r] > start + 0.5) { r++; }
      ends[r] = end;
      n.row = r;
    });
    data.lanes.forEach(function (l) {
      laneTop[l.actor] = lanesH;
      l.height = 2 * PAD + Math.max(1, rowEnds[l.actor].length) * ROW_H;
      lanesH += l.height;
    });
    var height = TOP + lanesH + AXIS_H + 10;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    function nodeY(n) { return TOP + laneTop[n.actor] + PAD + n.row * ROW_H + (ROW_H - NODE_H) / 2; }

    var bands = el("g", { "class": "steps" }, svg);
    data.steps.forEach(function (s, i) {
      if (!s.time_range) { return; }
      var x0 = x(s.time_range[0]), x1 = Math.max(x(s.time_range[1]), x0 + 2);
      el("rect", { x: x0, y: TOP - 40, width: x1 - x0, height: lanesH + 40,
                   fill: i % 2 ? "var(--band2)" : "var(--band)" }, bands);
      var label = text(bands, x0 + 4, TOP - 26, fit(s.name, x1 - x0 - 8), "step-name");
      el("title", {}, label).textContent = s.name;
      var r = [];
      if (s.collaboration !== null && s.collaboration !== undefined) { r.push("collab " + s.collaboration + "/5"); }
      if (s.quality !== null && s.quality !== undefined) { r.push("quality " + s.quality + "/5"); }
      if (r.length) { text(bands, x0 + 4, TOP - 12, fit(r.join(" \u00b7 "), x1 - x0 - 8), "rating step-rating"); }
    });

    var lanes = el("g", { "class": "lanes" }, svg);
    data.lanes.forEach(function (l) {
      var y = TOP + laneTop[l.actor];
      el("line", { x1: LEFT, x2: width - RIGHT, y1: y + l.height, y2: y + l.height, stroke: "#e3e7eb" }, lanes);
      var name = l.actor.toLowerCase() === l.actor_type ? l.actor : l.actor + " (" + l.actor_type + ")";
      var t = text(lanes, LEFT - 10, y + PAD + ROW_H / 2 + 4, fit(name, LEFT - 14), "lane-label", "end");
      t.setAttribute("fill", l.actor_type === "human" ? "var(--human)" : "var(--ai)");
    });

    var axis = el("g", { "class": "axis" }, svg);
    var axisY = TOP + lanesH + 4;
    for (var k = 0; k <= 8; k++) {
      var tt = t0 + (t1 - t0) * k / 8;
      el("line", { x1: x(tt), x2: x(tt), y1: TOP - 4, y2: axisY + 4 }, axis);
      text(axis, x(tt), axisY + 16, clock(tt), "", "middle");
    }

    var edgeLayer = el("g", { "class": "edges" }, svg);
    data.edges.forEach(function (e, i) {
      var a = byId[e.source], b = byId[e.target];
      if (!a || !b) { return; }
      var ya = nodeY(a) + NODE_H / 2, yb = nodeY(b) + NODE_H / 2;
      var ia = ivs(a)[ivs(a).length - 1], ib = ivs(b)[0];
      var d;
      if (e.type === "loop") {
        var xa = x((ia[0] + ia[1]) / 2), xb = x((ib[0] + ib[1]) / 2);
        var lift = Math.min(34, 12 + Math.abs(xa - xb) / 6);
        d = "M" + xa + "," + (ya - NODE_H / 2) + " C" + xa + "," + (ya - NODE_H / 2 - lift) +
            " " + xb + "," + (yb - NODE_H / 2 - lift) + " " + xb + "," + (yb - NODE_H / 2);
      } else {
        var sx = Math.max(x(ia[1]), x(ia[0]) + MIN_W), tx = x(ib[0]);
        var mid = (sx + tx) / 2;
        d = "M" + sx + "," + ya + " C" + mid + "," + ya + " " + mid + "," + yb + " " + tx + "," + yb;
      }
      var cls = "edge " + (e.type === "loop" ? "loop" : (e.crossing ? "crossing" : "sequential"));
      el("path", { d: d, "class": cls, "data-edge": i, "data-source": e.source, "data-target": e.target }, edgeLayer);
    });

    var nodeLayer = el("g", { "class": "nodes" }, svg);
    var drawn = 0;
    data.nodes.forEach(function (n) {
      var g = el("g", { "class": "node " + n.actor_type + " " + n.kind, "data-id": n.id }, nodeLayer);
      var y = nodeY(n), list = ivs(n);
      list.forEach(function (iv, j) {
        var x0 = x(iv[0]), w = Math.max(x(iv[1]) - x0, MIN_W);
        el("rect", { "class": "iv", x: x0, y: y, width: w, height: NODE_H, rx: 3 }, g);
        if (j === 0 && w > 34) { text(g, x0 + 4, y + NODE_H / 2 + 4, fit(n.label, w - 8), "node-label"); }
        if (j > 0) {
          el("line", { x1: x(list[j - 1][1]), x2: x0, y1: y + NODE_H / 2, y2: y + NODE_H / 2,
                       stroke: "#888", "stroke-dasharray": "2 2" }, g);
        }
      });
      var badge = n.kind === "approve" ? "\u2713" : n.kind === "reject" ? "\u2717" : n.kind === "request" ? "?" : "";
      n.responses.forEach(function (r) { badge += r.label.charAt(0).toUpperCase(); });
      if (badge) { text(g, x(list[0][0]) + 2, y - 3, badge, "badge"); }
      el("title", {}, g).textContent = n.label + "  [" + clock(list[0][0]) + "\u2013" + clock(list[list.length - 1][1]) + "]";
      g.addEventListener("click", function () { select(n.id, "timeline"); });
      drawn += 1;
    });
    document.body.setAttribute("data-drawn-nodes", String(drawn));
    document.body.setAttribute("data-drawn-edges", String(data.edges.length));
    if (selected) { mark(selected); }
  }

  // ------------------------------------------------------------------ selection (both ways)
  function row(table, key, value) {
    if (value === undefined || value === null || value === "") { return; }
    var tr = h("tr", "", null, table);
    h("td", "muted", key, tr);
    h("td", "", value, tr);
  }
  function mark(id) {
    Array.prototype.forEach.call(svg.querySelectorAll("g.node"), function (g) {
      g.classList.toggle("selected", g.getAttribute("data-id") === id);
    });
    Array.prototype.forEach.call(svg.querySelectorAll("path.edge"), function (p) {
      p.classList.toggle("hl", p.getAttribute("data-source") === id || p.getAttribute("data-target") === id);
    });
  }
  function scrollTranscriptTo(entry) {
    var box = $("transcript");
    var offset = entry.getBoundingClientRect().top - box.getBoundingClientRect().top;
    box.scrollTop = Math.max(0, box.scrollTop + offset - 12);
  }
  function scrollTimelineTo(id) {
    var g = svg.querySelector('g.node[data-id="' + id.replace(/"/g, '\\"') + '"]');
    if (!g) { return; }
    var box = $("timeline"), r = g.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (r.left < b.left || r.right > b.right) { box.scrollLeft += r.left - b.left - b.width / 3; }
  }
  function select(id, from) {
    var n = byId[id];
    if (!n) { return; }
    selected = id;
    mark(id);
    Array.prototype.forEach.call(document.querySelectorAll("#transcript li.entry.active"), function (li) {
      li.classList.remove("active");
    });
    var entry = entryOf[id];
    if (entry) {
      entry.classList.add("active");
      if (from !== "transcript") { scrollTranscriptTo(entry); }
    }
    if (from !== "timeline") { scrollTimelineTo(id); }
    document.body.setAttribute("data-selected-node", id);
    var box = $("detail");
    box.innerHTML = "";
    h("h4", "", n.label || n.id, box);
    var table = h("table", "", null, box);
    row(table, "node", n.id);
    row(table, "actor", n.actor + " (" + n.actor_type + ")");
    row(table, "time", n.intervals.map(function (iv) { return clock(iv[0]) + "\u2013" + clock(iv[1]); }).join(", "));
    var step = data.steps.filter(function (s) { return s.key === n.step; })[0];
    row(table, "step", step ? step.name : n.step);
    if (step) {
      row(table, "step ratings", [step.collaboration !== null ? "collaboration " + step.collaboration : "",
                                  step.quality !== null ? "quality " + step.quality : ""].filter(Boolean).join(", "));
    }
    row(table, "status", n.extra.status);
    row(table, "gate request", n.extra.request_id);
    row(table, "tools", n.softwares.join(", "));
    n.responses.forEach(function (r) {
      row(table, "response", r.label + " to " + r.ai_node + (r.source ? " (requested by " + r.source + ")" : ""));
    });
    data.responses.forEach(function (r) {
      if (r.ai_node === id) { row(table, "human response", r.label + " by " + r.responder); }
    });
    row(table, "follows", data.edges.filter(function (e) { return e.target === id; })
      .map(function (e) { return e.source + (e.type === "loop" ? " (loop)" : ""); }).join(", "));
    row(table, "followed by", data.edges.filter(function (e) { return e.source === id; })
      .map(function (e) { return e.target + (e.type === "loop" ? " (loop)" : ""); }).join(", "));
    if (n.detail) { h("pre", "", n.detail, box); }
    setHash();
  }

  // ------------------------------------------------------------------ picker
  var FILTERS = ["team", "structure", "task", "status", "outcome"];
  var filters = {};
  FILTERS.forEach(function (k) { filters[k] = $("f-" + k); });
  // sort keys: a session without Performance (not scored) goes last in both directions
  function byText(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function bySeed(a, b) {
    var x = Number(a.seed), y = Number(b.seed);
    if (a.seed !== "" && b.seed !== "" && isFinite(x) && isFinite(y)) { return x - y; }
    return byText(String(a.seed), String(b.seed));
  }
  function byPerf(sign) {
    return function (a, b) {
      var pa = a.perf === null || a.perf === undefined, pb = b.perf === null || b.perf === undefined;
      if (pa || pb) { return pa === pb ? 0 : (pa ? 1 : -1); }
      return sign * (a.perf - b.perf);
    };
  }
  var SORTS = {
    "perf-desc": [byPerf(-1)], "perf-asc": [byPerf(1)],
    task: [function (a, b) { return byText(a.task, b.task); }, bySeed],
    seed: [bySeed, function (a, b) { return byText(a.task, b.task); }]
  };
  function ordered() {
    var keys = SORTS[$("f-sort").value] || [];
    // ties keep the listed order (Array.sort is not stable in every browser)
    return index.slice().sort(function (a, b) {
      for (var k = 0; k < keys.length; k++) {
        var c = keys[k](a, b);
        if (c) { return c; }
      }
      return a.i - b.i;
    });
  }
  // a filter's value for a session; a missing one is listed (and picked) as a dash
  function field(s, key) {
    var v = s[key] === undefined || s[key] === null ? "" : String(s[key]);
    return v || "\u2013";
  }
  function fillFilter(key) {
    var values = [];
    index.forEach(function (s) { if (values.indexOf(field(s, key)) < 0) { values.push(field(s, key)); } });
    values.sort();
    var sel = filters[key];
    sel.parentNode.style.display = values.length > 1 ? "" : "none";
    h("option", "", "all (" + values.length + ")", sel).value = "";
    values.forEach(function (v) { h("option", "", v, sel).value = v; });
  }
  function visible(s) {
    var q = $("f-text").value.toLowerCase();
    return FILTERS.every(function (k) { return !filters[k].value || field(s, k) === filters[k].value; }) &&
      (!q || (s.id + " " + s.title + " " + s.task).toLowerCase().indexOf(q) >= 0);
  }
  function drawPicker() {
    var list = $("picker-list");
    list.innerHTML = "";
    var shown = 0, first = null;
    ordered().forEach(function (s) {
      if (!visible(s)) { return; }
      shown += 1;
      if (first === null) { first = s.i; }
      var li = h("li", "pick outcome-" + s.outcome.replace(/\s+/g, "-") + (s.i === current ? " current" : ""), null, list);
      li.setAttribute("data-i", s.i);
      var main = h("div", "pmain", null, li);
      h("span", "ptask", s.task || s.id, main);
      h("span", "pperf", s.kind === "kolab" ? s.nodes + " nodes" : num(s.perf, 2), main);
      h("div", "psub", [s.team, s.structure, s.seed !== "" ? "seed " + s.seed : ""].filter(Boolean).join(" \u00b7 ") +
        (s.kind === "kolab" ? "" : " \u00b7 " + s.outcome), li);
      li.addEventListener("click", function () {
        var began = window.performance.now();
        load(s.i);
        setHash();
        document.body.setAttribute("data-pick-ms", String(Math.round(window.performance.now() - began)));
      });
    });
    $("picker-count").textContent = shown + " of " + index.length + " sessions";
    return first;
  }
  // after a filter change: the shown session, if the filters now hide it, gives way to the
  // first session listed (the page never shows a session its filters exclude)
  function refilter() {
    var first = drawPicker();
    var now = index.filter(function (s) { return s.i === current; })[0];
    if (first !== null && (!now || !visible(now))) {
      load(first);
      setHash();
    }
  }
  function setHash() {
    var hash = "#s=" + current + (selected ? "&node=" + encodeURIComponent(selected) : "");
    if (window.location.hash !== hash && window.history && window.history.replaceState) {
      try { window.history.replaceState(null, "", hash); } catch (err) { /* file:// in some browsers */ }
    }
  }

  FILTERS.forEach(function (k) {
    fillFilter(k);
    filters[k].addEventListener("change", refilter);
  });
  $("f-sort").addEventListener("change", drawPicker);
  $("f-text").addEventListener("input", refilter);
  zoomInput.addEventListener("input", draw);
  window.addEventListener("resize", function () { if (data) { draw(); } });

  var want = {};
  window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv.length === 2) { want[kv[0]] = decodeURIComponent(kv[1]); }
  });
  var start = Number(want.s);
  if (!(start >= 0 && start < index.length)) { start = 0; }
  drawPicker();
  load(start);
  if (want.node && byId[want.node]) { select(want.node, "hash"); }
  document.body.setAttribute("data-view-status", "ok");
  document.body.setAttribute("data-view-ms", String(Math.round(window.performance.now())));
  console.log("collabsim-view: drew " + document.body.getAttribute("data-drawn-nodes") + " of " +
              data.nodes.length + " nodes");
})();
