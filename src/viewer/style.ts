// The viewer page's style sheet, put inline into the page under the same nonce as its script (the
// Content-Security-Policy allows no other style). A TS module because tsc copies no .css files to dist/.

export const VIEWER_STYLE: string = `
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
.episode { display: flex; flex-direction: column; gap: 10px; }
.step { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; display: flex; flex-direction: column; gap: 6px; }
.step-head { font-size: 13px; }
.step-flag { margin-left: 4px; font-size: 12px; }
.step-part { display: flex; flex-direction: column; gap: 6px; padding-left: 8px; border-left: 2px solid var(--line); }
.step-label { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.episode-end { font-weight: 600; }
`;
