// The viewer's single page: plain HTML, CSS and JavaScript, no framework and no build step. It lives
// in a TS module because tsc copies no .html files to dist/. Everything a row says (model output,
// tool arguments, agent names, errors) is untrusted and enters the DOM only as text nodes or
// textContent — never through innerHTML — and the page's Content-Security-Policy (set by the server
// with a fresh nonce) lets nothing but this script and style run.
//
// Written with String.raw so regular expressions keep their backslashes; the script uses no template
// literals of its own (this file is one).

const NONCE = "__NONCE__";

const STYLE = String.raw`
:root { --fg: #1d2330; --muted: #6b7385; --line: #dfe3ea; --bg: #f7f8fa; --card: #fff; --accent: #2f5bd3;
  --good: #1f7a3d; --bad: #b3261e; --mid: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header { background: var(--card); border-bottom: 1px solid var(--line); padding: 12px 20px; }
header h1 { font-size: 18px; margin: 0 12px 0 0; display: inline-block; }
header nav { display: inline-block; margin-right: 12px; }
header nav a { margin-right: 10px; }
th a.sort { color: inherit; }
th a.sort.active { color: var(--accent); }
main { padding: 16px 20px 40px; max-width: 1400px; }
.muted { color: var(--muted); }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.chip { background: var(--bg); border: 1px solid var(--line); border-radius: 12px; padding: 2px 10px; }
.chip b { font-variant-numeric: tabular-nums; }
.chip.warn { background: #fff4e5; border-color: #f0c36d; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr.clickable { cursor: pointer; }
tbody tr.clickable:hover { background: #eef3ff; }
td.snippet { max-width: 560px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.good { color: var(--good); font-weight: 600; }
.bad { color: var(--bad); font-weight: 600; }
.mid { color: var(--mid); font-weight: 600; }
.failure { color: var(--bad); }
.agents { margin-top: 8px; }
.agents table { font-size: 13px; }
.metric { display: inline-block; margin: 0 10px 2px 0; white-space: nowrap; }
.metric .name { color: var(--muted); }
.hist { display: inline-flex; align-items: flex-end; gap: 1px; height: 24px; }
.hist span { display: inline-block; width: 7px; background: var(--accent); opacity: .75; min-height: 1px; }
form.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 10px 12px; margin-bottom: 12px; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
form.filters input, form.filters select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
form.filters input[type=number] { width: 90px; }
form.filters input[type=search] { width: 260px; }
button { font: inherit; padding: 3px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
button.plain { background: #fff; color: var(--accent); }
button:disabled { opacity: .4; cursor: default; }
.pager { display: flex; gap: 10px; align-items: center; margin: 10px 0; }
.notice { background: #fff4e5; border: 1px solid #f0c36d; border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
.error { background: #fdecea; border: 1px solid #f1aeb5; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
h2 { font-size: 17px; margin: 6px 0 10px; }
h3 { font-size: 14px; margin: 18px 0 8px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.nav { display: flex; gap: 14px; margin-bottom: 8px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; background: var(--card);
  border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; min-width: 0; }
.conversation { display: flex; flex-direction: column; gap: 8px; }
.item { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.item .label { font-size: 12px; font-weight: 600; color: var(--muted); margin-bottom: 3px; }
.item .label .aside { font-weight: 400; margin-left: 8px; }
.item .body { white-space: pre-wrap; word-break: break-word; }
.item pre { max-height: 420px; overflow: auto; background: var(--bg); padding: 6px 8px; border-radius: 4px; }
.role-user { border-left-color: #2f5bd3; }
.role-assistant { border-left-color: #1f7a3d; }
.role-system, .role-developer, .role-instructions { border-left-color: #8a93a6; }
.kind-function_call { border-left-color: #c77700; }
.kind-function_call_output { border-left-color: #7b4bc4; }
.kind-reasoning { border-left-color: #a0a7b5; }
.kind-reasoning .body { font-style: italic; color: #4b5263; }
.section-in { font-size: 12px; color: var(--muted); margin: 4px 0 -2px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.card .answer { white-space: pre-wrap; word-break: break-word; max-height: 260px; overflow: auto; margin-top: 6px; }
details > summary { cursor: pointer; color: var(--accent); margin: 4px 0; }
`;

const SCRIPT = String.raw`
"use strict";
(function () {
  var main = document.getElementById("main");
  var summary = null;
  var generation = 0;
  var lastListHash = "#/";
  var lastTasksHash = "#/tasks";
  var PAGE = 50;

  // ---- DOM: row content only ever becomes text nodes ----
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === undefined || value === null || value === false) return;
        if (key === "class") node.className = value;
        else if (key === "text") node.textContent = String(value);
        else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, String(value));
      });
    }
    add(node, children);
    return node;
  }
  function add(node, children) {
    if (children === undefined || children === null) return node;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  function show(gen, node) {
    if (gen !== generation) return;
    main.replaceChildren(node);
    window.scrollTo(0, 0);
  }
  function errorBox(error) {
    return el("div", { class: "error", role: "alert" }, [el("b", { text: "Error: " }), String(error && error.message ? error.message : error)]);
  }

  // ---- data ----
  function api(path) {
    return fetch(path, { headers: { accept: "application/json" } }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error((body && body.detail) || "HTTP " + response.status);
        return body;
      });
    });
  }
  function fmt(value) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") {
      if (Number.isInteger(value) || Math.abs(value) >= 1e6) return String(Math.round(value * 1000) / 1000);
      return String(Number(value.toPrecision(6)));
    }
    if (typeof value === "boolean") return value ? "true" : "false";
    return String(value);
  }
  function plural(n, word) { return n === 1 ? word : word + "s"; }
  function rewardClass(reward) {
    if (reward === null || reward === undefined) return "failure";
    return reward >= 1 ? "good" : reward <= 0 ? "bad" : "mid";
  }
  /** Long arrays of numbers (token ids, logprobs) are shown as their length. */
  function compact(key, value) {
    if (Array.isArray(value) && value.length > 24 && typeof value[0] === "number") return "[" + value.length + " numbers]";
    return value;
  }
  function pretty(value) {
    if (typeof value === "string") {
      var trimmed = value.trim();
      if (trimmed[0] === "{" || trimmed[0] === "[") {
        try { return JSON.stringify(JSON.parse(trimmed), compact, 2); } catch (e) { return value; }
      }
      return value;
    }
    return JSON.stringify(value, compact, 2);
  }
  function contentText(content) {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return content === undefined || content === null ? "" : pretty(content);
    return content.map(function (part) {
      if (part && typeof part === "object") {
        if (typeof part.text === "string") return part.text;
        if (typeof part.refusal === "string") return "[refusal] " + part.refusal;
        return "[" + (part.type || "part") + "] " + pretty(part);
      }
      return String(part);
    }).join("\n");
  }
  function hashParams() {
    var hash = location.hash.replace(/^#/, "");
    var q = hash.indexOf("?");
    return { path: (q < 0 ? hash : hash.slice(0, q)) || "/", params: new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)) };
  }
  /** Navigates, or re-renders when the hash is already there (the same filters applied again). */
  function go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  }
  function rolloutHash(task, rollout) { return "#/rollout/" + task + "/" + rollout; }
  function taskHash(task) { return "#/task/" + task; }

  // ---- header: counts and per-agent metrics ----
  function chip(label, value, warn) {
    return el("span", { class: warn ? "chip warn" : "chip" }, [el("b", { text: fmt(value) }), " " + label]);
  }
  function histogram(h) {
    if (!h) return null;
    var top = Math.max.apply(null, h.counts.concat([1]));
    var bars = h.counts.map(function (count, i) {
      var bar = el("span", { title: count + " rollouts in bin " + (i + 1) });
      bar.style.height = Math.max(1, Math.round((count / top) * 24)) + "px";
      return bar;
    });
    return el("span", { class: "hist", title: "rewards from " + fmt(h.min) + " to " + fmt(h.max) }, bars);
  }
  function metricList(metrics) {
    if (!metrics) return el("span", { class: "muted", text: "no metrics file entry" });
    var names = Object.keys(metrics);
    if (!names.length) return el("span", { class: "muted", text: "none" });
    return el("span", null, names.map(function (name) {
      return el("span", { class: "metric" }, [el("span", { class: "name", text: name + " " }), el("b", { text: fmt(metrics[name]) })]);
    }));
  }
  function renderHeader(s) {
    summary = s;
    document.getElementById("run-path").textContent = s.rollouts_path;
    var c = s.counts;
    var counts = document.getElementById("counts");
    counts.replaceChildren(
      chip(plural(c.rollouts, "rollout"), c.rollouts),
      chip(plural(c.failures, "failure line") + (c.failures ? " (" + c.failed_pairs + " " + plural(c.failed_pairs, "pair") + " without success)" : ""), c.failures, c.failures > 0),
      chip(plural(c.tasks, "task"), c.tasks),
      chip(plural(c.agents, "agent"), c.agents)
    );
    if (c.planned !== null) add(counts, chip("planned (" + fmt(c.missing_pairs) + " missing)", c.planned, c.missing_pairs > 0));
    if (c.duplicate_pairs) add(counts, chip(plural(c.duplicate_pairs, "pair") + " with duplicate success lines", c.duplicate_pairs, true));
    if (c.malformed_lines) add(counts, chip("malformed " + plural(c.malformed_lines, "line"), c.malformed_lines, true));

    var rows = s.agents.map(function (a) {
      return el("tr", null, [
        el("td", null, el("a", { href: "#/?agent=" + encodeURIComponent(a.name), text: a.name })),
        el("td", { class: "num", text: fmt(a.rollouts) }),
        el("td", { class: "num" + (a.failures ? " failure" : ""), text: fmt(a.failures) }),
        el("td", { class: "num " + rewardClass(a.mean_reward), text: fmt(a.mean_reward) }),
        el("td", null, histogram(a.reward_histogram)),
        el("td", null, metricList(a.key_metrics))
      ]);
    });
    var table = el("table", { id: "agents-table" }, [
      el("thead", null, el("tr", null, ["agent", "rollouts", "failures", "mean reward", "rewards", "key metrics"].map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows)
    ]);
    document.getElementById("agents").replaceChildren(table);

    var notices = [];
    if (s.files.metrics.error) notices.push(el("div", { class: "notice" }, "metrics file: " + s.files.metrics.error));
    if (s.malformed_lines.length) {
      notices.push(el("details", { class: "notice", id: "malformed" }, [
        el("summary", { text: c.malformed_lines + " malformed " + plural(c.malformed_lines, "line") + " skipped" }),
        el("ul", null, s.malformed_lines.map(function (m) { return el("li", { class: "mono", text: m.file + ":" + m.line + ": " + m.reason }); }))
      ]));
    }
    if (s.missing_pairs.length) {
      notices.push(el("details", { class: "notice" }, [
        el("summary", { text: c.missing_pairs + " planned " + plural(c.missing_pairs, "rollout") + " with no line in either file" }),
        el("div", { class: "mono", text: s.missing_pairs.map(function (p) { return "(" + p.task + ", " + p.rollout + ")"; }).join(" ") })
      ]));
    }
    var classes = Object.keys(s.failure_classes);
    if (classes.length) {
      notices.push(el("div", { class: "muted" }, "failure classes: " + classes.map(function (k) { return k + " × " + s.failure_classes[k]; }).join(", ")));
    }
    document.getElementById("notices").replaceChildren.apply(document.getElementById("notices"), notices);
  }

  // ---- rollout table ----
  function filterForm(params) {
    var agent = el("select", { name: "agent" }, [el("option", { value: "", text: "all agents" })].concat(summary.agents.map(function (a) {
      return el("option", { value: a.name, text: a.name });
    })));
    agent.value = params.get("agent") || "";
    var status = el("select", { name: "status" }, [
      el("option", { value: "", text: "successes and failures" }),
      el("option", { value: "success", text: "successes" }),
      el("option", { value: "failure", text: "failures" })
    ]);
    status.value = params.get("status") || "";
    var min = el("input", { type: "number", step: "any", name: "min_reward", placeholder: "min" });
    min.value = params.get("min_reward") || "";
    var max = el("input", { type: "number", step: "any", name: "max_reward", placeholder: "max" });
    max.value = params.get("max_reward") || "";
    var q = el("input", { type: "search", name: "q", placeholder: "text anywhere in the row" });
    q.value = params.get("q") || "";
    var form = el("form", { class: "filters", id: "filters" }, [
      el("label", null, ["agent", agent]),
      el("label", null, ["status", status]),
      el("label", null, ["reward ≥", min]),
      el("label", null, ["reward ≤", max]),
      el("label", null, ["search", q]),
      el("button", { type: "submit", text: "Apply" }),
      el("button", { type: "button", class: "plain", text: "Reset", onclick: function () { go("#/"); } })
    ]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var next = new URLSearchParams();
      if (params.get("sort")) next.set("sort", params.get("sort"));
      [["agent", agent], ["status", status], ["min_reward", min], ["max_reward", max], ["q", q]].forEach(function (pair) {
        if (pair[1].value.trim()) next.set(pair[0], pair[1].value.trim());
      });
      go("#/?" + next.toString());
    });
    return form;
  }
  function statusCell(row) {
    if (row.status === "success") return el("td", { class: "muted", text: "success" });
    return el("td", { class: "failure", title: row.error || "", text: row.failure_class + (row.terminal ? " (final)" : "") });
  }
  /**
   * A column header that sorts: a link to the same view with sort=<key>. 'keys' is [first click, second
   * click]: clicking the column sorted by the first key sorts by the second (descending ↔ ascending).
   */
  function sortHeader(label, keys, current, path, params, fallback) {
    var active = keys.indexOf(current) >= 0;
    var next = active && keys.length > 1 ? keys[1 - keys.indexOf(current)] : keys[0];
    var p = new URLSearchParams(params);
    p.delete("offset");
    if (next === fallback) p.delete("sort");
    else p.set("sort", next);
    var arrow = active ? (current.charAt(0) === "-" ? " ▼" : " ▲") : "";
    var query = p.toString();
    return el("th", { "data-sort": keys[0].replace(/^-/, "") }, el("a", { class: active ? "sort active" : "sort", href: path + (query ? "?" + query : ""), title: "sort by " + label, text: label + arrow }));
  }
  var ROLLOUT_SORTS = { task: ["task"], reward: ["-reward", "reward"], agent: ["agent"] };
  function rolloutTable(rows, withTask, params) {
    var head = (withTask ? ["task"] : []).concat(["rollout", "agent", "reward", "status", "attempt", "tool calls", "first user message"]);
    var current = params ? params.get("sort") || "task" : null;
    return el("table", { id: "rollouts" }, [
      el("thead", null, el("tr", null, head.map(function (h) {
        if (params && ROLLOUT_SORTS[h]) return sortHeader(h, ROLLOUT_SORTS[h], current, "#/", params, "task");
        return el("th", { text: h });
      }))),
      el("tbody", null, rows.map(function (row) {
        var link = rolloutHash(row.task, row.rollout);
        var cells = [];
        if (withTask) cells.push(el("td", { class: "num" }, el("a", { href: taskHash(row.task), text: String(row.task), onclick: function (event) { event.stopPropagation(); } })));
        cells.push(
          el("td", { class: "num" }, el("a", { href: link, text: String(row.rollout) })),
          el("td", { text: row.agent }),
          el("td", { class: "num " + rewardClass(row.reward), text: fmt(row.reward) }),
          statusCell(row),
          el("td", { class: "num", text: fmt(row.attempt) }),
          el("td", { class: "num", text: fmt(row.tool_calls) }),
          el("td", { class: "snippet", title: row.snippet || "", text: row.unreadable || row.snippet || "" })
        );
        return el("tr", { class: "clickable", "data-task": row.task, "data-rollout": row.rollout, onclick: function () { location.hash = link; } }, cells);
      }))
    ]);
  }
  function pager(total, offset, limit, go) {
    var last = Math.min(total, offset + limit);
    return el("div", { class: "pager" }, [
      el("button", { class: "plain", text: "← previous", disabled: offset <= 0, onclick: function () { go(Math.max(0, offset - limit)); } }),
      el("span", { class: "muted", text: total ? "rows " + (offset + 1) + "–" + last + " of " + total : "no rows" }),
      el("button", { class: "plain", text: "next →", disabled: last >= total, onclick: function () { go(offset + limit); } })
    ]);
  }
  function showList(params) {
    var gen = ++generation;
    lastListHash = location.hash || "#/";
    var offset = Number(params.get("offset")) || 0;
    var query = new URLSearchParams(params);
    query.set("offset", String(offset));
    query.set("limit", String(PAGE));
    var form = filterForm(params);
    show(gen, el("div", null, [form, el("p", { class: "muted", text: "Loading…" })]));
    api("/api/rollouts?" + query.toString()).then(function (page) {
      var go = function (next) {
        var p = new URLSearchParams(params);
        p.set("offset", String(next));
        location.hash = "#/?" + p.toString();
      };
      var note = null;
      if (page.search && !page.search.complete) {
        note = el("div", { class: "notice" }, "The search stopped early (after " + page.search.scanned_bytes + " bytes or " + page.search.max_matches +
          " matches): these are the first matches in file order. Narrow it with a longer text or the filters.");
      }
      show(gen, el("div", null, [form, note, pager(page.total, offset, PAGE, go), rolloutTable(page.rows, true, params), pager(page.total, offset, PAGE, go)]));
    }).catch(function (error) { show(gen, el("div", null, [form, errorBox(error)])); });
  }

  // ---- the task list ----
  var TASK_SORTS = { task: ["task"], "mean reward": ["-mean_reward", "mean_reward"], "pass rate": ["-pass_rate", "pass_rate"] };
  function showTasks(params) {
    var gen = ++generation;
    lastTasksHash = location.hash || "#/tasks";
    var offset = Number(params.get("offset")) || 0;
    var limit = 100;
    var query = new URLSearchParams(params);
    query.set("offset", String(offset));
    query.set("limit", String(limit));
    var agent = el("select", { name: "agent" }, [el("option", { value: "", text: "all agents" })].concat(summary.agents.map(function (a) {
      return el("option", { value: a.name, text: a.name });
    })));
    agent.value = params.get("agent") || "";
    agent.addEventListener("change", function () {
      var p = new URLSearchParams(params);
      p.delete("offset");
      if (agent.value) p.set("agent", agent.value);
      else p.delete("agent");
      go("#/tasks" + (p.toString() ? "?" + p.toString() : ""));
    });
    var form = el("form", { class: "filters", id: "task-filters" }, [el("label", null, ["agent", agent])]);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    show(gen, el("div", null, [form, el("p", { class: "muted", text: "Loading…" })]));
    api("/api/tasks?" + query.toString()).then(function (d) {
      var current = d.sort;
      var goPage = function (next) {
        var p = new URLSearchParams(params);
        p.set("offset", String(next));
        location.hash = "#/tasks?" + p.toString();
      };
      var head = ["task", "agents", "rollouts", "failures", "mean reward", "min", "max", "pass rate"].map(function (h) {
        if (TASK_SORTS[h]) return sortHeader(h, TASK_SORTS[h], current, "#/tasks", params, "task");
        return el("th", { text: h });
      });
      var table = el("table", { id: "tasks" }, [
        el("thead", null, el("tr", null, head)),
        el("tbody", null, d.rows.map(function (t) {
          var link = taskHash(t.task);
          return el("tr", { class: "clickable", "data-task": t.task, onclick: function () { location.hash = link; } }, [
            el("td", { class: "num" }, el("a", { href: link, text: String(t.task) })),
            el("td", { text: t.agents.join(", ") }),
            el("td", { class: "num", text: fmt(t.rollouts) }),
            el("td", { class: "num" + (t.failures ? " failure" : ""), text: fmt(t.failures) }),
            el("td", { class: "num " + rewardClass(t.mean_reward), text: fmt(t.mean_reward) }),
            el("td", { class: "num", text: fmt(t.min_reward) }),
            el("td", { class: "num", text: fmt(t.max_reward) }),
            el("td", { class: "num", title: t.passes + " of " + t.rollouts + " with reward ≥ " + d.pass_threshold, text: t.pass_rate === null ? "–" : fmt(Math.round(t.pass_rate * 1000) / 10) + "%" })
          ]);
        }))
      ]);
      var note = el("p", { class: "muted", text: "pass rate: the share of a task's rollouts with reward ≥ " + d.pass_threshold + " (as in gym eval profile); failure lines are not rollouts." });
      show(gen, el("div", null, [form, note, pager(d.total, offset, limit, goPage), table, pager(d.total, offset, limit, goPage)]));
    }).catch(function (error) { show(gen, el("div", null, [form, errorBox(error)])); });
  }

  // ---- one rollout ----
  function item(kind, role, label, aside, body) {
    var cls = "item kind-" + kind.replace(/[^a-z_]/g, "") + (role ? " role-" + String(role).replace(/[^a-z_]/g, "") : "");
    return el("div", { class: cls }, [el("div", { class: "label" }, [label, aside ? el("span", { class: "aside mono", text: aside }) : null]), body]);
  }
  function textBody(text) { return el("div", { class: "body", text: text }); }
  function preBody(text) { return el("pre", { text: text }); }
  function tokenNote(it) {
    var parts = [];
    ["prompt_token_ids", "generation_token_ids", "generation_log_probs"].forEach(function (key) {
      if (Array.isArray(it[key])) parts.push(key + ": " + it[key].length);
    });
    return parts.length ? parts.join(", ") : "";
  }
  function renderItem(it) {
    if (!it || typeof it !== "object") return item("unknown", null, "item", "", preBody(pretty(it)));
    var type = it.type || (it.role ? "message" : "unknown");
    var tokens = tokenNote(it);
    if (type === "message") {
      return item("message", it.role || "assistant", it.role || "assistant", tokens, textBody(contentText(it.content)));
    }
    if (type === "reasoning") {
      var texts = [];
      (Array.isArray(it.summary) ? it.summary : []).forEach(function (s) { if (s && typeof s.text === "string") texts.push(s.text); });
      (Array.isArray(it.content) ? it.content : []).forEach(function (s) { if (s && typeof s.text === "string") texts.push(s.text); });
      return item("reasoning", null, "reasoning", tokens, textBody(texts.join("\n\n")));
    }
    if (type === "function_call") {
      return item("function_call", null, "tool call: " + (it.name || "?"), it.call_id || "", preBody(pretty(it.arguments === undefined ? "" : it.arguments)));
    }
    if (type === "function_call_output") {
      return item("function_call_output", null, "tool output", it.call_id || "", preBody(pretty(it.output === undefined ? "" : it.output)));
    }
    return item(String(type), null, String(type), tokens, preBody(pretty(it)));
  }
  function conversation(params, response) {
    var nodes = [];
    params = params || {};
    if (params.instructions) nodes.push(item("message", "instructions", "instructions", "", textBody(contentText(params.instructions))));
    if (typeof params.input === "string") nodes.push(item("message", "user", "user", "", textBody(params.input)));
    else if (Array.isArray(params.input)) params.input.forEach(function (it) { nodes.push(renderItem(it)); });
    if (response && Array.isArray(response.output)) {
      nodes.push(el("div", { class: "section-in", text: "response" + (response.status ? " (" + response.status + ")" : "") }));
      response.output.forEach(function (it) { nodes.push(renderItem(it)); });
    }
    return el("div", { class: "conversation", id: "conversation" }, nodes);
  }
  function kv(pairs, id) {
    var list = el("dl", { class: "kv", id: id || null });
    pairs.forEach(function (pair) {
      var value = pair[1];
      var node = value && typeof value === "object" && !(value instanceof Node) ? preBody(pretty(value)) : value instanceof Node ? value : el("span", { text: fmt(value) });
      add(list, [el("dt", { text: pair[0] }), el("dd", null, node)]);
    });
    return list;
  }
  function flatten(prefix, value, out) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      Object.keys(value).forEach(function (key) { flatten(prefix ? prefix + "." + key : key, value[key], out); });
    } else out.push([prefix, value]);
    return out;
  }
  var SHOWN_ELSEWHERE = ["responses_create_params", "response", "_ng_task_index", "_ng_rollout_index", "agent_ref", "reward"];
  function showRollout(task, rollout) {
    var gen = ++generation;
    show(gen, el("p", { class: "muted", text: "Loading…" }));
    api("/api/rollouts/" + encodeURIComponent(task) + "/" + encodeURIComponent(rollout)).then(function (d) {
      var row = d.row || {};
      var input = d.status === "success" ? row : d.planned_row || {};
      var nodes = [
        el("div", { class: "nav" }, [
          el("a", { href: lastListHash, text: "← rollouts" }),
          el("a", { href: taskHash(d.task), text: "all rollouts of task " + d.task }),
          d.previous ? el("a", { id: "previous", href: rolloutHash(d.previous.task, d.previous.rollout), text: "← previous (" + d.previous.task + ", " + d.previous.rollout + ")" }) : null,
          d.next ? el("a", { id: "next", href: rolloutHash(d.next.task, d.next.rollout), text: "next (" + d.next.task + ", " + d.next.rollout + ") →" }) : null
        ]),
        el("h2", { id: "rollout-title", text: "Task " + d.task + " · rollout " + d.rollout }),
        kv([
          ["agent", d.agent],
          ["status", d.status],
          ["reward", el("span", { class: rewardClass(d.reward), text: fmt(d.reward) })],
          ["source", d.source.file + ":" + d.source.line],
          ["success lines", d.successes]
        ], "rollout-facts")
      ];
      if (d.status === "failure") {
        nodes.push(el("h3", { text: "failure" }), kv([
          ["class", el("span", { class: "failure", text: row._ng_failure_class })],
          ["attempt", row._ng_attempt_index],
          ["final", row._ng_failure_terminal],
          ["error", el("pre", { text: row._ng_failure_error === undefined ? "" : String(row._ng_failure_error) })]
        ], "failure"));
      }
      if (d.attempts.length && d.status === "success") {
        nodes.push(el("h3", { text: "earlier failed attempts" }));
      } else if (d.attempts.length > 1) {
        nodes.push(el("h3", { text: "all failed attempts" }));
      }
      if (d.attempts.length && (d.status === "success" || d.attempts.length > 1)) {
        nodes.push(el("table", { id: "attempts" }, [
          el("thead", null, el("tr", null, ["attempt", "class", "final", "error"].map(function (h) { return el("th", { text: h }); }))),
          el("tbody", null, d.attempts.map(function (a) {
            return el("tr", null, [el("td", { class: "num", text: fmt(a.attempt) }), el("td", { class: "failure", text: a.failure_class }),
              el("td", { text: fmt(a.terminal) }), el("td", null, el("pre", { text: a.error === null ? "" : String(a.error) }))]);
          }))
        ]));
      }
      nodes.push(el("h3", { text: d.status === "success" ? "conversation" : "input (from the materialized inputs)" }));
      if (input.responses_create_params || row.response) nodes.push(conversation(input.responses_create_params, d.status === "success" ? row.response : null));
      else nodes.push(el("p", { class: "muted", text: "The run kept no input for this rollout." }));
      var params = input.responses_create_params || {};
      if (Array.isArray(params.tools) && params.tools.length) {
        nodes.push(el("details", null, [
          el("summary", { text: params.tools.length + " tool" + (params.tools.length === 1 ? "" : "s") + " offered: " + params.tools.map(function (t) { return t.name || t.type; }).join(", ") }),
          preBody(pretty(params.tools))
        ]));
      }
      if (d.status === "success") {
        var usage = row.response && row.response.usage;
        if (usage) nodes.push(el("h3", { text: "token usage" }), kv(flatten("", usage, []), "usage"));
        nodes.push(el("h3", { text: "reward and verify fields" }));
        var extras = [["reward", el("span", { class: rewardClass(row.reward), text: fmt(row.reward) })]];
        Object.keys(row).forEach(function (key) { if (SHOWN_ELSEWHERE.indexOf(key) < 0) extras.push([key, row[key]]); });
        nodes.push(kv(extras, "extras"));
      }
      var raw = el("pre", { class: "raw" });
      var details = el("details", null, [el("summary", { text: "raw row (JSON)" }), raw]);
      details.addEventListener("toggle", function () { if (details.open && !raw.textContent) raw.textContent = JSON.stringify(row, null, 2); });
      nodes.push(el("h3", { text: "raw" }), details);
      show(gen, el("div", null, nodes));
    }).catch(function (error) {
      show(gen, el("div", null, [el("div", { class: "nav" }, el("a", { href: lastListHash, text: "← rollouts" })), errorBox(error)]));
    });
  }

  // ---- one task: all its rollouts side by side ----
  function showTask(task, params) {
    var gen = ++generation;
    var offset = Number(params.get("offset")) || 0;
    var limit = 100;
    show(gen, el("p", { class: "muted", text: "Loading…" }));
    api("/api/tasks/" + encodeURIComponent(task) + "?offset=" + offset + "&limit=" + limit).then(function (d) {
      var nodes = [
        el("div", { class: "nav" }, [el("a", { href: lastListHash, text: "← rollouts" }), el("a", { href: lastTasksHash, text: "← tasks" }), el("a", { href: "#/?task=" + d.task, text: "as a table" })]),
        el("h2", { id: "task-title", text: "Task " + d.task }),
        kv([["rollouts", d.stats.rollouts], ["failure lines", d.stats.failures], ["mean reward", d.stats.mean_reward],
          ["min reward", d.stats.min_reward], ["max reward", d.stats.max_reward]], "task-stats")
      ];
      nodes.push(el("h3", { text: "group-level metrics" }));
      if (!d.group_level_metrics.length) nodes.push(el("p", { class: "muted", text: "The metrics file has none for this task." }));
      d.group_level_metrics.forEach(function (g) {
        nodes.push(el("div", { class: "muted", text: g.agent }), kv(Object.keys(g.metrics).map(function (k) { return [k, g.metrics[k]]; }), "group-metrics"));
      });
      if (d.responses_create_params) {
        nodes.push(el("details", null, [el("summary", { text: "prompt" }), conversation(d.responses_create_params, null)]));
      }
      nodes.push(el("h3", { text: "rollouts" }));
      if (d.total > d.limit) nodes.push(pager(d.total, d.offset, d.limit, function (next) { location.hash = taskHash(d.task) + "?offset=" + next; }));
      nodes.push(el("div", { class: "cards", id: "task-rollouts" }, d.rows.map(function (row) {
        return el("div", { class: "card" }, [
          el("div", null, [
            el("a", { href: rolloutHash(row.task, row.rollout), text: "rollout " + row.rollout + (row.status === "failure" ? " · attempt " + row.attempt : "") }),
            " · ", el("span", { class: rewardClass(row.reward), text: row.status === "success" ? "reward " + fmt(row.reward) : row.failure_class }),
            el("span", { class: "muted", text: " · " + row.agent + (row.tool_calls !== null && row.tool_calls !== undefined ? " · " + row.tool_calls + " tool calls" : "") })
          ]),
          el("div", { class: "answer", text: row.unreadable || (row.status === "success" ? row.answer : row.error || "") })
        ]);
      })));
      show(gen, el("div", null, nodes));
    }).catch(function (error) {
      show(gen, el("div", null, [el("div", { class: "nav" }, el("a", { href: lastListHash, text: "← rollouts" })), errorBox(error)]));
    });
  }

  function route() {
    if (!summary) return;
    var h = hashParams();
    var parts = h.path.split("/").filter(Boolean);
    if (parts[0] === "rollout" && parts.length === 3) return showRollout(parts[1], parts[2]);
    if (parts[0] === "task" && parts.length === 2) return showTask(parts[1], h.params);
    if (parts[0] === "tasks" && parts.length === 1) return showTasks(h.params);
    return showList(h.params);
  }
  window.addEventListener("hashchange", route);
  api("/api/summary").then(function (s) {
    renderHeader(s);
    route();
  }).catch(function (error) { main.replaceChildren(errorBox(error)); });
})();
`;

const PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gym view</title>
<link rel="icon" href="data:,">
<style nonce="${NONCE}">${STYLE}</style>
</head>
<body>
<header>
  <h1><a href="#/">gym view</a></h1><nav><a id="rollouts-link" href="#/">rollouts</a><a id="tasks-link" href="#/tasks">tasks</a></nav><span id="run-path" class="mono muted"></span>
  <div id="counts" class="counts"></div>
  <div id="agents" class="agents"></div>
  <div id="notices"></div>
</header>
<main id="main"><p class="muted">Loading…</p></main>
<script nonce="${NONCE}">${SCRIPT}</script>
</body>
</html>
`;

/** The page with `nonce` on its script and style (the server's Content-Security-Policy names it). */
export function viewerPage(nonce: string): string {
  return PAGE.replaceAll(NONCE, () => nonce);
}

/** The page's script, for tests that check it parses. */
export const VIEWER_SCRIPT = SCRIPT;
