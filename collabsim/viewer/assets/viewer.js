/* collabsim session viewer: draws the workflow graph embedded in this page as a timeline.
   Plain SVG and vanilla JavaScript, no network: everything it needs is in this file. */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("collabsim-data").textContent);
  var ROW_H = 28, PAD = 9, NODE_H = 22, LEFT = 150, TOP = 64, RIGHT = 40, AXIS_H = 26;

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function clock(sec) {
    sec = Math.max(0, Math.round(sec));
    var h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
    function two(v) { return (v < 10 ? "0" : "") + v; }
    return (h ? h + ":" + two(m) : m) + ":" + two(s);
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

  var nodes = data.nodes, byId = {};
  nodes.forEach(function (n) { byId[n.id] = n; });
  // overlapping nodes of one participant (a few occur in real recordings) get sub-rows
  var rowEnds = {}, laneTop = {}, lanesH = 0;
  data.lanes.forEach(function (l) { rowEnds[l.actor] = []; });
  nodes.slice().sort(function (a, b) {
    return (a.intervals.length ? a.intervals[0][0] : 0) - (b.intervals.length ? b.intervals[0][0] : 0);
  }).forEach(function (n) {
    var ends = rowEnds[n.actor], start = n.intervals.length ? n.intervals[0][0] : 0;
    var end = n.intervals.length ? n.intervals[n.intervals.length - 1][1] : start;
    var r = 0;
    while (r < ends.length && ends[r] > start + 1e-6) { r++; }
    ends[r] = end;
    n.row = r;
  });
  data.lanes.forEach(function (l) {
    laneTop[l.actor] = lanesH;
    l.height = 2 * PAD + Math.max(1, rowEnds[l.actor].length) * ROW_H;
    lanesH += l.height;
  });
  var t0 = Infinity, t1 = -Infinity;
  nodes.forEach(function (n) {
    n.intervals.forEach(function (iv) { t0 = Math.min(t0, iv[0]); t1 = Math.max(t1, iv[1]); });
  });
  if (!isFinite(t0)) { t0 = 0; t1 = 1; }
  // steps without a recorded time range span their nodes
  data.steps.forEach(function (s) {
    if (s.time_range) { return; }
    var lo = Infinity, hi = -Infinity;
    nodes.forEach(function (n) {
      if (n.step !== s.key) { return; }
      n.intervals.forEach(function (iv) { lo = Math.min(lo, iv[0]); hi = Math.max(hi, iv[1]); });
    });
    if (isFinite(lo)) { s.time_range = [lo, hi]; }
  });
  if (t1 <= t0) { t1 = t0 + 1; }

  var svg = document.getElementById("timeline-svg");
  var zoomInput = document.getElementById("zoom");
  var selected = null;

  function draw() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var box = document.getElementById("timeline");
    var baseWidth = Math.max(700, (box && box.clientWidth) || 1000);
    var width = baseWidth * Number(zoomInput.value);
    var plotW = width - LEFT - RIGHT;
    var height = TOP + lanesH + AXIS_H + 10;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    function x(t) { return LEFT + (t - t0) / (t1 - t0) * plotW; }
    function nodeY(n) { return TOP + laneTop[n.actor] + PAD + n.row * ROW_H + (ROW_H - NODE_H) / 2; }

    // step bands, with the professional's ratings where the data has them
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
      if (r.length) { text(bands, x0 + 4, TOP - 12, fit(r.join(" · "), x1 - x0 - 8), "rating step-rating"); }
    });

    // swimlanes
    var lanes = el("g", { "class": "lanes" }, svg);
    data.lanes.forEach(function (l) {
      var y = TOP + laneTop[l.actor];
      el("line", { x1: LEFT, x2: width - RIGHT, y1: y + PAD + ROW_H / 2, y2: y + PAD + ROW_H / 2,
                   stroke: "#e3e7eb" }, lanes);
      var name = l.actor.toLowerCase() === l.actor_type ? l.actor : l.actor + " (" + l.actor_type + ")";
      var t = text(lanes, LEFT - 10, y + PAD + ROW_H / 2 + 4, name, "lane-label", "end");
      t.setAttribute("fill", l.actor_type === "human" ? "var(--human)" : "var(--ai)");
    });

    // time axis
    var axis = el("g", { "class": "axis" }, svg);
    var axisY = TOP + lanesH + 4;
    var ticks = 8;
    for (var k = 0; k <= ticks; k++) {
      var tt = t0 + (t1 - t0) * k / ticks;
      el("line", { x1: x(tt), x2: x(tt), y1: TOP - 4, y2: axisY + 4 }, axis);
      text(axis, x(tt), axisY + 16, clock(tt), "", "middle");
    }

    // edges under the nodes
    var edgeLayer = el("g", { "class": "edges" }, svg);
    data.edges.forEach(function (e, i) {
      var a = byId[e.source], b = byId[e.target];
      var ya = nodeY(a) + NODE_H / 2, yb = nodeY(b) + NODE_H / 2;
      var ia = a.intervals[a.intervals.length - 1] || [0, 0], ib = b.intervals[0] || [0, 0];
      var d;
      if (e.type === "loop") {
        // a loop goes back to the node whose work it repeats: arc above the lane
        var xa = x((ia[0] + ia[1]) / 2), xb = x((ib[0] + ib[1]) / 2);
        var lift = Math.min(34, 12 + Math.abs(xa - xb) / 6);
        d = "M" + xa + "," + (ya - NODE_H / 2) + " C" + xa + "," + (ya - NODE_H / 2 - lift) +
            " " + xb + "," + (yb - NODE_H / 2 - lift) + " " + xb + "," + (yb - NODE_H / 2);
      } else {
        var sx = x(ia[1]), tx = x(ib[0]);
        var mid = (sx + tx) / 2;
        d = "M" + sx + "," + ya + " C" + mid + "," + ya + " " + mid + "," + yb + " " + tx + "," + yb;
      }
      var cls = "edge " + (e.type === "loop" ? "loop" : (e.crossing ? "crossing" : "sequential"));
      el("path", { d: d, "class": cls, "data-edge": i, "data-source": e.source,
                   "data-target": e.target }, edgeLayer);
    });

    // nodes: one g.node per graph node, one rect per time interval
    var nodeLayer = el("g", { "class": "nodes" }, svg);
    var drawn = 0;
    nodes.forEach(function (n) {
      var g = el("g", { "class": "node " + n.actor_type + " " + n.kind, "data-id": n.id }, nodeLayer);
      var y = nodeY(n);
      var ivs = n.intervals.length ? n.intervals : [[t0, t0]];
      ivs.forEach(function (iv, j) {
        var x0 = x(iv[0]), w = Math.max(x(iv[1]) - x0, 5);
        el("rect", { "class": "iv", x: x0, y: y, width: w, height: NODE_H, rx: 3 }, g);
        if (j === 0 && w > 34) {
          text(g, x0 + 4, y + NODE_H / 2 + 4, fit(n.label, w - 8), "node-label");
        }
        if (j > 0) {
          var prev = ivs[j - 1];
          el("line", { x1: x(prev[1]), x2: x0, y1: y + NODE_H / 2, y2: y + NODE_H / 2,
                       stroke: "#888", "stroke-dasharray": "2 2" }, g);
        }
      });
      var first = ivs[0];
      var mark = n.kind === "approve" ? "\u2713" : n.kind === "reject" ? "\u2717" :
                 n.kind === "request" ? "?" : "";
      n.responses.forEach(function (r) { mark += r.label.charAt(0).toUpperCase(); });
      if (mark) {
        text(g, x(first[0]) + 2, y - 3, mark, "badge");
      }
      el("title", {}, g).textContent = n.label + "  [" + clock(first[0]) + "\u2013" + clock(ivs[ivs.length - 1][1]) + "]";
      g.addEventListener("click", function () { select(n.id); });
      drawn += 1;
    });
    document.body.setAttribute("data-drawn-nodes", String(drawn));
    document.body.setAttribute("data-drawn-edges", String(data.edges.length));
    if (selected) { select(selected); }
  }

  function row(table, key, value) {
    if (value === undefined || value === null || value === "") { return; }
    var tr = document.createElement("tr");
    var a = document.createElement("td"), b = document.createElement("td");
    a.className = "muted"; a.textContent = key; b.textContent = value;
    tr.appendChild(a); tr.appendChild(b); table.appendChild(tr);
  }

  function select(id) {
    selected = id;
    var n = byId[id];
    Array.prototype.forEach.call(svg.querySelectorAll("g.node"), function (g) {
      g.classList.toggle("selected", g.getAttribute("data-id") === id);
    });
    Array.prototype.forEach.call(svg.querySelectorAll("path.edge"), function (p) {
      p.classList.toggle("hl", p.getAttribute("data-source") === id || p.getAttribute("data-target") === id);
    });
    var box = document.getElementById("detail");
    box.innerHTML = "";
    var h = document.createElement("h2");
    h.textContent = n.label || n.id;
    box.appendChild(h);
    var table = document.createElement("table");
    row(table, "node", n.id);
    row(table, "actor", n.actor + " (" + n.actor_type + ")");
    row(table, "time", n.intervals.map(function (iv) { return clock(iv[0]) + "\u2013" + clock(iv[1]); }).join(", "));
    var step = data.steps.filter(function (s) { return s.key === n.step; })[0];
    row(table, "step", step ? step.name : n.step);
    if (step) {
      row(table, "step ratings", [step.collaboration !== null ? "collaboration " + step.collaboration : "",
                                  step.quality !== null ? "quality " + step.quality : ""].filter(Boolean).join(", "));
    }
    row(table, "action", n.extra.action_type);
    row(table, "status", n.extra.status);
    row(table, "gate request", n.extra.request_id);
    row(table, "tools", n.softwares.join(", "));
    n.responses.forEach(function (r) {
      row(table, "response", r.label + " to " + r.ai_node + (r.source ? " (requested by " + r.source + ")" : ""));
    });
    data.responses.forEach(function (r) {
      if (r.ai_node === id) { row(table, "human response", r.label + " by " + r.responder); }
    });
    var ins = data.edges.filter(function (e) { return e.target === id; }).map(function (e) { return e.source + (e.type === "loop" ? " (loop)" : ""); });
    var outs = data.edges.filter(function (e) { return e.source === id; }).map(function (e) { return e.target + (e.type === "loop" ? " (loop)" : ""); });
    row(table, "follows", ins.join(", "));
    row(table, "followed by", outs.join(", "));
    box.appendChild(table);
    if (n.detail) {
      var pre = document.createElement("pre");
      pre.textContent = n.detail;
      box.appendChild(pre);
    }
  }

  zoomInput.addEventListener("input", draw);
  draw();
  var wanted = /^#node=(.+)$/.exec(window.location.hash);
  if (wanted && byId[decodeURIComponent(wanted[1])]) { select(decodeURIComponent(wanted[1])); }
  document.body.setAttribute("data-view-status", "ok");
  console.log("collabsim-view: drew " + document.body.getAttribute("data-drawn-nodes") + " of " + nodes.length + " nodes");
})();
