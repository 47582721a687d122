(function () {
  "use strict";
  var PAGE = Number(document.body.getAttribute("data-page-size")) || 100;
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(n) { return n === null || n === undefined ? "?" : Number(n).toLocaleString("en"); }
  // Text with some ranges wrapped in <mark class=...>: ranges sorted, overlaps dropped.
  function marked(text, ranges) {
    var frag = document.createDocumentFragment();
    ranges.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var at = 0;
    ranges.forEach(function (r) {
      if (r[0] < at) return;
      if (r[0] > at) frag.appendChild(document.createTextNode(text.slice(at, r[0])));
      var m = el("mark", r[2], text.slice(r[0], r[1]));
      if (r[3]) m.title = r[3];
      if (r[4]) m.id = r[4];
      frag.appendChild(m);
      at = r[1];
    });
    if (at < text.length) frag.appendChild(document.createTextNode(text.slice(at)));
    return frag;
  }
  function allIndexes(text, needle) {
    var out = [];
    if (!needle) return out;
    var i = text.indexOf(needle);
    while (i !== -1 && out.length < 1000) { out.push(i); i = text.indexOf(needle, i + needle.length); }
    return out;
  }
  function renderDetail(box, d) {
    var survived = { kept: 0, reworded: 0, lost: 0 };
    d.constraints.forEach(function (c) { survived[c.survival] += 1; });
    var head = el("p", "ck-detail-counts");
    head.textContent = "replaced " + fmt(d.replaced.events) + " events (" +
      fmt(d.replaced.user_messages) + " user messages" +
      (d.replaced.previous_summary ? ", plus the previous summary" : "") + "); constraints: " +
      survived.kept + " kept, " + survived.reworded + " reworded, " + survived.lost +
      " lost; invented items: " + d.invented.length + "; tokens " +
      fmt(d.compaction.tokens_before) + " \u2192 " + fmt(d.compaction.tokens_after);
    box.appendChild(head);
    if (d.compaction.error) box.appendChild(el("p", "ck-level-error", "error: " + d.compaction.error));
    if (!d.has_history) box.appendChild(el("p", "ck-note", "nothing this compaction replaced is in the log: nothing to compare"));
    var bySeq = {};
    if (d.constraints.length) {
      box.appendChild(el("h4", null, "Standing instructions judged at this compaction"));
      var list = el("ul", "ck-constraints");
      d.constraints.forEach(function (c, k) {
        c.anchor = box.id + "-c" + k;
        (bySeq[c.seq] = bySeq[c.seq] || []).push(c);
        var li = el("li", "ck-constraint ck-" + c.survival);
        li.setAttribute("data-survival", c.survival);
        li.appendChild(el("span", "ck-badge ck-" + c.survival, c.survival));
        li.appendChild(el("span", "ck-constraint-text", c.text));
        if (c.inherited_from) {
          li.appendChild(el("span", "ck-note", " (carried by earlier summaries; said before compaction " + c.inherited_from + ")"));
        }
        if (c.restored_after) {
          li.appendChild(el("span", "ck-note ck-restored", " (restored by ctxkeep after compaction " + c.restored_after + ")"));
        }
        if (c.asked_by_ctxkeep) {
          li.appendChild(el("span", "ck-note ck-asked", " (ctxkeep asked the summariser to keep it)"));
        }
        li.appendChild(document.createTextNode(" "));
        var a = el("a", "ck-goto", c.line ? "line " + c.line : "seq " + c.seq);
        a.title = d.path + (c.line ? ":" + c.line : "") + " \u2014 " + c.source;
        a.href = "#" + c.anchor;
        a.addEventListener("click", function (ev) { ev.preventDefault(); goTo(c.seq, c.anchor); });
        li.appendChild(a);
        list.appendChild(li);
      });
      box.appendChild(list);
    }
    var sides = el("div", "ck-sides");
    // Left: the replaced history, one page at a time.
    var left = el("div", "ck-side ck-left");
    left.appendChild(el("h4", null, "Replaced history: " + d.path + " (" + fmt(d.history.length) + " events" +
      (d.history_omitted ? ", " + fmt(d.history_omitted) + " more not embedded" : "") + ")"));
    var pager = el("div", "ck-pager");
    var prev = el("button", "ck-prev", "\u2190 earlier");
    var next = el("button", "ck-next", "later \u2192");
    var where = el("span", "ck-page-label");
    pager.appendChild(prev); pager.appendChild(where); pager.appendChild(next);
    left.appendChild(pager);
    var history = el("div", "ck-history");
    left.appendChild(history);
    var page = 0;
    var pages = Math.max(1, Math.ceil(d.history.length / PAGE));
    function showPage(p) {
      page = Math.min(Math.max(0, p), pages - 1);
      history.textContent = "";
      var first = page * PAGE, last = Math.min(d.history.length, first + PAGE);
      for (var i = first; i < last; i++) {
        var ev = d.history[i];  // [seq, line, kind, who, text, cut]
        var row = el("div", "ck-event");
        row.id = box.id + "-e" + ev[0];
        row.appendChild(el("div", "ck-event-head", "line " + (ev[1] || "?") + " \u00b7 seq " + ev[0] +
          " \u00b7 " + ev[2] + (ev[3] ? " \u00b7 " + ev[3] : "")));
        var ranges = [];
        (bySeq[ev[0]] || []).forEach(function (c) {
          var at = ev[4].indexOf(c.text);
          if (at !== -1) ranges.push([at, at + c.text.length, "ck-" + c.survival, c.survival, c.anchor]);
        });
        var pre = el("pre");
        pre.appendChild(marked(ev[4], ranges));
        if (ev[5]) pre.appendChild(el("span", "ck-note", " \u2026 (" + fmt(ev[5]) + " more characters)"));
        row.appendChild(pre);
        history.appendChild(row);
      }
      where.textContent = d.history.length ? "events " + fmt(first + 1) + "\u2013" + fmt(last) +
        " of " + fmt(d.history.length) + " (page " + (page + 1) + " of " + pages + ")" : "none in the log";
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
      history.scrollTop = 0;
    }
    function goTo(seq, anchor) {
      for (var i = 0; i < d.history.length; i++) {
        if (d.history[i][0] === seq) { showPage(Math.floor(i / PAGE)); break; }
      }
      var target = document.getElementById(anchor) || document.getElementById(box.id + "-e" + seq);
      if (target) {
        target.scrollIntoView({ block: "center" });
        var row = document.getElementById(box.id + "-e" + seq);
        if (row) { row.classList.add("ck-flash"); setTimeout(function () { row.classList.remove("ck-flash"); }, 1500); }
      }
    }
    prev.addEventListener("click", function () { showPage(page - 1); });
    next.addEventListener("click", function () { showPage(page + 1); });
    showPage(0);
    sides.appendChild(left);
    // Right: the summary, invented items marked.
    var right = el("div", "ck-side ck-right");
    right.appendChild(el("h4", null, "Summary" + (d.compaction.summary_line ? " (log line " + d.compaction.summary_line + ")" : "")));
    var summary = el("pre", "ck-summary-text");
    if (d.summary === null) {
      summary.appendChild(el("span", "ck-note", d.compaction.opaque ? "the summary is opaque (encrypted by the provider)" : "no summary to show"));
    } else {
      var marks = [];
      d.invented.forEach(function (item) {
        allIndexes(d.summary, item.text).forEach(function (at) {
          marks.push([at, at + item.text.length, "ck-invented", item.kind + ", " + item.confidence + " confidence: " + item.why]);
        });
      });
      summary.appendChild(marked(d.summary, marks));
    }
    right.appendChild(summary);
    if (d.invented.length) {
      right.appendChild(el("h4", null, "Invented items (" + d.invented.length + ")"));
      var inv = el("ul", "ck-invented-list");
      d.invented.forEach(function (item) {
        var li = el("li", "ck-invented-item");
        li.appendChild(el("span", "ck-badge ck-invented", "invented"));
        li.appendChild(el("code", null, item.text));
        li.appendChild(el("span", "ck-muted", "  " + item.kind + ", line " + item.summary_line + " of the summary; " + item.confidence + " confidence: " + item.why));
        inv.appendChild(li);
      });
      right.appendChild(inv);
    }
    if (d.ghost_references.length) {
      right.appendChild(el("h4", null, "Ghost references (" + d.ghost_references.length + ")"));
      var gl = el("ul", "ck-invented-list");
      d.ghost_references.forEach(function (g) { gl.appendChild(el("li", null, g)); });
      right.appendChild(gl);
    }
    sides.appendChild(right);
    box.appendChild(sides);
  }
  function open(details) {
    if (!details.open || details.getAttribute("data-rendered")) return;
    details.setAttribute("data-rendered", "1");
    var box = details.querySelector(".ck-detail");
    var source = document.getElementById(details.getAttribute("data-detail"));
    if (!source) { box.appendChild(el("p", "ck-note", "no detail for this compaction in the report")); return; }
    var t0 = performance.now();
    renderDetail(box, JSON.parse(source.textContent));
    box.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
  }
  document.querySelectorAll("details.ck-compaction").forEach(function (details) {
    details.addEventListener("toggle", function () { open(details); });
    open(details);
  });
  document.documentElement.setAttribute("data-ck-ready", "1");
})();
