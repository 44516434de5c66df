"""Charts of kwire's benchmark comparisons (issue 34 item 4), drawn by matplotlib (Debian's
python3-matplotlib) into SVG files that keep their text as text (searchable, selectable) and
carry no date, so the same data always give the same bytes.

  ab_chart(base, new, out, ...)   before/after: per benchmark, BASE's and NEW's repetitions
                                  relative to BASE's median (the dot: the median; the bar:
                                  the repetitions' min to max, their noise band); the
                                  shaded band is the regression threshold. Used by
                                  `bench/compare chart` and `bench/compare gate --chart`.
  peer_chart(peers, out, ...)     the peer table (bench/peers/peer_table.py's peers.json) as
                                  bars: per operation, per frame, each peer's median time
                                  over kwire's (x > 1: kwire is faster; whiskers: the peer's
                                  rounds), on a log scale.

Both return what they drew (rows of plain data), which the tests check beside the SVG.
"""

import re
import statistics

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _pyplot():
    """matplotlib's pyplot on the non-interactive SVG backend, set for stable output."""
    try:
        import matplotlib
    except ImportError as e:
        raise RuntimeError("the charts need matplotlib: apt-get install python3-matplotlib "
                           f"({e})") from e
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update({
        "svg.fonttype": "none",      # text stays <text>, not glyph outlines
        "svg.hashsalt": "kwire",     # stable element ids
        "font.size": 9,
        "font.family": "DejaVu Sans",
    })
    return plt


def _save(fig, out):
    # No date (metadata Date None): the same data give the same file.
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})


def _repetitions(data, field, keep):
    """Benchmark name -> its repetitions' times in ns (Google Benchmark JSON; aggregates,
    errors and names `keep` rejects left out), in file order."""
    times = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        if keep is not None and not keep.search(name):
            continue
        times.setdefault(name, []).append(b[field] * UNIT_NS[b.get("time_unit", "ns")])
    return times


def ab_rows(base, new, field="cpu_time", threshold=0.05, filt=""):
    """Per benchmark in both files (BASE's order): its repetitions relative to BASE's
    median, NEW's median change and a verdict: 'slower' or 'faster' past the threshold,
    else 'same'. No statistics beyond that (the gate adds the U test)."""
    keep = re.compile(filt) if filt else None
    a = _repetitions(base, field, keep)
    b = _repetitions(new, field, keep)
    rows = []
    for name, ta in a.items():
        tb = b.get(name)
        if not tb:
            continue
        ref = statistics.median(ta)
        if ref <= 0:
            continue
        ra = [t / ref for t in ta]
        rb = [t / ref for t in tb]
        change = statistics.median(rb) - 1.0
        verdict = "slower" if change > threshold else "faster" if change < -threshold else "same"
        rows.append({"name": name, "base": ra, "new": rb, "change": change,
                     "verdict": verdict, "base_ns": ref})
    return rows


def ab_chart(base, new, out, field="cpu_time", threshold=0.05, filt="",
             labels=("BASE", "NEW")):
    """Writes the before/after chart of two Google Benchmark JSON documents (dicts) to
    `out` (SVG). Returns ab_rows(...). Raises ValueError when no benchmark is in both."""
    rows = ab_rows(base, new, field, threshold, filt)
    if not rows:
        raise ValueError("no benchmark in both files")
    plt = _pyplot()
    height = 1.2 + 0.32 * len(rows)
    fig, ax = plt.subplots(figsize=(9, height))
    colours = {"slower": "#c0392b", "faster": "#1e8449", "same": "#2e86c1"}
    lo = min(min(r["base"] + r["new"]) for r in rows)
    hi = max(max(r["base"] + r["new"]) for r in rows)
    ax.axvspan(1 - threshold, 1 + threshold, color="#eeeeee", zorder=0,
               label=f"±{threshold:.0%} (threshold)")
    ax.axvline(1.0, color="#888888", linewidth=0.8, zorder=1)
    for i, r in enumerate(rows):
        y = len(rows) - 1 - i
        for values, dy, colour, marker, gid in (
                (r["base"], 0.15, "#7f7f7f", "o", "base"),
                (r["new"], -0.15, colours[r["verdict"]], "D", "new")):
            med = statistics.median(values)
            ax.plot([min(values), max(values)], [y + dy, y + dy], color=colour,
                    linewidth=2.2, alpha=0.45, solid_capstyle="butt", zorder=2)
            dot = ax.plot([med], [y + dy], marker=marker, color=colour, markersize=5,
                          linestyle="none", zorder=3)[0]
            dot.set_gid(f"{gid}-{i}")
        ax.annotate(f"{r['change']:+.1%}", xy=(1, y), xycoords=("axes fraction", "data"),
                    xytext=(4, 0), textcoords="offset points", va="center",
                    color=colours[r["verdict"]])
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["name"] for r in reversed(rows)])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    pad = max(0.02, (hi - lo) * 0.05)
    ax.set_xlim(min(lo, 1 - threshold) - pad, max(hi, 1 + threshold) + pad)
    what = "CPU time" if field == "cpu_time" else "wall time"
    ax.set_xlabel(f"{what} per iteration relative to the median of {labels[0]} "
                  "(lower is faster); bar: min to max of the repetitions")
    ax.set_title(f"{labels[1]} against {labels[0]}: "
                 f"{sum(r['verdict'] == 'slower' for r in rows)} slower, "
                 f"{sum(r['verdict'] == 'faster' for r in rows)} faster, "
                 f"{sum(r['verdict'] == 'same' for r in rows)} within ±{threshold:.0%}",
                 loc="left")
    ax.plot([], [], marker="o", color="#7f7f7f", linestyle="none", label=labels[0])
    ax.plot([], [], marker="D", color="#2e86c1", linestyle="none", label=labels[1])
    ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    _save(fig, out)
    plt.close(fig)
    return rows


OP_ORDER = ("decode", "decode, records validated", "decode reused",
            "decode reused, records validated", "encode", "encode reused")


def peer_rows(peers, field="wall"):
    """From peer_table.py's peers.json (a dict): per operation (OP_ORDER), per frame, per
    peer column, the ratio peer time / kwire time (median of the rounds) and the ratios of
    the peer's fastest and slowest round. Frames a peer does not handle have no entry."""
    by_op = {}
    for r in peers["rows"]:
        k = r.get("kwire")
        if not k or not k.get(field + "_ns"):
            continue
        kn = k[field + "_ns"]
        bars = {}
        for col, p in r["peers"].items():
            v = p.get(field + "_ns")
            if v is None:
                continue
            rounds = p.get(field + "_rounds") or [v]
            bars[col] = {"ratio": v / kn, "min": min(rounds) / kn, "max": max(rounds) / kn}
        by_op.setdefault(r["op"], []).append({"frame": r["frame"], "bars": bars})
    ops = [o for o in OP_ORDER if o in by_op] + sorted(o for o in by_op if o not in OP_ORDER)
    return [(op, by_op[op]) for op in ops]


def peer_chart(peers, out, field="wall"):
    """Writes the peer bars of a peers.json document (dict) to `out` (SVG): a panel per
    operation (three to a row, frames aligned across panels), a group of bars per frame,
    one bar per peer that has a time for it. Returns peer_rows(...)."""
    data = peer_rows(peers, field)
    data = [(op, frs) for op, frs in data if any(fr["bars"] for fr in frs)]
    if not data:
        raise ValueError("no row with both a kwire and a peer time")
    plt = _pyplot()
    columns = peers.get("columns", {})
    order = [c for c in columns if any(c in fr["bars"] for _, frs in data for fr in frs)]
    order += sorted({c for _, frs in data for fr in frs for c in fr["bars"]} - set(order))
    frames = []
    for _, frs in data:
        for fr in frs:
            if fr["bars"] and fr["frame"] not in frames:
                frames.append(fr["frame"])
    cmap = plt.get_cmap("tab10")
    colour = {c: cmap(i % 10) for i, c in enumerate(order)}
    ncols = min(3, len(data))
    nrows = (len(data) + ncols - 1) // ncols
    row_in = 0.16 + 0.07 * len(order)          # inches per frame
    panel_h = 0.9 + row_in * len(frames)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols + 2.6, panel_h * nrows + 0.9),
                             squeeze=False, sharey=True)
    ratios = [b[k] for _, frs in data for fr in frs for b in fr["bars"].values()
              for k in ("min", "max")]
    lo, hi = min(ratios + [0.5]), max(ratios + [2.0])
    slot = 0.8 / len(order)
    ypos = {f: len(frames) - 1 - i for i, f in enumerate(frames)}
    for k, (op, frs) in enumerate(data):
        ax = axes[k // ncols, k % ncols]
        for fr in frs:
            for ci, col in enumerate(order):
                b = fr["bars"].get(col)
                if b is None:
                    continue
                y = ypos[fr["frame"]] + 0.4 - slot * (ci + 0.5)
                bar = ax.barh(y, b["ratio"], height=slot * 0.85, color=colour[col],
                              xerr=[[b["ratio"] - b["min"]], [b["max"] - b["ratio"]]],
                              error_kw={"elinewidth": 0.6, "ecolor": "#444444"})
                bar.patches[0].set_gid(f"bar-{op}-{fr['frame']}-{col}".replace(" ", "_")
                                       .replace(",", "").replace("/", "_"))
        ax.axvline(1.0, color="#000000", linewidth=1.0)
        ax.set_xscale("log")
        ax.set_xlim(lo / 1.2, hi * 1.2)
        ax.set_title(op, loc="left", fontsize=9, fontweight="bold")
        ax.grid(axis="x", which="both", color="#dddddd", linewidth=0.5)
        for y in range(len(frames) - 1):
            ax.axhline(y + 0.5, color="#eeeeee", linewidth=0.5)
    for k in range(len(data), nrows * ncols):
        axes[k // ncols, k % ncols].set_visible(False)
    axes[0, 0].set_yticks(range(len(frames)))
    axes[0, 0].set_yticklabels(list(reversed(frames)), fontsize=8)
    axes[0, 0].set_ylim(-0.6, len(frames) - 0.4)
    what = "wall time" if field == "wall" else "CPU time"
    fig.supxlabel(f"peer {what} / kwire {what} per operation, log scale (median of the "
                  "rounds; > 1: kwire is faster; whiskers: the peer's fastest and slowest "
                  "round)", fontsize=9)
    meta = peers.get("meta", {})
    title = f"kwire against its peers, {what}"
    if meta.get("rounds"):
        title += f" ({meta['rounds']} rounds)"
    fig.suptitle(title, x=0.01, ha="left", fontsize=11)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[c]) for c in order]
    fig.legend(handles, [columns.get(c, c) for c in order], loc="upper right",
               ncol=min(6, len(order)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / (panel_h * nrows + 0.9)))
    _save(fig, out)
    plt.close(fig)
    return data
