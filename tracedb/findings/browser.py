"""Headless Chromium for ``tracedb report``: the browser test and ``--png`` (each chart
screenshotted from a one-chart page)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .. import lazy
from .report import Report

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def find_browser() -> str | None:
    """Chromium (Debian's ``chromium`` package: /usr/bin/chromium), or $TRACEDB_CHROMIUM."""
    for cand in (os.environ.get("TRACEDB_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if cand and Path(cand).exists():
            return cand
    return None


def run_browser(url: str, *args: str, browser: str | None = None, timeout: float = 120) -> str:
    """Run headless Chromium on ``url`` with extra flags (--dump-dom, --screenshot=...); its stdout."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError("no Chromium found (apt-get install chromium, or set $TRACEDB_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="tracedb-chromium-") as profile:
        out = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000",
                              *args, url], capture_output=True, text=True, timeout=timeout, check=True)
    return out.stdout


PNG_WIDTH, PNG_HEIGHT = 1000, 500


def write_pngs(report: Report, out_dir: str | Path, *, browser: str | None = None) -> list[Path]:
    """Each drawn chart as ``<out_dir>/<key>.png`` (PNG_WIDTH × PNG_HEIGHT), screenshotted by
    headless Chromium from a one-chart page; returns the files written."""
    pio, get_plotlyjs = lazy.pio, lazy.plotly_offline.get_plotlyjs
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="tracedb-png-") as tmp:
        (Path(tmp) / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
        for c in report.drawn:
            fig = c.figure.to_dict()
            fig["layout"].update(width=PNG_WIDTH, height=PNG_HEIGHT, template=pio.templates["plotly_white"],
                                 title={"text": f"{c.title} (view {c.view})", "font": {"size": 14}},
                                 margin=dict(l=70, r=30, t=50, b=60))
            page = Path(tmp) / f"{c.key}.html"
            page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'>"
                            "<script src='plotly.min.js'></script><style>body{margin:0}</style></head><body>"
                            + pio.to_html(fig, full_html=False, include_plotlyjs=False,
                                          config={"staticPlot": True})
                            + "</body></html>", encoding="utf-8")
            target = out_dir / f"{c.key}.png"
            run_browser(page.as_uri(), f"--screenshot={target}", f"--window-size={PNG_WIDTH},{PNG_HEIGHT}",
                        browser=browser)
            written.append(target)
    return written
