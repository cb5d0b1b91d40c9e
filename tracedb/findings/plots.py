"""The report's figures: each function turns the rows a chart's SQL returned into a plotly figure
(``draw(chart, rows, scope, con)``), or returns None after setting ``chart.note`` when the rows
cannot make the chart (a rank × step heat map needs at least 2 ranks and 2 steps). Python only
shapes the few hundred rows a chart shows; the views did the work."""
from __future__ import annotations

from .. import lazy
from .finding import threshold

IDLE_COLORS = {"host_wait": "#e45756", "kernel_wait": "#f2b701", "other": "#4c78a8"}
IDLE_NAMES = {"host_wait": "host wait (launch after the stream went idle)",
              "kernel_wait": "kernel wait (back-to-back launches)", "other": "other (streams, events)"}


def ms(ns) -> float | None:
    return None if ns is None else ns / 1e6


def step_stack(chart, rows, scope, con):
    go = lazy.go
    x = [f"rank {r['rank']} · step {'—' if r['step'] is None else r['step']}" for r in rows]
    fig = go.Figure()
    for col, name, color in (("computing_ns", "computing", "#4c78a8"),
                             ("communication_not_overlapped_ns", "exposed (uncovered) communication", "#e45756"),
                             ("free_ns", "free", "#bab0ac")):
        fig.add_bar(x=x, y=[ms(r[col]) for r in rows], name=name, marker_color=color)
    fig.update_layout(barmode="stack", yaxis_title="ms", xaxis_title="rank · step")
    return fig


def rank_step_heatmap(value: str, colorbar: str, scale: float = 1e-6, colorscale: str = "YlOrRd"):
    """A rank × step heat map of ``value`` (× ``scale``), drawn only from 2 ranks × 2 steps: with
    one rank or one step the bar charts show the same numbers."""
    def draw(chart, rows, scope, con):
        go = lazy.go
        ranks = sorted({r["rank"] for r in rows})
        steps = sorted({r["step"] for r in rows})
        if len(ranks) < 2 or len(steps) < 2:
            chart.note = (f"{len(ranks)} rank(s) × {len(steps)} step(s): a heat map needs at least 2 × 2 "
                          f"(the bars show these numbers)")
            return None
        cell = {(r["rank"], r["step"]): None if r[value] is None else r[value] * scale for r in rows}
        z = [[cell.get((rk, st)) for st in steps] for rk in ranks]
        fig = go.Figure(go.Heatmap(z=z, x=[str(s) for s in steps], y=[str(r) for r in ranks],
                                   colorscale=colorscale, colorbar_title=colorbar))
        fig.update_layout(xaxis_title="step", yaxis_title="rank", xaxis_type="category", yaxis_type="category")
        return fig
    return draw


def paired_bars(label: str, base: str, comp: str, xaxis_title: str):
    """Horizontal baseline vs comparison bars (ms), the first row at the top: op_diff, overall."""
    def draw(chart, rows, scope, con):
        go = lazy.go
        rows = rows[::-1]                 # plotly draws the last y category at the top
        y = [r[label] for r in rows]
        fig = go.Figure()
        fig.add_bar(y=y, x=[ms(r[base]) for r in rows], name=f"baseline {scope.baseline}",
                    orientation="h", marker_color="#72b7b2")
        fig.add_bar(y=y, x=[ms(r[comp]) for r in rows], name=f"comparison {scope.comparison}",
                    orientation="h", marker_color="#f58518")
        fig.update_layout(barmode="group", xaxis_title=xaxis_title, height=max(400, 28 * len(rows)),
                          yaxis_automargin=True)
        return fig
    return draw


def comm_matrix(chart, rows, scope, con):
    """Bandwidth per src → dst link. A rank's link to itself (an on-chip copy, ~30× any real link)
    is drawn in grey outside the colour scale, its value on hover, so the real links keep their
    own colour range."""
    go = lazy.go
    srcs = sorted({r["src_rank"] for r in rows})
    dsts = sorted({r["dst_rank"] for r in rows})
    cell = {(r["src_rank"], r["dst_rank"]): r for r in rows}

    def grid(keep):
        return [[(cell[(s, d)]["bandwidth_gbps"] if (s, d) in cell and keep(s, d) else None) for d in dsts]
                for s in srcs]
    text = [[("" if (s, d) not in cell else f"{cell[(s, d)]['size_bytes'] / 2 ** 20:,.1f} MiB") for d in dsts]
            for s in srcs]
    x, y = [str(d) for d in dsts], [str(s) for s in srcs]
    real = [r["bandwidth_gbps"] for r in rows if r["src_rank"] != r["dst_rank"] and r["bandwidth_gbps"] is not None]
    fig = go.Figure()
    fig.add_heatmap(z=grid(lambda s, d: s != d), x=x, y=y, text=text, hoverongaps=False, name="links",
                    hovertemplate="src %{y} → dst %{x}<br>%{z:.2f} GB/s<br>%{text}<extra></extra>",
                    colorscale="Viridis", colorbar_title="GB/s",
                    **({"zmin": min(real), "zmax": max(real)} if real else {}))
    if any(s == d for s, d in cell):
        fig.add_heatmap(z=grid(lambda s, d: s == d), x=x, y=y, text=text, hoverongaps=False, showscale=False,
                        name="self-links", colorscale=[[0, "#d9d9d9"], [1, "#d9d9d9"]],
                        texttemplate="itself<br>%{z:.0f} GB/s", textfont={"color": "#555"},
                        hovertemplate="rank %{y} → itself (on-chip copy, outside the colour scale)<br>"
                                      "%{z:.2f} GB/s<br>%{text}<extra></extra>")
    fig.update_layout(xaxis_title="destination rank (group-local)", yaxis_title="source rank (group-local)",
                      xaxis_type="category", yaxis_type="category")
    return fig


def memory(chart, rows, scope, con):
    go = lazy.go
    series: dict[tuple, list] = {}
    for r in rows:
        series.setdefault((r["rank"], r["component"], r["device"]), []).append(r)
    fig = go.Figure()
    for (rank, comp, dev), pts in series.items():
        fig.add_scatter(x=[p["t_ns"] / 1e6 for p in pts], y=[p["reserved_bytes"] / 2 ** 30 for p in pts],
                        mode="lines", name=f"rank {rank} {comp} {dev or ''}".strip())
    peak = con.execute("SELECT rank, component, peak_reserved_bytes, capacity_bytes FROM memory_peak "
                       "WHERE run_name = ? AND peak_reserved_bytes IS NOT NULL "
                       "ORDER BY peak_reserved_bytes DESC, rank, component LIMIT 1", [scope.run]).fetchone()
    if peak:
        rank, comp, reserved, capacity = peak
        share = ("" if capacity is None else
                 f", {100 * reserved / capacity:.1f} % of the device's {capacity / 2 ** 30:.2f} GiB")
        fig.add_hline(y=reserved / 2 ** 30, line_dash="dot",
                      annotation_text=f"memory_peak: {reserved / 2 ** 30:.2f} GiB (rank {rank} {comp}){share}")
    fig.update_layout(xaxis_title="ms since the run's first memory sample", yaxis_title="reserved, GiB")
    return fig


def free_timeline(chart, rows, scope, con):
    go = lazy.go
    chart.title += f" (step {rows[0]['step']})"
    fig = go.Figure()
    fig.add_bar(y=[f"rank {r['rank']}" for r in rows], x=[r["dur_ns"] / 1e6 for r in rows],
                base=[r["offset_ns"] / 1e6 for r in rows], orientation="h", marker_color="#8c8c8c", marker_line_width=0,
                customdata=[[r["kernel_before"] or "", r["kernel_after"] or ""] for r in rows],
                hovertemplate="%{x:.3f} ms free at +%{base:.3f} ms<br>after %{customdata[0]}"
                              "<br>before %{customdata[1]}<extra></extra>", name="free")
    fig.update_layout(xaxis_title="ms since the rank's step start", yaxis_type="category", showlegend=False)
    return fig


def input_bound(chart, rows, scope, con):
    """Data-loading share of each step per rank; red where the step is input-bound, the
    DataLoader threshold as a line."""
    go = lazy.go
    fig = go.Figure()
    for rank in sorted({r["rank"] for r in rows}):
        pts = [r for r in rows if r["rank"] == rank]
        fig.add_bar(x=[str(r["step"]) for r in pts], y=[100 * (r["data_loading_ratio"] or 0) for r in pts],
                    name=f"rank {rank}", marker_color=["#e45756" if r["is_input_bound"] else "#72b7b2" for r in pts],
                    customdata=[[ms(r["data_loading_ns"]), ms(r["step_ns"]), r["data_loading_source"]] for r in pts],
                    hovertemplate="step %{x}: %{y:.1f} % of the step<br>%{customdata[0]:.2f} of %{customdata[1]:.2f} "
                                  "ms (%{customdata[2]})<extra></extra>")
    limit = threshold(con, "input_bound.dataloader_ratio")
    if limit and any(r["data_loading_source"] == "dataloader" for r in rows):
        fig.add_hline(y=100 * limit.value, line_dash="dot",
                      annotation_text=f"input-bound above {100 * limit.value:g} % ({limit.reference})")
    fig.update_layout(barmode="group", xaxis_title="step", yaxis_title="data loading, % of the step",
                      xaxis_type="category", showlegend=len(fig.data) > 1)
    return fig


def idle_cause(chart, rows, scope, con):
    """Idle time of each stream over the capture, stacked by cause (HTA's categories)."""
    go = lazy.go
    streams = sorted({(r["rank"], r["stream_id"]) for r in rows}, key=lambda k: (k[0], str(k[1])))
    y = [f"rank {rk} · stream {st}" for rk, st in streams][::-1]
    fig = go.Figure()
    for cause in ("host_wait", "kernel_wait", "other"):
        val = {(r["rank"], r["stream_id"]): r["idle_ns"] for r in rows if r["cause"] == cause}
        if val:
            fig.add_bar(y=y, x=[ms(val.get(k)) for k in streams][::-1], name=IDLE_NAMES[cause], orientation="h",
                        marker_color=IDLE_COLORS[cause])
    fig.update_layout(barmode="stack", xaxis_title="idle time over the capture, ms", yaxis_automargin=True,
                      height=max(300, 40 * len(streams) + 150))
    return fig


def labelled_bars(label: str, series: tuple[tuple[str, str, str], ...], xaxis_title: str, stack: bool = False):
    """Horizontal bars per row (the first on top): one trace per (column, name, colour), in ms."""
    def draw(chart, rows, scope, con):
        go = lazy.go
        rows = rows[::-1]
        y = [r[label] for r in rows]
        fig = go.Figure()
        for col, name, color in series:
            fig.add_bar(y=y, x=[ms(r[col]) for r in rows], name=name, orientation="h", marker_color=color)
        fig.update_layout(barmode="stack" if stack else "group", xaxis_title=xaxis_title, yaxis_automargin=True,
                          height=max(350, 30 * len(rows) + 150))
        return fig
    return draw


def shape_efficiency(chart, rows, scope, con):
    """Device time of the largest matrix-op groups, red where the shape misses the matrix unit's
    multiple."""
    go = lazy.go
    rows = rows[::-1]
    colors = {True: "#54a24b", False: "#e45756", None: "#bab0ac"}
    fig = go.Figure()
    fig.add_bar(y=[f"{r['name']} {r['operand_shapes'] or ''} {r['precision'] or ''}".strip() for r in rows],
                x=[ms(r["device_ns"]) for r in rows], orientation="h",
                marker_color=[colors.get(r["aligned"], "#bab0ac") for r in rows],
                customdata=[[r["misaligned_dims"] or "none", r["required_multiple"]] for r in rows],
                hovertemplate="%{x:.3f} ms<br>misaligned: %{customdata[0]} (multiple of %{customdata[1]})"
                              "<extra></extra>")
    fig.update_layout(xaxis_title="device time, ms (red: misaligned, green: aligned, grey: no rule)",
                      yaxis_automargin=True, height=max(350, 30 * len(rows) + 150), showlegend=False)
    return fig
