// The plots view (#/plots on the viewer page, and the static report): charts drawn with uPlot from
// GET /api/plots (src/viewer/plots/plot_data.ts). A classic script like steps.ts: it declares one
// global function, drawPlots, and takes the DOM helper of the page that calls it, so agent and class
// names still enter the page only as text. Every chart's element carries the arrays it was given
// (data-series) and the names of its series (data-labels): what a test or a reader can check the
// picture against.
"use strict";

/** What drawPlots needs from the page that calls it. */
interface PlotUi {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, children?: Child | Child[]): HTMLElementTagNameMap[K];
  fmt(value: unknown): string;
}

// A global for the scripts after it (classic scripts share one scope).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function drawPlots(container: HTMLElement, data: PlotData, ui: PlotUi): void {
  const el = ui.el;
  const PALETTE = ["#2f5bd3", "#c77700", "#1f7a3d", "#b3261e", "#7b4bc4", "#00838f", "#8a6d3b", "#d81b60"];
  const color = (i: number) => PALETTE[i % PALETTE.length]!;
  const WIDTH = 560;
  const HEIGHT = 220;
  const hasUplot = typeof uPlot === "function";

  /** Appends one chart: its heading, notes, and the canvas (or a note when there is nothing to draw). */
  function chart(
    id: string,
    title: string,
    notes: Array<Node | string>,
    xLabel: string,
    yLabel: string,
    x: number[],
    series: Array<{ label: string; values: Array<number | null>; color: string; dash?: boolean; stepped?: boolean }>,
    options?: { wholeX?: boolean; legend?: boolean },
  ): void {
    const target = el("div", {
      class: "chart",
      "data-plot": id,
      "data-series": JSON.stringify(
        [x].concat(
          series.map(function (s) {
            return s.values as number[];
          }),
        ),
      ),
      "data-labels": JSON.stringify(
        series.map(function (s) {
          return s.label;
        }),
      ),
    });
    const section = el("section", { class: "plot", id: "plot-" + id }, [el("h3", { text: title }), notes.length ? el("div", { class: "plot-notes muted" }, notes) : null, target]);
    container.appendChild(section);
    if (!series.length || !x.length) {
      target.appendChild(el("p", { class: "muted", text: "Nothing to plot." }));
      return;
    }
    if (!hasUplot) {
      target.appendChild(el("p", { class: "muted", text: "uPlot did not load; the numbers are in this element's data-series." }));
      return;
    }
    const stepped = uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
    new uPlot(
      {
        width: WIDTH,
        height: HEIGHT,
        scales: { x: { time: false } },
        series: ([{ label: xLabel }] as UplotSeries[]).concat(
          series.map(function (s) {
            return {
              label: s.label,
              stroke: s.color,
              width: s.dash ? 1 : 2,
              dash: s.dash ? [4, 4] : undefined,
              fill: s.stepped ? s.color + "22" : undefined,
              paths: s.stepped ? stepped : undefined,
              points: { show: !s.stepped && !s.dash },
              value: function (_self: unknown, v: number | null) {
                return v === null || v === undefined ? "–" : ui.fmt(v);
              },
            } as UplotSeries;
          }) as UplotSeries[],
        ),
        axes: [
          {
            label: xLabel,
            values: options && options.wholeX
              ? function (_self: unknown, ticks: number[]) {
                  return ticks.map(function (t) {
                    return Number.isInteger(t) ? String(t) : "";
                  });
                }
              : undefined,
          },
          { label: yLabel },
        ],
        legend: { show: !options || options.legend !== false },
      },
      [x as Array<number | null>].concat(
        series.map(function (s) {
          return s.values;
        }),
      ),
      target,
    );
  }

  /** A stepped histogram per agent over shared edges: x is the edges, y repeats each bin's count up to its right edge. */
  function histogramChart(id: string, title: string, notes: Array<Node | string>, xLabel: string, h: PlotHistogram): void {
    chart(
      id,
      title,
      notes,
      xLabel,
      "rollouts",
      h.edges,
      h.agents.map(function (a, i) {
        return { label: a.agent + " (n=" + a.n + ", mean " + ui.fmt(a.mean) + ")", values: a.counts.concat([a.counts[a.counts.length - 1] ?? 0]), color: color(i), stepped: true };
      }),
    );
  }

  histogramChart(
    "rewards",
    "reward distribution per agent",
    ["One axis for every agent (at least 0 to 1), so an all-1 agent and an all-0 agent look different. Success lines only."],
    "reward",
    data.rewards,
  );

  const curves = data.pass_at_k.agents;
  const ks: number[] = [];
  curves.forEach(function (c) {
    c.k.forEach(function (k) {
      if (ks.indexOf(k) < 0) ks.push(k);
    });
  });
  ks.sort(function (a, b) {
    return a - b;
  });
  const at = function (c: PlotPassCurve, values: Array<number | null> | null): Array<number | null> {
    return ks.map(function (k) {
      const i = c.k.indexOf(k);
      return i < 0 || !values ? null : (values[i] ?? null);
    });
  };
  const passSeries: Array<{ label: string; values: Array<number | null>; color: string; dash?: boolean }> = [];
  curves.forEach(function (c, i) {
    passSeries.push({ label: c.agent + " pass@k", values: at(c, c.pass), color: color(i) });
    passSeries.push({ label: c.agent + " pass@k lowest repeat", values: at(c, c.pass_min), color: color(i), dash: true });
    passSeries.push({ label: c.agent + " pass@k highest repeat", values: at(c, c.pass_max), color: color(i), dash: true });
    if (c.majority) {
      passSeries.push({ label: c.agent + " majority@k", values: at(c, c.majority), color: color(i + 4) });
      passSeries.push({ label: c.agent + " majority@k lowest repeat", values: at(c, c.majority_min), color: color(i + 4), dash: true });
      passSeries.push({ label: c.agent + " majority@k highest repeat", values: at(c, c.majority_max), color: color(i + 4), dash: true });
    }
  });
  const passNotes: string[] = [
    "pass@k: the unbiased estimate over tasks with at least k rollouts, a pass being reward ≥ " +
      data.pass_threshold +
      ". Dashed: the lowest and highest value over repeats (disjoint groups of k rollouts by rollout index).",
  ];
  passNotes.push(data.pass_at_k.majority_note ? " majority@k not shown: " + data.pass_at_k.majority_note + "." : " majority@k: a vote over " + data.pass_at_k.answer_key + " among the first k rollouts.");
  // The legend would list three series per curve: a key of the solid lines instead.
  const key = el(
    "div",
    { class: "plot-key" },
    passSeries
      .filter(function (p) {
        return !p.dash;
      })
      .map(function (p) {
        const swatch = el("span", { class: "swatch" });
        swatch.style.background = p.color;
        return el("span", { class: "metric" }, [swatch, " " + p.label]);
      }),
  );
  chart("pass_at_k", "pass@k and majority@k over k", [key as Node | string].concat(passNotes), "k", "% of tasks", ks, passSeries, { wholeX: true, legend: false });

  const cur = data.curriculum;
  const counts = el(
    "table",
    { class: "curriculum", id: "curriculum" },
    [
      el("thead", null, el("tr", null, [el("th", { text: "agent" }), el("th", { text: "tasks" }), el("th", { text: "always solved" }), el("th", { text: "in between" }), el("th", { text: "never solved" })])),
      el(
        "tbody",
        null,
        cur.agents.map(function (a) {
          return el("tr", { "data-agent": a.agent }, [el("td", { text: a.agent }), el("td", { class: "num", text: ui.fmt(a.tasks) }), el("td", { class: "num good", text: ui.fmt(a.always) }), el("td", { class: "num mid", text: ui.fmt(a.between) }), el("td", { class: "num bad", text: ui.fmt(a.never) })]);
        }),
      ),
    ],
  );
  chart(
    "curriculum",
    "tasks by mean reward (the curriculum view)",
    [counts, "Each task once per agent, at its mean reward; always solved: every rollout passes, never: none does."],
    "task mean reward",
    "tasks",
    cur.edges,
    cur.agents.map(function (a, i) {
      return { label: a.agent, values: a.counts.concat([a.counts[a.counts.length - 1] ?? 0]), color: color(i), stepped: true };
    }),
  );

  const usage = data.usage;
  const usageNote = (usage.sampled ? "An even sample of " + usage.rows_read + " of " + usage.rows + " rows." : "All " + usage.rows_read + " rows.") + (usage.missing.length ? " No row records " + usage.missing.join(", ") + "." : "");
  if (!usage.fields.length) container.appendChild(el("section", { class: "plot", id: "plot-usage" }, [el("h3", { text: "token usage and latency" }), el("p", { class: "muted", text: usageNote })]));
  usage.fields.forEach(function (f) {
    histogramChart("usage-" + f.name, f.name.replace(/_/g, " ") + " per rollout", [usageNote], f.unit, f.histogram);
  });

  const fail = data.failures;
  chart(
    "failures",
    "failures by class over the run",
    [fail.classes.length ? "By " + fail.axis + " (failure lines carry no timestamp); x is the last line of each bucket." : "No failure lines."],
    "failure line",
    "failures",
    fail.buckets.map(function (b) {
      return b.to;
    }),
    fail.classes.map(function (c, i) {
      return { label: c.name, values: c.counts, color: color(i + 3) };
    }),
    { wholeX: true },
  );
}
