"""``--format html``: one self-contained page per audit or sweep.

The sessions ranked by damage, each with its counts (compactions started / summarised /
failed, constraints kept), its findings, a chart of context tokens over the session with
the compactions marked (inline SVG), and per compaction a side-by-side view: the history
the summary replaced with its constraints highlighted (kept, reworded, lost), and the
summary with its invented items marked.

The page holds everything (CSS, script, SVG, data; a Content-Security-Policy forbids any
request) and stays usable on a 20,000-event session: each compaction's detail is
embedded as JSON and rendered only when opened (:mod:`ctxkeep.report.html_assets`).
Everything from a log is untrusted: markup is escaped here and the script only ever
sets ``textContent``. No timestamps: the same audit gives the same bytes.

Like every format, the page shows only what the audit result holds: the chart and each
compaction's detail come from the session's :class:`~ctxkeep.engine.SessionDetail`
(``audit(..., detail=True)``, which ``--format html`` asks for); no log is read again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from ctxkeep._version import __version__
from ctxkeep.base.findings import Finding, Severity
from ctxkeep.report.html_assets import PAGE_SIZE, css, script

if TYPE_CHECKING:
    from ctxkeep.engine import (
        AuditResult,
        CompactionCounts,
        CompactionDiff,
        SessionAudit,
        SessionDetail,
    )
    from ctxkeep.log.model import Compaction, Event

__all__ = ["EVENT_TEXT_LIMIT", "HISTORY_LIMIT", "embedded_json", "render"]

EVENT_TEXT_LIMIT = 4000
"""Characters of a replaced event's text embedded in the page; an event holding a
constraint is embedded whole, so its highlight is never cut off."""
HISTORY_LIMIT = 50_000
"""Replaced events embedded per compaction; the page says how many more there were."""
_CHART_BUCKETS = 300
_CHART_W, _CHART_H, _PAD_L, _PAD_B, _PAD_T = 720, 150, 56, 18, 10

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def embedded_json(value: Any) -> str:
    """``value`` as JSON that is safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no text from a log can
    close the script element or open a comment; JSON.parse reads them back unchanged.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _downsample(points: Sequence[tuple[int, int]], buckets: int) -> list[tuple[int, int]]:
    """At most four points per bucket (first, lowest, highest, last): the drops at
    compactions and the peaks survive any session length."""
    if len(points) <= buckets * 4:
        return list(points)
    lo, hi = points[0][0], points[-1][0]
    width = max(1, (hi - lo + 1) / buckets)
    groups: dict[int, list[tuple[int, int]]] = {}
    for p in points:
        groups.setdefault(int((p[0] - lo) / width), []).append(p)
    out: list[tuple[int, int]] = []
    for key in sorted(groups):
        g = groups[key]
        keep = {g[0], g[-1], min(g, key=lambda p: p[1]), max(g, key=lambda p: p[1])}
        out.extend(sorted(keep))
    return out


def _chart(detail: SessionDetail) -> str:
    """An inline SVG of context tokens over the session, compaction points marked."""
    series = _downsample(detail.token_series, _CHART_BUCKETS)
    first = detail.first_seq
    last = max(detail.last_seq, first + 1)
    peak = max((t for _, t in series), default=0) or 1
    plot_w, plot_h = _CHART_W - _PAD_L - 8, _CHART_H - _PAD_B - _PAD_T

    def x(seq: int) -> float:
        return round(_PAD_L + (seq - first) / (last - first) * plot_w, 1)

    def y(tokens: int) -> float:
        return round(_PAD_T + plot_h - tokens / peak * plot_h, 1)

    parts = [
        f'<svg class="ck-chart" role="img" width="{_CHART_W}" height="{_CHART_H}" '
        f'viewBox="0 0 {_CHART_W} {_CHART_H}" xmlns="http://www.w3.org/2000/svg">',
        "<title>context tokens over the session, compactions marked</title>",
        f'<line x1="{_PAD_L}" y1="{_PAD_T + plot_h}" x2="{_CHART_W - 8}" '
        f'y2="{_PAD_T + plot_h}" stroke="#b8bec6"/>',
        f'<text x="{_PAD_L - 4}" y="{_PAD_T + 9}" text-anchor="end">{peak:,}</text>',
        f'<text x="{_PAD_L - 4}" y="{_PAD_T + plot_h}" text-anchor="end">0</text>',
        f'<text x="{_PAD_L}" y="{_CHART_H - 4}">seq {first:,}</text>',
        f'<text x="{_CHART_W - 8}" y="{_CHART_H - 4}" text-anchor="end">seq {last:,}</text>',
    ]
    if series:
        path = " ".join(f"{x(s)},{y(t)}" for s, t in series)
        parts.append(
            f'<polyline class="ck-chart-line" data-points="{len(series)}" points="{path}"/>'
        )
    else:
        parts.append(
            f'<text class="ck-chart-empty" x="{_PAD_L + 8}" y="{_PAD_T + plot_h / 2}">'
            "the log gives no token figures</text>"
        )
    for c in (d.compaction for d in detail.compactions):
        cls = "ck-chart-compaction" + (" ck-failed" if c.status.value != "summarised" else "")
        cx = x(c.start_seq)
        label = (
            f"compaction {c.index} ({c.trigger or 'unknown trigger'}, {c.status.value}): "
            f"tokens {_tokens(c.tokens_before)} \u2192 {_tokens(c.tokens_after)}"
        )
        parts.append(
            f'<g class="{cls}" data-compaction="{c.index}"><title>{_e(label)}</title>'
            f'<line x1="{cx}" y1="{_PAD_T}" x2="{cx}" y2="{_PAD_T + plot_h}"/>'
            f'<text x="{cx + 2}" y="{_PAD_T + 9}">{c.index}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _tokens(n: int | None) -> str:
    return "?" if n is None else f"{n:,}"


def _who(event: Event) -> str:
    who = event.tool_name or event.role or ""
    if event.tokens is not None:
        who += f" {event.tokens:,} tokens" if who else f"{event.tokens:,} tokens"
    return who


def _history(events: Sequence[Event], whole: set[int]) -> tuple[list[list[Any]], int]:
    """Replaced events as ``[seq, line, kind, who, text, characters cut]`` rows."""
    rows: list[list[Any]] = []
    for event in events[:HISTORY_LIMIT]:
        text = event.text
        cut = 0
        if event.seq not in whole and len(text) > EVENT_TEXT_LIMIT:
            cut = len(text) - EVENT_TEXT_LIMIT
            text = text[:EVENT_TEXT_LIMIT]
        kind = event.kind.value + (f" ({event.injected})" if event.injected else "")
        rows.append([event.seq, event.line, kind, _who(event), text, cut])
    return rows, max(0, len(events) - HISTORY_LIMIT)


@dataclass(frozen=True, slots=True)
class _Detail:
    """One compaction's embedded data, and the figures shown before it is opened."""

    compaction: Compaction
    data: dict[str, Any]
    kept: int
    reworded: int
    lost: int
    invented: int


def _detail(d: CompactionDiff) -> _Detail:
    """The page's data for one compaction taken apart."""
    from ctxkeep.report.diff import diff_to_dict

    c = d.compaction
    data = diff_to_dict(d)
    history, omitted = _history(d.replaced, {r.seq for r in d.constraints})
    data["summary"] = None if c.opaque else c.summary
    data["history"] = history
    data["history_omitted"] = omitted
    fates = [r.survival.value for r in d.constraints]
    return _Detail(
        c,
        data,
        fates.count("kept"),
        fates.count("reworded"),
        fates.count("lost"),
        len(d.invented),
    )


def _counts_items(c: CompactionCounts, kept: int, total: int) -> str:
    items = [
        ("started", c.started),
        ("summarised", c.summarised),
        ("failed", c.failed),
    ]
    if c.noop:
        items.append(("noop", c.noop))
    lis = "".join(
        f'<li>compactions {name} <b class="ck-count" data-count="{name}">{n:,}</b></li>'
        for name, n in items
    )
    lis += (
        f'<li>constraints kept <b class="ck-count" data-count="constraints-kept">{kept:,}</b>'
        f' of <b class="ck-count" data-count="constraints-total">{total:,}</b></li>'
    )
    return f'<ul class="ck-counts">{lis}</ul>'


def _item(f: Finding, n: int) -> str:
    """One item of a finding, with its kind, confidence and why when the rule gives them."""
    if n >= len(f.items_detail):
        return f"<li>{_e(f.items[n])}</li>"
    d = f.items_detail[n]
    return (
        f"<li data-confidence='{d.confidence.value}'>{_e(d.item)} <span class='ck-muted'>"
        f"({_e(d.kind)}, {d.confidence.value}: {_e(d.why)})</span></li>"
    )


def _findings(findings: Iterable[Finding]) -> str:
    rows = []
    for f in findings:
        where = "" if f.compaction is None else str(f.compaction)
        lines = ", ".join(map(str, f.lines[:8])) + (", \u2026" if len(f.lines) > 8 else "")
        items = "".join(_item(f, n) for n in range(min(len(f.items), 50)))
        if len(f.items) > 50:
            items += f"<li class='ck-muted'>\u2026 and {len(f.items) - 50} more</li>"
        low = f.confidence.value == "low"
        note = " <span class='ck-muted'>(low confidence)</span>" if low else ""
        rows.append(
            f'<tr class="ck-finding" data-level="{f.level.value}" data-rule="{_e(f.rule_id)}">'
            f'<td class="ck-level-{f.level.value}">{f.level.value}</td>'
            f"<td>{_e(f.rule_id)} {_e(f.rule)}</td><td class='ck-num'>{where}</td>"
            f"<td>{_e(lines)}</td><td>{_e(f.message)}{note}"
            + (f"<ul>{items}</ul>" if items else "")
            + "</td></tr>"
        )
    if not rows:
        return "<p class='ck-muted'>no findings</p>"
    return (
        f"<details class='ck-findings'><summary>findings ({len(rows)})</summary><table>"
        "<tr><th>level</th><th>rule</th><th>compaction</th><th>lines</th><th>what</th></tr>"
        + "".join(rows)
        + "</table></details>"
    )


def _compaction(sid: str, detail: _Detail) -> str:
    c = detail.compaction
    data_id = f"{sid}-c{c.index}-data"
    head = (
        f"compaction {c.index} \u00b7 {_e(c.trigger or 'unknown trigger')} \u00b7 "
        f"<span class='ck-status'>{_e(c.status.value)}</span> \u00b7 tokens "
        f"{_tokens(c.tokens_before)} \u2192 {_tokens(c.tokens_after)} \u00b7 constraints "
        f"<span class='ck-kept-n'>{detail.kept} kept</span>, "
        f"<span class='ck-reworded-n'>{detail.reworded} reworded</span>, "
        f"<span class='ck-lost-n'>{detail.lost} lost</span> \u00b7 "
        f"<span class='ck-invented-n'>{detail.invented} invented</span>"
    )
    script = f'<script type="application/json" id="{data_id}">{embedded_json(detail.data)}</script>'
    return (
        f'<details class="ck-compaction" id="{sid}-c{c.index}" data-index="{c.index}" '
        f'data-status="{_e(c.status.value)}" data-detail="{data_id}"><summary>{head}</summary>'
        f'<div class="ck-detail" id="{sid}-c{c.index}-detail"></div></details>{script}'
    )


def _session(rank: int, audited: SessionAudit) -> str:
    sid = f"s{rank}"
    detail = audited.detail
    parts = [
        f'<section class="ck-session" id="{sid}" data-rank="{rank}" '
        f'data-path="{_e(audited.path)}">',
        f"<h2>{rank}. {_e(audited.path)}</h2>",
        f"<p class='ck-muted'>{_e(audited.format)} \u00b7 {audited.events:,} events \u00b7 "
        f"findings: <span class='ck-level-error'>{audited.count(Severity.ERROR)} error</span>, "
        f"<span class='ck-level-warn'>{audited.count(Severity.WARN)} warn</span>, "
        f"{audited.count(Severity.INFO)} info</p>",
        _counts_items(audited.compactions, audited.constraints_kept, audited.constraints_total),
    ]
    if detail is None:
        parts.append(
            "<p class='ck-note'>the audit holds no compaction detail (audit with "
            "detail=True): no chart and no compaction detail</p>"
        )
    else:
        parts.append(_chart(detail))
    parts.append(_findings(audited.findings))
    if audited.hooks:
        from ctxkeep.report.text import hook_line

        lis = "".join(
            f"<li class='ck-hook' data-compaction='{h.compaction}'>{_e(hook_line(h))}</li>"
            for h in audited.hooks
        )
        parts.append(f"<p>ctxkeep hooks (restore ledger):</p><ul class='ck-hooks'>{lis}</ul>")
    if detail is not None:
        parts.extend(_compaction(sid, _detail(d)) for d in detail.compactions)
    parts.append("</section>")
    return "\n".join(parts)


def _ranking(sessions: Sequence[SessionAudit]) -> str:
    rows = "".join(
        f'<tr class="ck-rank" data-rank="{i}"><td class="ck-num">{i}</td>'
        f'<td><a href="#s{i}">{_e(s.path)}</a></td><td>{_e(s.format)}</td>'
        f"<td class='ck-num'>{s.events:,}</td><td class='ck-num'>{s.compactions.started}</td>"
        f"<td class='ck-num'>{s.compactions.summarised}</td>"
        f"<td class='ck-num'>{s.compactions.failed}</td>"
        f"<td class='ck-num'>{s.constraints_kept}/{s.constraints_total}</td>"
        f"<td class='ck-num ck-level-error'>{s.count(Severity.ERROR)}</td>"
        f"<td class='ck-num ck-level-warn'>{s.count(Severity.WARN)}</td>"
        f"<td class='ck-num'>{s.count(Severity.INFO)}</td></tr>"
        for i, s in enumerate(sessions, start=1)
    )
    return (
        "<table class='ck-ranking'><tr><th class='ck-num'>#</th><th>session (worst first)</th>"
        "<th>format</th><th class='ck-num'>events</th><th class='ck-num'>started</th>"
        "<th class='ck-num'>summarised</th><th class='ck-num'>failed</th>"
        "<th class='ck-num'>constraints kept</th><th class='ck-num'>errors</th>"
        "<th class='ck-num'>warnings</th><th class='ck-num'>info</th></tr>" + rows + "</table>"
    )


def render(result: AuditResult) -> str:
    """The whole page for ``result``."""
    sessions = sorted(result.sessions, key=lambda s: s.damage_key())
    totals = result.compactions
    kept = sum(s.constraints_kept for s in sessions)
    total = sum(s.constraints_total for s in sessions)
    problems = "".join(
        f"<li>{_e(p.path)}" + (f":{p.line}" if p.line else "") + f": {_e(p.reason)}</li>"
        for p in result.problems
    )
    n = len(sessions)
    body = [
        "<header class='ck-head'><h1>ctxkeep compaction audit</h1>"
        f"<div>{n} session{'s' if n != 1 else ''} \u00b7 ctxkeep {_e(__version__)}</div></header>",
        "<main>",
        f"<section class='ck-totals'><h2>All sessions</h2>{_counts_items(totals, kept, total)}",
        _ranking(sessions),
        "</section>",
    ]
    if problems:
        body.append(
            f"<section class='ck-problems'><h2>Could not read</h2><ul>{problems}</ul></section>"
        )
    body.extend(_session(rank, s) for rank, s in enumerate(sessions, start=1))
    body.append("</main>")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>ctxkeep compaction audit</title>"
        f"<style>{css()}</style></head><body data-page-size='{PAGE_SIZE}'>\n"
        + "\n".join(body)
        + f"\n<script>{script()}</script>\n</body></html>\n"
    )
