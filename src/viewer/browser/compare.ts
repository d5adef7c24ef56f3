// The comparison views of the viewer page (a multi-run `gym view`): #/compare — the runs' numbers side
// by side, each other run's differences from the baseline with their standard errors, key metrics,
// and the tasks with each run's mean reward and the outcome (win/loss/tie); #/compare/task/N — that
// task in every run, one column per run, the conversations next to each other. Compiled with app.ts
// into one classic script (see app.ts): app.ts routes #/compare… here and lends its DOM helpers
// (CompareKit); everything a row says enters the DOM as text only.
"use strict";

interface CompareKit {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, children?: Child | Child[]): HTMLElementTagNameMap[K];
  api<T>(path: string): Promise<T>;
  fmt(value: unknown): string;
  rewardClass(reward: number | null | undefined): string;
  conversation(params: Row | null | undefined, response: Row | null | undefined): HTMLElement;
  errorBox(error: unknown): HTMLElement;
  pager(total: number, offset: number, limit: number, goTo: (offset: number) => void): HTMLElement;
  /** Shows the view (unless the user went elsewhere meanwhile). */
  show(node: Node): void;
}

interface CompareDifference {
  value: number;
  se: number | null;
  ci95: [number, number] | null;
}
interface CompareRun {
  name: string;
  path: string;
  rollouts: number;
  failures: number;
  failed_pairs: number;
  tasks: number;
  mean_reward: number | null;
  mean_reward_se: number | null;
  pass_rate: number | null;
  pass_rate_se: number | null;
  key_metrics: Record<string, Record<string, unknown> | null>;
  comparison: {
    pairing: "paired" | "unpaired";
    common_tasks: number;
    mean_reward: CompareDifference | null;
    pass_rate: CompareDifference | null;
    wins: number;
    losses: number;
    ties: number;
    only_baseline: number;
    only_other: number;
  } | null;
}
interface CompareTaskRow {
  task: number;
  prompt: string | null;
  runs: Array<{ mean_reward: number | null; pass_rate: number | null; rollouts: number; failures: number } | null>;
  deltas: Array<number | null>;
  outcomes: Array<string | null>;
}
interface CompareTaskColumn {
  name: string;
  rollouts: number;
  failures: number;
  mean_reward: number | null;
  rows: Listing[];
  shown: { rollout: number; status: string; reward: number | null; row?: Row; planned_row?: Row | null; unreadable?: string } | null;
}

const COMPARE_PAGE = 50;

function signed(kit: CompareKit, value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  return (value > 0 ? "+" : "") + kit.fmt(value);
}

/** A number cell with its exact value in data-value (what the page shows is rounded). */
function numberCell(kit: CompareKit, value: number | null | undefined, text?: string, cls?: string): HTMLElement {
  return kit.el("td", { class: "num" + (cls ? " " + cls : ""), "data-value": value === null || value === undefined ? null : String(value), text: text === undefined ? kit.fmt(value) : text });
}

function withSe(kit: CompareKit, value: number | null, se: number | null): string {
  return value === null ? "–" : kit.fmt(value) + (se === null ? "" : " ± " + kit.fmt(se));
}

function compareTable(kit: CompareKit, id: string, head: string[], rows: HTMLElement[]): HTMLElement {
  return kit.el("table", { id: id }, [
    kit.el(
      "thead",
      null,
      kit.el(
        "tr",
        null,
        head.map(function (h) {
          return kit.el("th", { text: h });
        }),
      ),
    ),
    kit.el("tbody", null, rows),
  ]);
}

function compareOverview(kit: CompareKit, params: URLSearchParams): void {
  const el = kit.el;
  Promise.all([kit.api<{ baseline: string; runs: CompareRun[] }>("/api/compare"), kit.api<{ total: number; rows: CompareTaskRow[] }>("/api/compare/tasks?" + taskQuery(params).toString())])
    .then(function (answers) {
      const d = answers[0];
      const tasks = answers[1];
      const runs = d.runs;
      const nodes: Array<Node | null> = [el("h2", { text: "Comparing " + runs.length + " runs (baseline: " + d.baseline + ")" })];
      nodes.push(
        compareTable(
          kit,
          "compare-runs",
          ["run", "rollouts", "failures", "tasks", "mean reward ± SE", "pass rate ± SE", "file"],
          runs.map(function (r) {
            return el("tr", { "data-run": r.name }, [
              el("td", { text: r.name }),
              numberCell(kit, r.rollouts),
              numberCell(kit, r.failures, undefined, r.failures ? "failure" : undefined),
              numberCell(kit, r.tasks),
              numberCell(kit, r.mean_reward, withSe(kit, r.mean_reward, r.mean_reward_se)),
              numberCell(kit, r.pass_rate, withSe(kit, r.pass_rate, r.pass_rate_se)),
              el("td", { class: "mono muted", text: r.path }),
            ]);
          }),
        ),
      );
      const others = runs.filter(function (r) {
        return r.comparison !== null;
      });
      nodes.push(el("h3", { text: "differences from " + d.baseline + " (other − baseline)" }));
      nodes.push(
        compareTable(
          kit,
          "compare-diffs",
          ["run", "Δ mean reward", "SE", "95% interval", "Δ pass rate", "SE", "how", "wins", "losses", "ties", "unmatched tasks"],
          others.map(function (r) {
            const c = r.comparison!;
            const m = c.mean_reward;
            const p = c.pass_rate;
            const better = m && m.ci95 ? (m.ci95[0] > 0 ? "good" : m.ci95[1] < 0 ? "bad" : undefined) : undefined;
            return el("tr", { "data-run": r.name }, [
              el("td", { text: r.name }),
              numberCell(kit, m ? m.value : null, signed(kit, m ? m.value : null), better),
              numberCell(kit, m ? m.se : null),
              el("td", { class: "num", text: m && m.ci95 ? "[" + signed(kit, m.ci95[0]) + ", " + signed(kit, m.ci95[1]) + "]" : "–" }),
              numberCell(kit, p ? p.value : null, signed(kit, p ? p.value : null)),
              numberCell(kit, p ? p.se : null),
              el("td", { class: "pairing", text: c.pairing === "paired" ? "paired by task over " + c.common_tasks + " common tasks" : "unpaired: all rollouts (" + c.common_tasks + " common tasks)" }),
              numberCell(kit, c.wins, undefined, "good"),
              numberCell(kit, c.losses, undefined, "bad"),
              numberCell(kit, c.ties),
              el("td", { class: "num", text: c.only_baseline + " only in " + d.baseline + ", " + c.only_other + " only in " + r.name }),
            ]);
          }),
        ),
      );
      nodes.push(
        el("p", {
          class: "muted",
          text:
            "Paired: the mean over tasks with a reward in both runs of the task's mean-reward difference, SE = sd/√n of those differences. " +
            "Unpaired (fewer than 2 common tasks): difference of the runs' means, SE = √(s²a/na + s²b/nb). A win is a task whose mean reward is higher in that run than in the baseline.",
        }),
      );
      nodes.push(keyMetricsTable(kit, runs));
      nodes.push(el("h3", { text: "tasks" }));
      nodes.push(taskFilters(kit, params, runs));
      const offset = Number(params.get("offset")) || 0;
      const goPage = function (next: number) {
        const p = new URLSearchParams(params);
        p.set("offset", String(next));
        location.hash = "#/compare?" + p.toString();
      };
      nodes.push(kit.pager(tasks.total, offset, COMPARE_PAGE, goPage));
      nodes.push(taskTable(kit, runs, tasks.rows, Number(params.get("run")) || 1));
      kit.show(el("div", { id: "compare" }, nodes));
    })
    .catch(function (error) {
      kit.show(kit.errorBox(error));
    });
}

function taskQuery(params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  ["sort", "outcome", "run"].forEach(function (key) {
    const value = params.get(key);
    if (value) query.set(key, value);
  });
  query.set("offset", String(Number(params.get("offset")) || 0));
  query.set("limit", String(COMPARE_PAGE));
  return query;
}

/** Key metrics (from each run's metrics file), agent/metric rows, one column per run. */
function keyMetricsTable(kit: CompareKit, runs: CompareRun[]): HTMLElement | null {
  const names: string[] = [];
  runs.forEach(function (r) {
    Object.keys(r.key_metrics).forEach(function (agent) {
      Object.keys(r.key_metrics[agent] || {}).forEach(function (metric) {
        const name = agent + " · " + metric;
        if (names.indexOf(name) < 0) names.push(name);
      });
    });
  });
  if (!names.length) return null;
  const value = function (r: CompareRun, name: string): unknown {
    const at = name.indexOf(" · ");
    const metrics = r.key_metrics[name.slice(0, at)];
    return metrics ? metrics[name.slice(at + 3)] : undefined;
  };
  return kit.el("div", null, [
    kit.el("h3", { text: "key metrics (from the metrics files)" }),
    compareTable(
      kit,
      "compare-metrics",
      ["metric"].concat(
        runs.map(function (r, i) {
          return i === 0 ? r.name : r.name + " (Δ)";
        }),
      ),
      names.map(function (name) {
        const base = value(runs[0]!, name);
        return kit.el(
          "tr",
          null,
          [kit.el("td", { text: name }) as HTMLElement].concat(
            runs.map(function (r, i) {
              const v = value(r, name);
              const delta = i > 0 && typeof v === "number" && typeof base === "number" ? " (" + signed(kit, v - base) + ")" : "";
              return kit.el("td", { class: "num", text: kit.fmt(v) + delta });
            }),
          ),
        );
      }),
    ),
  ]);
}

function taskFilters(kit: CompareKit, params: URLSearchParams, runs: CompareRun[]): HTMLElement {
  const el = kit.el;
  const select = function (name: string, choices: Array<[string, string]>): HTMLSelectElement {
    const current = params.get(name) || "";
    return el(
      "select",
      { name: name },
      choices.map(function (c) {
        return el("option", { value: c[0], selected: c[0] === current ? "selected" : null, text: c[1] });
      }),
    );
  };
  const form = el("form", { class: "filters", id: "compare-filters" }, [
    el("label", null, [
      "against",
      select(
        "run",
        runs.slice(1).map(function (r, i): [string, string] {
          return [String(i + 1), r.name];
        }),
      ),
    ]),
    el("label", null, [
      "outcome",
      select("outcome", [
        ["", "all tasks"],
        ["win", "wins"],
        ["loss", "losses"],
        ["tie", "ties"],
        ["unmatched", "in one run only"],
      ]),
    ]),
    el("label", null, [
      "sort",
      select("sort", [
        ["task", "task"],
        ["-delta", "Δ, largest gain first"],
        ["delta", "Δ, largest drop first"],
      ]),
    ]),
    el("button", { type: "submit", text: "Apply" }),
  ]);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const p = new URLSearchParams();
    new FormData(form).forEach(function (value, key) {
      if (value) p.set(key, String(value));
    });
    location.hash = "#/compare?" + p.toString();
  });
  return form;
}

function taskTable(kit: CompareKit, runs: CompareRun[], rows: CompareTaskRow[], against: number): HTMLElement {
  const el = kit.el;
  const head = ["task", "prompt"].concat(
    runs.map(function (r) {
      return r.name;
    }),
    ["Δ " + (runs[against] ? runs[against]!.name : ""), "outcome"],
  );
  return compareTable(
    kit,
    "compare-tasks",
    head,
    rows.map(function (t) {
      const outcome = t.outcomes[against] || null;
      return el(
        "tr",
        {
          class: "clickable",
          "data-task": t.task,
          "data-outcome": outcome,
          onclick: function () {
            location.hash = "#/compare/task/" + t.task;
          },
        },
        [el("td", null, el("a", { href: "#/compare/task/" + t.task, text: String(t.task) })), el("td", { class: "snippet", text: t.prompt || "" }) as HTMLElement].concat(
          t.runs.map(function (r) {
            if (!r) return el("td", { class: "muted", text: "—" });
            const text = r.mean_reward === null ? "no reward" : kit.fmt(r.mean_reward);
            return numberCell(kit, r.mean_reward, text + " (" + r.rollouts + (r.failures ? ", " + r.failures + " failed" : "") + ")", kit.rewardClass(r.mean_reward));
          }),
          [
            numberCell(kit, t.deltas[against], signed(kit, t.deltas[against])),
            el("td", { class: outcome === "win" ? "good" : outcome === "loss" ? "bad" : "muted", text: outcome || "" }),
          ],
        ),
      );
    }),
  );
}

function compareTask(kit: CompareKit, task: string, params: URLSearchParams): void {
  const el = kit.el;
  const rollout = params.get("rollout");
  kit
    .api<{ task: number; runs: CompareTaskColumn[] }>("/api/compare/tasks/" + encodeURIComponent(task) + (rollout ? "?rollout=" + encodeURIComponent(rollout) : ""))
    .then(function (d) {
      const columns = d.runs.map(function (r) {
        const shown = r.shown;
        const picks = r.rows
          .filter(function (row) {
            return row.status === "success";
          })
          .map(function (row) {
            const current = shown && shown.rollout === row.rollout;
            return el("a", { href: "#/compare/task/" + d.task + "?rollout=" + row.rollout, class: current ? "pick current" : "pick", text: "#" + row.rollout + " " + kit.fmt(row.reward) });
          });
        let body: Node;
        if (!shown) body = el("p", { class: "muted", text: "No rollout of this task in this run." });
        else if (shown.unreadable) body = kit.errorBox(shown.unreadable);
        else if (shown.status === "failure") {
          const row = shown.row || {};
          body = el("div", null, [
            el("div", { class: "failure", text: "failed: " + (row._ng_failure_class || "failure") + (row._ng_failure_error ? " — " + row._ng_failure_error : "") }),
            kit.conversation(shown.planned_row ? shown.planned_row.responses_create_params : null, null),
          ]);
        } else body = kit.conversation(shown.row ? shown.row.responses_create_params : null, shown.row ? shown.row.response : null);
        if (body instanceof Element) body.removeAttribute("id");
        return el("div", { class: "compare-column", "data-run": r.name }, [
          el("h3", { text: r.name }),
          el("div", { class: "muted" }, [
            "mean reward ",
            el("span", { class: kit.rewardClass(r.mean_reward), text: kit.fmt(r.mean_reward) }),
            " · " + r.rollouts + " rollouts" + (r.failures ? " · " + r.failures + " failure lines" : ""),
          ]),
          el("div", { class: "picks" }, picks),
          shown ? el("div", { class: "shown", text: "rollout " + shown.rollout + " · " + (shown.status === "success" ? "reward " + kit.fmt(shown.reward) : "failure") }) : null,
          body,
        ]);
      });
      kit.show(
        el("div", null, [
          el("div", { class: "nav" }, [el("a", { href: "#/compare", text: "← comparison" }), el("a", { href: "#/task/" + d.task, text: "task " + d.task + " in " + d.runs[0]!.name })]),
          el("h2", { text: "Task " + d.task + " in " + d.runs.length + " runs" }),
          el("div", { class: "compare-columns", id: "compare-columns" }, columns),
        ]),
      );
      const grid = document.getElementById("compare-columns");
      if (grid) grid.style.gridTemplateColumns = "repeat(" + d.runs.length + ", minmax(0, 1fr))";
    })
    .catch(function (error) {
      kit.show(el("div", null, [el("div", { class: "nav" }, el("a", { href: "#/compare", text: "← comparison" })), kit.errorBox(error)]));
    });
}

/** #/compare and #/compare/task/N (parts: the hash path after "compare"); called by app.ts. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function showCompare(parts: string[], params: URLSearchParams, kit: CompareKit): void {
  kit.show(kit.el("p", { class: "muted", text: "Loading…" }));
  if (parts[0] === "task" && parts.length === 2) return compareTask(kit, parts[1]!, params);
  return compareOverview(kit, params);
}

// The compare link shows when the server has more than one run.
fetch("/api/runs", { headers: { accept: "application/json" } })
  .then(function (response) {
    return response.ok ? response.json() : null;
  })
  .then(function (body: { runs: unknown[] } | null) {
    const link = document.getElementById("compare-link");
    if (link && body && body.runs.length > 1) link.hidden = false;
  })
  .catch(function () {
    // Without the list of runs there is nothing to compare.
  });
