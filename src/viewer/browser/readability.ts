// Readability helpers shared by the viewer page (app.ts) and the static report (report.ts): long
// messages fold behind an expander, and key metrics left out of the header are named. A classic
// script (global functions), taking the caller's DOM helper so that row text enters only as text.
"use strict";

/** Messages longer than this (characters or lines) are folded; system-like ones from a lower bar. */
const LONG_CHARS = 1200;
const LONG_LINES = 16;
const LONG_SYSTEM_CHARS = 300;
const PREVIEW_CHARS = 160;

/**
 * The body of a message: its text as is, or, when long, a <details class="long"> whose summary is
 * the first line and the size, opening to the whole text.
 */
// A global for the scripts after it (classic scripts share one scope).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function collapsibleText(text: string, role: string, el: PlotUi["el"]): HTMLElement {
  const lines = text.split("\n").length;
  const systemLike = role === "system" || role === "developer" || role === "instructions";
  const long = text.length > (systemLike ? LONG_SYSTEM_CHARS : LONG_CHARS) || lines > LONG_LINES;
  if (!long) return el("div", { class: "body", text: text });
  const first = (text.split("\n").find(function (l) {
    return l.trim();
  }) || "").trim();
  const preview = first.length > PREVIEW_CHARS ? first.slice(0, PREVIEW_CHARS - 1) + "…" : first;
  return el("details", { class: "long" }, [
    el("summary", null, [el("span", { class: "preview", text: preview }), el("span", { class: "size muted", text: " (" + lines + " lines, " + text.length + " characters; show all)" })]),
    el("div", { class: "body", text: text }),
  ]);
}

/** "2 hidden" with the names and reasons in its title, or nothing. */
// A global for the scripts after it (classic scripts share one scope).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function hiddenMetricsNote(hidden: Array<{ name: string; reason: string }> | undefined, el: PlotUi["el"]): HTMLElement | null {
  if (!hidden || !hidden.length) return null;
  return el("span", {
    class: "hidden-metrics muted",
    title:
      "not shown: " +
      hidden
        .map(function (m) {
          return m.name + " (" + m.reason + ")";
        })
        .join(", "),
    text: hidden.length + " hidden (" + hidden.map(function (m) {
      return m.name;
    }).join(", ") + ": identifier or constant)",
  });
}
