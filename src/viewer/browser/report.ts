// The static report's script (`gym view --export`, src/viewer/report.ts): renders the data block the
// file carries (#report-data) — counts, agents and key metrics, the plots (plots.ts), the first tasks
// with their prompts, and sample conversations. Runs after uPlot, readability.js and plots.js, all
// inline in the one file, and asks for nothing over the network. Row text enters only as text.
"use strict";

interface ReportData {
  generated_at: string;
  summary: Summary & { agents: Array<AgentSummary & { hidden_key_metrics?: Array<{ name: string; reason: string }> }> };
  plots: PlotData;
  tasks: { total: number; pass_threshold: number; rows: TaskLine[] };
  conversations: Array<{
    why: string;
    task: number;
    rollout: number;
    agent: string;
    status: string;
    reward: number | null;
    failure_class: string | null;
    error: unknown;
    params: Row | null;
    output: unknown[] | null;
  }>;
}

(function () {
  /** Builds an element; attribute "text" sets its text, children are nodes or text. */
  function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, children?: Child | Child[]): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of Array.isArray(children) ? children : [children]) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === "object" ? child : String(child));
    }
    return node;
  }
  function fmt(value: unknown): string {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(5)));
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  function text(content: unknown): string {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return content === undefined || content === null ? "" : JSON.stringify(content, null, 2);
    return content
      .map(function (part) {
        return part && typeof part === "object" && typeof part.text === "string" ? part.text : JSON.stringify(part);
      })
      .join("\n");
  }
  const rewardClass = (r: number | null) => (r === null ? "failure" : r >= 1 ? "good" : r <= 0 ? "bad" : "mid");

  function conversationItem(item: unknown): HTMLElement {
    const it = (item && typeof item === "object" ? item : { type: "unknown", content: item }) as Row;
    const type = it.type || (it.role ? "message" : "unknown");
    let label = String(type);
    let body: HTMLElement;
    if (type === "message") {
      label = String(it.role || "assistant");
      body = collapsibleText(text(it.content), label, h);
    } else if (type === "function_call") {
      label = "tool call: " + (it.name || "?");
      body = h("pre", { text: String(it.arguments ?? "") });
    } else if (type === "function_call_output") {
      label = "tool output";
      body = h("pre", { text: typeof it.output === "string" ? it.output : JSON.stringify(it.output, null, 2) });
    } else if (type === "reasoning") {
      body = h("div", { class: "body", text: (Array.isArray(it.summary) ? it.summary : []).map((s: Row) => (s && s.text) || "").join("\n\n") });
    } else body = h("pre", { text: JSON.stringify(it, null, 2) });
    const cls = "item kind-" + String(type).replace(/[^a-z_]/g, "") + (type === "message" ? " role-" + label.replace(/[^a-z_]/g, "") : "");
    return h("div", { class: cls }, [h("div", { class: "label", text: label }), body]);
  }

  const data = JSON.parse(document.getElementById("report-data")!.textContent || "{}") as ReportData;
  const s = data.summary;
  const c = s.counts;
  document.getElementById("run-path")!.textContent = s.rollouts_path + " · exported " + data.generated_at;
  document.getElementById("counts")!.append(
    ...[
      [c.rollouts, "rollouts"],
      [c.failures, "failure lines"],
      [c.tasks, "tasks"],
      [c.agents, "agents"],
    ].map(function (pair) {
      return h("span", { class: "chip" }, [h("b", { text: fmt(pair[0]) }), " " + pair[1]]);
    }),
  );
  document.getElementById("agents")!.append(
    h("table", { id: "agents-table" }, [
      h("thead", null, h("tr", null, ["agent", "rollouts", "failures", "mean reward", "key metrics"].map((t) => h("th", { text: t })))),
      h(
        "tbody",
        null,
        s.agents.map(function (a) {
          const metrics = Object.entries(a.key_metrics || {}).map(([name, value]) => h("span", { class: "metric" }, [h("span", { class: "name", text: name + " " }), h("b", { text: fmt(value) })]));
          return h("tr", null, [
            h("td", { text: a.name }),
            h("td", { class: "num", text: fmt(a.rollouts) }),
            h("td", { class: "num", text: fmt(a.failures) }),
            h("td", { class: "num " + rewardClass(a.mean_reward), text: fmt(a.mean_reward) }),
            h("td", null, [h("span", null, metrics), hiddenMetricsNote(a.hidden_key_metrics, h)]),
          ]);
        }),
      ),
    ]),
  );

  const main = document.getElementById("main")!;
  main.replaceChildren();
  const plots = h("div", { class: "plots", id: "plots" });
  main.append(h("h2", { text: "plots" }), plots);
  drawPlots(plots, data.plots, { el: h, fmt: fmt });

  const t = data.tasks;
  main.append(
    h("section", { class: "report-section" }, [
      h("h2", { text: "tasks" + (t.total > t.rows.length ? " (the first " + t.rows.length + " of " + t.total + ")" : "") }),
      h("table", { id: "tasks" }, [
        h("thead", null, h("tr", null, ["task", "prompt", "rollouts", "failures", "mean reward", "pass rate"].map((x) => h("th", { text: x })))),
        h(
          "tbody",
          null,
          t.rows.map(function (r) {
            return h("tr", { "data-task": r.task }, [
              h("td", { class: "num", text: r.task }),
              h("td", { class: "snippet prompt", title: r.prompt || "", text: r.prompt || "" }),
              h("td", { class: "num", text: r.rollouts }),
              h("td", { class: "num", text: r.failures }),
              h("td", { class: "num " + rewardClass(r.mean_reward), text: fmt(r.mean_reward) }),
              h("td", { class: "num", text: r.pass_rate === null ? "–" : fmt(Math.round(r.pass_rate * 1000) / 10) + "%" }),
            ]);
          }),
        ),
      ]),
    ]),
  );

  const conversations = h("section", { class: "report-section", id: "conversations" }, [h("h2", { text: "sample conversations" })]);
  data.conversations.forEach(function (d) {
    const items: Node[] = [];
    const params = d.params || {};
    if (params.instructions) items.push(conversationItem({ type: "message", role: "instructions", content: params.instructions }));
    if (typeof params.input === "string") items.push(conversationItem({ type: "message", role: "user", content: params.input }));
    else if (Array.isArray(params.input)) params.input.forEach((it: unknown) => items.push(conversationItem(it)));
    (d.output || []).forEach((it) => items.push(conversationItem(it)));
    if (d.status === "failure") items.push(h("div", { class: "error", text: (d.failure_class || "failure") + ": " + fmt(d.error) }));
    conversations.append(
      h("details", { class: "card sample", "data-task": d.task, "data-rollout": d.rollout }, [
        h("summary", null, [
          "task " + d.task + " · rollout " + d.rollout + " · " + d.agent + " · ",
          h("span", { class: rewardClass(d.reward), text: d.status === "success" ? "reward " + fmt(d.reward) : String(d.failure_class) }),
          h("span", { class: "muted", text: " · " + d.why }),
        ]),
        h("div", { class: "conversation" }, items),
      ]),
    );
  });
  main.append(conversations);
})();
