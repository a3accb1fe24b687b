"""Charts as inline SVG, drawn in Python: horizontal bars for rates (passed of total) and counts.

No script and no external asset: a chart is a string of SVG that the page embeds as is, so it
shows from `file://` and is the same bytes for the same numbers.
"""

from __future__ import annotations

from html import escape

from factory.review.model import Bar

WIDTH = 680
LABEL_W = 220
BAR_W = 300
ROW_H = 22
TOP = 30


def _frame(title: str, rows: int, body: list[str]) -> str:
    height = TOP + rows * ROW_H + 10
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}"><title>{escape(title)}</title>'
            f'<text x="0" y="18" class="chart-title">{escape(title)}</text>')
    return head + "".join(body) + "</svg>"


def _label(y: int, text: str) -> str:
    short = text if len(text) <= 32 else text[:31] + "…"
    return f'<text x="{LABEL_W - 8}" y="{y + 15}" text-anchor="end" class="chart-label">{escape(short)}</text>'


def percent(value: float) -> str:
    """A rate as the site writes it: one decimal, no trailing ".0" lost (97.5%, 100.0%)."""
    return f"{100 * value:.1f}%"


def rate_chart(title: str, bars: list[Bar]) -> str:
    """One bar per item: the share passed of its total, green over a red remainder."""
    body: list[str] = []
    if not bars:
        body.append(f'<text x="0" y="{TOP + 15}" class="chart-label">nothing recorded</text>')
    for i, bar in enumerate(bars):
        y = TOP + i * ROW_H
        total = bar.total or 0
        filled = round(BAR_W * bar.rate) if total else 0
        body.append(_label(y, bar.label))
        body.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{BAR_W}" height="{ROW_H - 6}" class="bar-rest"/>')
        if filled:
            body.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{filled}" height="{ROW_H - 6}" class="bar-pass"/>')
        text = f"{bar.value}/{total} ({percent(bar.rate)})" if total else "none"
        body.append(f'<text x="{LABEL_W + BAR_W + 8}" y="{y + 15}" class="chart-value">{escape(text)}</text>')
    return _frame(title, max(1, len(bars)), body)


def count_chart(title: str, bars: list[Bar]) -> str:
    """One bar per item, its length the count over the largest count."""
    body: list[str] = []
    top = max((b.value for b in bars), default=0)
    if not bars:
        body.append(f'<text x="0" y="{TOP + 15}" class="chart-label">nothing recorded</text>')
    for i, bar in enumerate(bars):
        y = TOP + i * ROW_H
        width = round(BAR_W * bar.value / top) if top else 0
        body.append(_label(y, bar.label))
        if width:
            body.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{width}" height="{ROW_H - 6}" class="bar-count"/>')
        body.append(f'<text x="{LABEL_W + width + 8}" y="{y + 15}" class="chart-value">{bar.value}</text>')
    return _frame(title, max(1, len(bars)), body)


__all__ = ["count_chart", "percent", "rate_chart"]
