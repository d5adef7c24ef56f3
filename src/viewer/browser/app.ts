// The viewer page's script, run in the browser. It is compiled on its own (tsconfig.browser.json: DOM
// types, no Node) into dist/viewer/browser/app.js, which the server puts inline into the page under
// a fresh nonce, after steps.js (the step view of a multi-turn episode, renderEpisode). It must stay
// a classic script (no import or export), since the page runs it from an inline <script> element.
//
// Everything a row says (model output, tool arguments, agent names, errors) is untrusted: it enters
// the DOM only as text nodes or textContent, never as markup, and the page's Content-Security-Policy
// lets nothing but this script and the page's style run.
"use strict";

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, unknown> | null;

(function () {
  const main = document.getElementById("main")!;
  let summary: Summary | null = null;
  let generation = 0;
  let lastListHash = "#/";
  let lastTasksHash = "#/tasks";
  const PAGE = 50;

  // ---- DOM: row content only ever becomes text nodes ----
  function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, children?: Child | Child[]): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        const value = attrs[key];
        if (value === undefined || value === null || value === false) return;
        if (key === "class") node.className = String(value);
        else if (key === "text") node.textContent = String(value);
        else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value as EventListener);
        else node.setAttribute(key, String(value));
      });
    }
    add(node, children);
    return node;
  }
  function add(node: Node, children?: Child | Child[]): Node {
    if (children === undefined || children === null) return node;
    const list = Array.isArray(children) ? children : [children];
    list.forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  /** Set while a live run's change re-renders the view: the scroll position is kept. */
  let refreshing = false;
  function show(gen: number, node: Node): void {
    if (gen !== generation) return;
    main.replaceChildren(node);
    if (!refreshing) window.scrollTo(0, 0);
  }
  function errorBox(error: unknown): HTMLElement {
    const message = error && (error as Error).message ? (error as Error).message : error;
    return el("div", { class: "error", role: "alert" }, [el("b", { text: "Error: " }), String(message)]);
  }

  // ---- data ----
  function api<T>(path: string): Promise<T> {
    return fetch(path, { headers: { accept: "application/json" } }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error((body && body.detail) || "HTTP " + response.status);
        return body as T;
      });
    });
  }
  function fmt(value: unknown): string {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") {
      if (Number.isInteger(value) || Math.abs(value) >= 1e6) return String(Math.round(value * 1000) / 1000);
      return String(Number(value.toPrecision(6)));
    }
    if (typeof value === "boolean") return value ? "true" : "false";
    return String(value);
  }
  function plural(n: number | null, word: string): string {
    return n === 1 ? word : word + "s";
  }
  function rewardClass(reward: number | null | undefined): string {
    if (reward === null || reward === undefined) return "failure";
    return reward >= 1 ? "good" : reward <= 0 ? "bad" : "mid";
  }
  /** Long arrays of numbers (token ids, logprobs) are shown as their length. */
  function compact(_key: string, value: unknown): unknown {
    if (Array.isArray(value) && value.length > 24 && typeof value[0] === "number") return "[" + value.length + " numbers]";
    return value;
  }
  function pretty(value: unknown): string {
    if (typeof value === "string") {
      const trimmed = value.trim();
      if (trimmed[0] === "{" || trimmed[0] === "[") {
        try {
          return JSON.stringify(JSON.parse(trimmed), compact, 2);
        } catch {
          return value;
        }
      }
      return value;
    }
    return JSON.stringify(value, compact, 2);
  }
  function contentText(content: unknown): string {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return content === undefined || content === null ? "" : pretty(content);
    return content
      .map(function (part) {
        if (part && typeof part === "object") {
          if (typeof part.text === "string") return part.text;
          if (typeof part.refusal === "string") return "[refusal] " + part.refusal;
          return "[" + (part.type || "part") + "] " + pretty(part);
        }
        return String(part);
      })
      .join("\n");
  }
  function hashParams(): { path: string; params: URLSearchParams } {
    const hash = location.hash.replace(/^#/, "");
    const q = hash.indexOf("?");
    return { path: (q < 0 ? hash : hash.slice(0, q)) || "/", params: new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)) };
  }
  /** Navigates, or re-renders when the hash is already there (the same filters applied again). */
  function go(hash: string): void {
    if (location.hash === hash) route();
    else location.hash = hash;
  }
  function rolloutHash(task: number | string, rollout: number | string): string {
    return "#/rollout/" + task + "/" + rollout;
  }
  function taskHash(task: number | string): string {
    return "#/task/" + task;
  }

  // ---- header: counts and per-agent metrics ----
  function chip(label: string, value: unknown, warn?: boolean): HTMLElement {
    return el("span", { class: warn ? "chip warn" : "chip" }, [el("b", { text: fmt(value) }), " " + label]);
  }
  function histogram(h: Histogram | null): HTMLElement | null {
    if (!h) return null;
    const top = Math.max(...h.counts, 1);
    const bars = h.counts.map(function (count, i) {
      const bar = el("span", { title: count + " rollouts in bin " + (i + 1) });
      bar.style.height = Math.max(1, Math.round((count / top) * 24)) + "px";
      return bar;
    });
    return el("span", { class: "hist", title: "rewards from " + fmt(h.min) + " to " + fmt(h.max) }, bars);
  }
  function metricList(metrics: Record<string, unknown> | null): HTMLElement {
    if (!metrics) return el("span", { class: "muted", text: "no metrics file entry" });
    const names = Object.keys(metrics);
    if (!names.length) return el("span", { class: "muted", text: "none" });
    return el(
      "span",
      null,
      names.map(function (name) {
        return el("span", { class: "metric" }, [el("span", { class: "name", text: name + " " }), el("b", { text: fmt(metrics[name]) })]);
      }),
    );
  }
  function renderHeader(s: Summary): void {
    summary = s;
    document.getElementById("run-path")!.textContent = s.rollouts_path;
    const c = s.counts;
    const counts = document.getElementById("counts")!;
    counts.replaceChildren(
      chip(plural(c.rollouts, "rollout"), c.rollouts),
      chip(plural(c.failures, "failure line") + (c.failures ? " (" + c.failed_pairs + " " + plural(c.failed_pairs, "pair") + " without success)" : ""), c.failures, c.failures > 0),
      chip(plural(c.tasks, "task"), c.tasks),
      chip(plural(c.agents, "agent"), c.agents),
    );
    if (c.planned !== null) add(counts, chip("planned (" + fmt(c.missing_pairs) + " missing)", c.planned, c.missing_pairs! > 0));
    if (c.duplicate_pairs) add(counts, chip(plural(c.duplicate_pairs, "pair") + " with duplicate success lines", c.duplicate_pairs, true));
    if (c.malformed_lines) add(counts, chip("malformed " + plural(c.malformed_lines, "line"), c.malformed_lines, true));

    const rows = s.agents.map(function (a) {
      return el("tr", null, [
        el("td", null, el("a", { href: "#/?agent=" + encodeURIComponent(a.name), text: a.name })),
        el("td", { class: "num", text: fmt(a.rollouts) }),
        el("td", { class: "num" + (a.failures ? " failure" : ""), text: fmt(a.failures) }),
        el("td", { class: "num " + rewardClass(a.mean_reward), text: fmt(a.mean_reward) }),
        el("td", null, histogram(a.reward_histogram)),
        el("td", null, [metricList(a.key_metrics), hiddenMetricsNote(a.hidden_key_metrics, el)]),
      ]);
    });
    const table = el("table", { id: "agents-table" }, [
      el(
        "thead",
        null,
        el(
          "tr",
          null,
          ["agent", "rollouts", "failures", "mean reward", "rewards", "key metrics"].map(function (h) {
            return el("th", { text: h });
          }),
        ),
      ),
      el("tbody", null, rows),
    ]);
    document.getElementById("agents")!.replaceChildren(table);

    const notices: Node[] = [];
    if (s.files.metrics.error) notices.push(el("div", { class: "notice" }, "metrics file: " + s.files.metrics.error));
    if (s.malformed_lines.length) {
      notices.push(
        el("details", { class: "notice", id: "malformed" }, [
          el("summary", { text: c.malformed_lines + " malformed " + plural(c.malformed_lines, "line") + " skipped" }),
          el(
            "ul",
            null,
            s.malformed_lines.map(function (m) {
              return el("li", { class: "mono", text: m.file + ":" + m.line + ": " + m.reason });
            }),
          ),
        ]),
      );
    }
    if (s.missing_pairs.length) {
      notices.push(
        el("details", { class: "notice" }, [
          el("summary", { text: c.missing_pairs + " planned " + plural(c.missing_pairs, "rollout") + " with no line in either file" }),
          el("div", {
            class: "mono",
            text: s.missing_pairs
              .map(function (p) {
                return "(" + p.task + ", " + p.rollout + ")";
              })
              .join(" "),
          }),
        ]),
      );
    }
    const classes = Object.keys(s.failure_classes);
    if (classes.length) {
      notices.push(
        el(
          "div",
          { class: "muted" },
          "failure classes: " +
            classes
              .map(function (k) {
                return k + " × " + s.failure_classes[k];
              })
              .join(", "),
        ),
      );
    }
    document.getElementById("notices")!.replaceChildren(...notices);
  }

  // ---- rollout table ----
  function agentOptions(): HTMLOptionElement[] {
    return [el("option", { value: "", text: "all agents" })].concat(
      summary!.agents.map(function (a) {
        return el("option", { value: a.name, text: a.name });
      }),
    );
  }
  function filterForm(params: URLSearchParams): HTMLFormElement {
    const agent = el("select", { name: "agent" }, agentOptions());
    agent.value = params.get("agent") || "";
    const status = el("select", { name: "status" }, [
      el("option", { value: "", text: "successes and failures" }),
      el("option", { value: "success", text: "successes" }),
      el("option", { value: "failure", text: "failures" }),
    ]);
    status.value = params.get("status") || "";
    const min = el("input", { type: "number", step: "any", name: "min_reward", placeholder: "min" });
    min.value = params.get("min_reward") || "";
    const max = el("input", { type: "number", step: "any", name: "max_reward", placeholder: "max" });
    max.value = params.get("max_reward") || "";
    const q = el("input", { type: "search", name: "q", placeholder: "text anywhere in the row" });
    q.value = params.get("q") || "";
    const form = el("form", { class: "filters", id: "filters" }, [
      el("label", null, ["agent", agent]),
      el("label", null, ["status", status]),
      el("label", null, ["reward ≥", min]),
      el("label", null, ["reward ≤", max]),
      el("label", null, ["search", q]),
      el("button", { type: "submit", text: "Apply" }),
      el("button", {
        type: "button",
        class: "plain",
        text: "Reset",
        onclick: function () {
          go("#/");
        },
      }),
    ]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      const next = new URLSearchParams();
      const sort = params.get("sort");
      if (sort) next.set("sort", sort);
      const fields: Array<[string, HTMLInputElement | HTMLSelectElement]> = [
        ["agent", agent],
        ["status", status],
        ["min_reward", min],
        ["max_reward", max],
        ["q", q],
      ];
      fields.forEach(function (pair) {
        if (pair[1].value.trim()) next.set(pair[0], pair[1].value.trim());
      });
      go("#/?" + next.toString());
    });
    return form;
  }
  function statusCell(row: Listing): HTMLElement {
    if (row.status === "success") return el("td", { class: "muted", text: "success" });
    return el("td", { class: "failure", title: row.error || "", text: row.failure_class + (row.terminal ? " (final)" : "") });
  }
  /**
   * A column header that sorts: a link to the same view with sort=<key>. 'keys' is [first click, second
   * click]: clicking the column sorted by the first key sorts by the second (descending ↔ ascending).
   */
  function sortHeader(label: string, keys: string[], current: string, path: string, params: URLSearchParams, fallback: string): HTMLElement {
    const active = keys.indexOf(current) >= 0;
    const next = active && keys.length > 1 ? keys[1 - keys.indexOf(current)]! : keys[0]!;
    const p = new URLSearchParams(params);
    p.delete("offset");
    if (next === fallback) p.delete("sort");
    else p.set("sort", next);
    const arrow = active ? (current.charAt(0) === "-" ? " ▼" : " ▲") : "";
    const query = p.toString();
    return el(
      "th",
      { "data-sort": keys[0]!.replace(/^-/, "") },
      el("a", { class: active ? "sort active" : "sort", href: path + (query ? "?" + query : ""), title: "sort by " + label, text: label + arrow }),
    );
  }
  const ROLLOUT_SORTS: Record<string, string[]> = { task: ["task"], reward: ["-reward", "reward"], agent: ["agent"] };
  function rolloutTable(rows: Listing[], withTask: boolean, params: URLSearchParams | null): HTMLElement {
    const head = (withTask ? ["task"] : []).concat(["rollout", "agent", "reward", "status", "attempt", "tool calls", "first user message"]);
    const current = params ? params.get("sort") || "task" : null;
    return el("table", { id: "rollouts" }, [
      el(
        "thead",
        null,
        el(
          "tr",
          null,
          head.map(function (h) {
            const sorts = ROLLOUT_SORTS[h];
            if (params && sorts) return sortHeader(h, sorts, current!, "#/", params, "task");
            return el("th", { text: h });
          }),
        ),
      ),
      el(
        "tbody",
        null,
        rows.map(function (row) {
          const link = rolloutHash(row.task, row.rollout);
          const cells: HTMLElement[] = [];
          if (withTask) {
            cells.push(
              el(
                "td",
                { class: "num" },
                el("a", {
                  href: taskHash(row.task),
                  text: String(row.task),
                  onclick: function (event: Event) {
                    event.stopPropagation();
                  },
                }),
              ),
            );
          }
          cells.push(
            el("td", { class: "num" }, el("a", { href: link, text: String(row.rollout) })),
            el("td", { text: row.agent }),
            el("td", { class: "num " + rewardClass(row.reward), text: fmt(row.reward) }),
            statusCell(row),
            el("td", { class: "num", text: fmt(row.attempt) }),
            el("td", { class: "num", text: fmt(row.tool_calls) }),
            el("td", { class: "snippet", title: row.snippet || "", text: row.unreadable || row.snippet || "" }),
          );
          return el(
            "tr",
            {
              class: "clickable",
              "data-task": row.task,
              "data-rollout": row.rollout,
              onclick: function () {
                location.hash = link;
              },
            },
            cells,
          );
        }),
      ),
    ]);
  }
  function pager(total: number, offset: number, limit: number, goTo: (offset: number) => void): HTMLElement {
    const last = Math.min(total, offset + limit);
    return el("div", { class: "pager" }, [
      el("button", {
        class: "plain",
        text: "← previous",
        disabled: offset <= 0,
        onclick: function () {
          goTo(Math.max(0, offset - limit));
        },
      }),
      el("span", { class: "muted", text: total ? "rows " + (offset + 1) + "–" + last + " of " + total : "no rows" }),
      el("button", {
        class: "plain",
        text: "next →",
        disabled: last >= total,
        onclick: function () {
          goTo(offset + limit);
        },
      }),
    ]);
  }
  function showList(params: URLSearchParams): void {
    const gen = ++generation;
    lastListHash = location.hash || "#/";
    const offset = Number(params.get("offset")) || 0;
    const query = new URLSearchParams(params);
    query.set("offset", String(offset));
    query.set("limit", String(PAGE));
    const form = filterForm(params);
    show(gen, el("div", null, [form, el("p", { class: "muted", text: "Loading…" })]));
    api<RolloutPage>("/api/rollouts?" + query.toString())
      .then(function (page) {
        const goPage = function (next: number) {
          const p = new URLSearchParams(params);
          p.set("offset", String(next));
          location.hash = "#/?" + p.toString();
        };
        let note: HTMLElement | null = null;
        if (page.search && !page.search.complete) {
          note = el(
            "div",
            { class: "notice" },
            "The search stopped early (after " +
              page.search.scanned_bytes +
              " bytes or " +
              page.search.max_matches +
              " matches): these are the first matches in file order. Narrow it with a longer text or the filters.",
          );
        }
        show(gen, el("div", null, [form, note, pager(page.total, offset, PAGE, goPage), rolloutTable(page.rows, true, params), pager(page.total, offset, PAGE, goPage)]));
      })
      .catch(function (error) {
        show(gen, el("div", null, [form, errorBox(error)]));
      });
  }

  // ---- the task list ----
  const TASK_SORTS: Record<string, string[]> = { task: ["task"], "mean reward": ["-mean_reward", "mean_reward"], "pass rate": ["-pass_rate", "pass_rate"] };
  function showTasks(params: URLSearchParams): void {
    const gen = ++generation;
    lastTasksHash = location.hash || "#/tasks";
    const offset = Number(params.get("offset")) || 0;
    const limit = 100;
    const query = new URLSearchParams(params);
    query.set("offset", String(offset));
    query.set("limit", String(limit));
    const agent = el("select", { name: "agent" }, agentOptions());
    agent.value = params.get("agent") || "";
    agent.addEventListener("change", function () {
      const p = new URLSearchParams(params);
      p.delete("offset");
      if (agent.value) p.set("agent", agent.value);
      else p.delete("agent");
      go("#/tasks" + (p.toString() ? "?" + p.toString() : ""));
    });
    const form = el("form", { class: "filters", id: "task-filters" }, [el("label", null, ["agent", agent])]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
    });
    show(gen, el("div", null, [form, el("p", { class: "muted", text: "Loading…" })]));
    api<TaskList>("/api/tasks?" + query.toString())
      .then(function (d) {
        const current = d.sort;
        const goPage = function (next: number) {
          const p = new URLSearchParams(params);
          p.set("offset", String(next));
          location.hash = "#/tasks?" + p.toString();
        };
        const head = ["task", "prompt", "agents", "rollouts", "failures", "mean reward", "min", "max", "pass rate"].map(function (h) {
          const sorts = TASK_SORTS[h];
          if (sorts) return sortHeader(h, sorts, current, "#/tasks", params, "task");
          return el("th", { text: h });
        });
        const table = el("table", { id: "tasks" }, [
          el("thead", null, el("tr", null, head)),
          el(
            "tbody",
            null,
            d.rows.map(function (t) {
              const link = taskHash(t.task);
              return el(
                "tr",
                {
                  class: "clickable",
                  "data-task": t.task,
                  onclick: function () {
                    location.hash = link;
                  },
                },
                [
                  el("td", { class: "num" }, el("a", { href: link, text: String(t.task) })),
                  el("td", { class: "snippet prompt", title: t.prompt || "", text: t.prompt || "" }),
                  el("td", { text: t.agents.join(", ") }),
                  el("td", { class: "num", text: fmt(t.rollouts) }),
                  el("td", { class: "num" + (t.failures ? " failure" : ""), text: fmt(t.failures) }),
                  el("td", { class: "num " + rewardClass(t.mean_reward), text: fmt(t.mean_reward) }),
                  el("td", { class: "num", text: fmt(t.min_reward) }),
                  el("td", { class: "num", text: fmt(t.max_reward) }),
                  el("td", {
                    class: "num",
                    title: t.passes + " of " + t.rollouts + " with reward ≥ " + d.pass_threshold,
                    text: t.pass_rate === null ? "–" : fmt(Math.round(t.pass_rate * 1000) / 10) + "%",
                  }),
                ],
              );
            }),
          ),
        ]);
        const note = el("p", {
          class: "muted",
          text: "pass rate: the share of a task's rollouts with reward ≥ " + d.pass_threshold + " (as in gym eval profile); failure lines are not rollouts.",
        });
        show(gen, el("div", null, [form, note, pager(d.total, offset, limit, goPage), table, pager(d.total, offset, limit, goPage)]));
      })
      .catch(function (error) {
        show(gen, el("div", null, [form, errorBox(error)]));
      });
  }

  // ---- one rollout ----
  function item(kind: string, role: unknown, label: string, aside: string, body: Node): HTMLElement {
    const cls = "item kind-" + kind.replace(/[^a-z_]/g, "") + (role ? " role-" + String(role).replace(/[^a-z_]/g, "") : "");
    return el("div", { class: cls }, [el("div", { class: "label" }, [label, aside ? el("span", { class: "aside mono", text: aside }) : null]), body]);
  }
  function textBody(text: string): HTMLElement {
    return el("div", { class: "body", text: text });
  }
  function preBody(text: string): HTMLElement {
    return el("pre", { text: text });
  }
  function tokenNote(it: Row): string {
    const parts: string[] = [];
    ["prompt_token_ids", "generation_token_ids", "generation_log_probs"].forEach(function (key) {
      if (Array.isArray(it[key])) parts.push(key + ": " + it[key].length);
    });
    return parts.length ? parts.join(", ") : "";
  }
  function renderItem(it: unknown): HTMLElement {
    if (!it || typeof it !== "object") return item("unknown", null, "item", "", preBody(pretty(it)));
    const row = it as Row;
    const type = row.type || (row.role ? "message" : "unknown");
    const tokens = tokenNote(row);
    if (type === "message") {
      return item("message", row.role || "assistant", row.role || "assistant", tokens, collapsibleText(contentText(row.content), String(row.role || "assistant"), el));
    }
    if (type === "reasoning") {
      const texts: string[] = [];
      (Array.isArray(row.summary) ? row.summary : []).forEach(function (s: any) {
        if (s && typeof s.text === "string") texts.push(s.text);
      });
      (Array.isArray(row.content) ? row.content : []).forEach(function (s: any) {
        if (s && typeof s.text === "string") texts.push(s.text);
      });
      return item("reasoning", null, "reasoning", tokens, textBody(texts.join("\n\n")));
    }
    if (type === "function_call") {
      return item("function_call", null, "tool call: " + (row.name || "?"), row.call_id || "", preBody(pretty(row.arguments === undefined ? "" : row.arguments)));
    }
    if (type === "function_call_output") {
      return item("function_call_output", null, "tool output", row.call_id || "", preBody(pretty(row.output === undefined ? "" : row.output)));
    }
    return item(String(type), null, String(type), tokens, preBody(pretty(row)));
  }
  function conversation(params: Row | null | undefined, response: Row | null | undefined): HTMLElement {
    const nodes: Node[] = [];
    params = params || {};
    if (params.instructions) nodes.push(item("message", "instructions", "instructions", "", collapsibleText(contentText(params.instructions), "instructions", el)));
    if (typeof params.input === "string") nodes.push(item("message", "user", "user", "", collapsibleText(params.input, "user", el)));
    else if (Array.isArray(params.input))
      params.input.forEach(function (it: unknown) {
        nodes.push(renderItem(it));
      });
    if (response && Array.isArray(response.output)) {
      nodes.push(el("div", { class: "section-in", text: "response" + (response.status ? " (" + response.status + ")" : "") }));
      response.output.forEach(function (it: unknown) {
        nodes.push(renderItem(it));
      });
    }
    return el("div", { class: "conversation", id: "conversation" }, nodes);
  }
  function kv(pairs: Array<[string, unknown]>, id?: string): HTMLElement {
    const list = el("dl", { class: "kv", id: id || null });
    pairs.forEach(function (pair) {
      const value = pair[1];
      const node = value && typeof value === "object" && !(value instanceof Node) ? preBody(pretty(value)) : value instanceof Node ? value : el("span", { text: fmt(value) });
      add(list, [el("dt", { text: pair[0] }), el("dd", null, node)]);
    });
    return list;
  }
  function flatten(prefix: string, value: unknown, out: Array<[string, unknown]>): Array<[string, unknown]> {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      Object.keys(value).forEach(function (key) {
        flatten(prefix ? prefix + "." + key : key, (value as Row)[key], out);
      });
    } else out.push([prefix, value]);
    return out;
  }
  const SHOWN_ELSEWHERE = ["responses_create_params", "response", "_ng_task_index", "_ng_rollout_index", "agent_ref", "reward"];
  function showRollout(task: string, rollout: string): void {
    const gen = ++generation;
    show(gen, el("p", { class: "muted", text: "Loading…" }));
    api<Rollout>("/api/rollouts/" + encodeURIComponent(task) + "/" + encodeURIComponent(rollout))
      .then(function (d) {
        const row: Row = d.row || {};
        const input: Row = d.status === "success" ? row : d.planned_row || {};
        const nodes: Node[] = [
          el("div", { class: "nav" }, [
            el("a", { href: lastListHash, text: "← rollouts" }),
            el("a", { href: taskHash(d.task), text: "all rollouts of task " + d.task }),
            d.previous ? el("a", { id: "previous", href: rolloutHash(d.previous.task, d.previous.rollout), text: "← previous (" + d.previous.task + ", " + d.previous.rollout + ")" }) : null,
            d.next ? el("a", { id: "next", href: rolloutHash(d.next.task, d.next.rollout), text: "next (" + d.next.task + ", " + d.next.rollout + ") →" }) : null,
          ]),
          el("h2", { id: "rollout-title", text: "Task " + d.task + " · rollout " + d.rollout }),
          kv(
            [
              ["agent", d.agent],
              ["status", d.status],
              ["reward", el("span", { class: rewardClass(d.reward), text: fmt(d.reward) })],
              ["source", d.source.file + ":" + d.source.line],
              ["success lines", d.successes],
            ],
            "rollout-facts",
          ),
        ];
        if (d.status === "failure") {
          nodes.push(
            el("h3", { text: "failure" }),
            kv(
              [
                ["class", el("span", { class: "failure", text: row._ng_failure_class })],
                ["attempt", row._ng_attempt_index],
                ["final", row._ng_failure_terminal],
                ["error", el("pre", { text: row._ng_failure_error === undefined ? "" : String(row._ng_failure_error) })],
              ],
              "failure",
            ),
          );
        }
        if (d.attempts.length && d.status === "success") {
          nodes.push(el("h3", { text: "earlier failed attempts" }));
        } else if (d.attempts.length > 1) {
          nodes.push(el("h3", { text: "all failed attempts" }));
        }
        if (d.attempts.length && (d.status === "success" || d.attempts.length > 1)) {
          nodes.push(
            el("table", { id: "attempts" }, [
              el(
                "thead",
                null,
                el(
                  "tr",
                  null,
                  ["attempt", "class", "final", "error"].map(function (h) {
                    return el("th", { text: h });
                  }),
                ),
              ),
              el(
                "tbody",
                null,
                d.attempts.map(function (a) {
                  return el("tr", null, [
                    el("td", { class: "num", text: fmt(a.attempt) }),
                    el("td", { class: "failure", text: a.failure_class }),
                    el("td", { text: fmt(a.terminal) }),
                    el("td", null, el("pre", { text: a.error === null ? "" : String(a.error) })),
                  ]);
                }),
              ),
            ]),
          );
        }
        if (d.episode) {
          // A multi-turn episode: step by step (steps.ts), the flat conversation folded below it.
          nodes.push(el("h3", { text: "episode, step by step" }), renderEpisode(d.episode, row, { el: el, renderItem: renderItem, fmt: fmt, rewardClass: rewardClass }));
          nodes.push(el("details", { id: "flat-conversation" }, [el("summary", { text: "the whole conversation" }), conversation(input.responses_create_params, row.response)]));
        } else {
          nodes.push(el("h3", { text: d.status === "success" ? "conversation" : "input (from the materialized inputs)" }));
          if (input.responses_create_params || row.response) nodes.push(conversation(input.responses_create_params, d.status === "success" ? row.response : null));
          else nodes.push(el("p", { class: "muted", text: "The run kept no input for this rollout." }));
        }
        const params: Row = input.responses_create_params || {};
        if (Array.isArray(params.tools) && params.tools.length) {
          nodes.push(
            el("details", null, [
              el("summary", {
                text:
                  params.tools.length +
                  " tool" +
                  (params.tools.length === 1 ? "" : "s") +
                  " offered: " +
                  params.tools
                    .map(function (t: Row) {
                      return t.name || t.type;
                    })
                    .join(", "),
              }),
              preBody(pretty(params.tools)),
            ]),
          );
        }
        if (d.status === "success") {
          const usage = row.response && row.response.usage;
          if (usage) nodes.push(el("h3", { text: "token usage" }), kv(flatten("", usage, []), "usage"));
          nodes.push(el("h3", { text: "reward and verify fields" }));
          const extras: Array<[string, unknown]> = [["reward", el("span", { class: rewardClass(row.reward), text: fmt(row.reward) })]];
          Object.keys(row).forEach(function (key) {
            if (SHOWN_ELSEWHERE.indexOf(key) < 0) extras.push([key, row[key]]);
          });
          nodes.push(kv(extras, "extras"));
        }
        const raw = el("pre", { class: "raw" });
        const details = el("details", null, [el("summary", { text: "raw row (JSON)" }), raw]);
        details.addEventListener("toggle", function () {
          if (details.open && !raw.textContent) raw.textContent = JSON.stringify(row, null, 2);
        });
        nodes.push(el("h3", { text: "raw" }), details);
        show(gen, el("div", null, nodes));
      })
      .catch(function (error) {
        show(gen, el("div", null, [el("div", { class: "nav" }, el("a", { href: lastListHash, text: "← rollouts" })), errorBox(error)]));
      });
  }

  // ---- one task: all its rollouts side by side ----
  function showTask(task: string, params: URLSearchParams): void {
    const gen = ++generation;
    const offset = Number(params.get("offset")) || 0;
    const limit = 100;
    show(gen, el("p", { class: "muted", text: "Loading…" }));
    api<TaskView>("/api/tasks/" + encodeURIComponent(task) + "?offset=" + offset + "&limit=" + limit)
      .then(function (d) {
        const nodes: Node[] = [
          el("div", { class: "nav" }, [
            el("a", { href: lastListHash, text: "← rollouts" }),
            el("a", { href: lastTasksHash, text: "← tasks" }),
            el("a", { href: "#/?task=" + d.task, text: "as a table" }),
          ]),
          el("h2", { id: "task-title", text: "Task " + d.task }),
          kv(
            [
              ["rollouts", d.stats.rollouts],
              ["failure lines", d.stats.failures],
              ["mean reward", d.stats.mean_reward],
              ["min reward", d.stats.min_reward],
              ["max reward", d.stats.max_reward],
            ],
            "task-stats",
          ),
        ];
        nodes.push(el("h3", { text: "group-level metrics" }));
        if (!d.group_level_metrics.length) nodes.push(el("p", { class: "muted", text: "The metrics file has none for this task." }));
        d.group_level_metrics.forEach(function (g) {
          nodes.push(
            el("div", { class: "muted", text: g.agent }),
            kv(
              Object.keys(g.metrics).map(function (k): [string, unknown] {
                return [k, g.metrics[k]];
              }),
              "group-metrics",
            ),
          );
        });
        if (d.responses_create_params) {
          nodes.push(el("details", null, [el("summary", { text: "prompt" }), conversation(d.responses_create_params, null)]));
        }
        nodes.push(el("h3", { text: "rollouts" }));
        if (d.total > d.limit) {
          nodes.push(
            pager(d.total, d.offset, d.limit, function (next) {
              location.hash = taskHash(d.task) + "?offset=" + next;
            }),
          );
        }
        nodes.push(
          el(
            "div",
            { class: "cards", id: "task-rollouts" },
            d.rows.map(function (row) {
              return el("div", { class: "card" }, [
                el("div", null, [
                  el("a", { href: rolloutHash(row.task, row.rollout), text: "rollout " + row.rollout + (row.status === "failure" ? " · attempt " + row.attempt : "") }),
                  " · ",
                  el("span", { class: rewardClass(row.reward), text: row.status === "success" ? "reward " + fmt(row.reward) : row.failure_class }),
                  el("span", { class: "muted", text: " · " + row.agent + (row.tool_calls !== null && row.tool_calls !== undefined ? " · " + row.tool_calls + " tool calls" : "") }),
                ]),
                el("div", { class: "answer", text: row.unreadable || (row.status === "success" ? row.answer : row.error || "") }),
              ]);
            }),
          ),
        );
        show(gen, el("div", null, nodes));
      })
      .catch(function (error) {
        show(gen, el("div", null, [el("div", { class: "nav" }, el("a", { href: lastListHash, text: "← rollouts" })), errorBox(error)]));
      });
  }

  // ---- plots (plots.ts draws them) ----
  function showPlots(): void {
    const gen = ++generation;
    show(gen, el("p", { class: "muted", text: "Loading…" }));
    api<PlotData>("/api/plots")
      .then(function (d) {
        const container = el("div", { class: "plots", id: "plots" });
        show(gen, container);
        if (gen === generation) drawPlots(container, d, { el: el, fmt: fmt });
      })
      .catch(function (error) {
        show(gen, errorBox(error));
      });
  }

  function route(): void {
    if (!summary) return;
    const h = hashParams();
    const parts = h.path.split("/").filter(Boolean);
    if (parts[0] === "rollout" && parts.length === 3) return showRollout(parts[1]!, parts[2]!);
    if (parts[0] === "task" && parts.length === 2) return showTask(parts[1]!, h.params);
    if (parts[0] === "tasks" && parts.length === 1) return showTasks(h.params);
    if (parts[0] === "plots" && parts.length === 1) return showPlots();
    if (parts[0] === "compare") {
      // compare.ts: the views of a multi-run viewer, drawn with this script's helpers.
      const gen = ++generation;
      const kit: CompareKit = { el, api, fmt, rewardClass, conversation, errorBox, pager, show: (node) => show(gen, node) };
      return showCompare(parts.slice(1), h.params, kit);
    }
    return showList(h.params);
  }
  window.addEventListener("hashchange", route);
  // live.ts: the run changed; the header and the view (not a single rollout, nor while typing) are read again.
  window.addEventListener("gym:changed", function () {
    api<Summary>("/api/summary").then(function (s) {
      renderHeader(s);
      const active = document.activeElement;
      if (hashParams().path.indexOf("/rollout/") === 0 || (active && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName))) return;
      refreshing = true;
      route();
      setTimeout(function () {
        refreshing = false;
      }, 1000);
    });
  });
  api<Summary>("/api/summary")
    .then(function (s) {
      renderHeader(s);
      route();
    })
    .catch(function (error) {
      main.replaceChildren(errorBox(error));
    });
})();
