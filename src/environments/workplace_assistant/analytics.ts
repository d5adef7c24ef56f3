// The analytics toolkit, matched to NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/analytics.py: visits read from
// csv_data/analytics_data.csv (read-only counts per day) and a table of created plots, the only state
// the reward compares.
import { records, type Frame } from "./frame.js";
import { bind, type Kwargs } from "./kwargs.js";
import { PyError, PyFloat, pyIn, pyStr, truthy } from "./py.js";

const PLOTTABLE = ["total_visits", "session_duration_seconds", "user_engaged", "visits_direct", "visits_referral", "visits_search_engine", "visits_social_media"];
const PLOT_TYPES = ["bar", "line", "scatter", "histogram"];

/** Python string comparison `a >= b` / `a <= b` between a column's string and an argument. */
function compare(a: unknown, b: unknown): number {
  if (typeof a !== "string" || typeof b !== "string") throw new PyError(`TypeError: '>=' not supported between instances`);
  return a < b ? -1 : a > b ? 1 : 0;
}

export class AnalyticsTool {
  /** Visits; `user_engaged` is a boolean, the rest strings. */
  visits: Array<Record<string, unknown>>;
  /** Set once get_average_session_duration ran over the whole table, which turns the column into floats in place upstream. */
  private durationsAreFloats = false;

  constructor(
    data: Frame,
    public plots: Frame,
  ) {
    this.visits = records(data).map((r) => ({ ...r, user_engaged: r.user_engaged === "True" }));
  }

  private window(time_min: unknown, time_max: unknown): Array<Record<string, unknown>> {
    let rows = this.visits;
    if (truthy(time_min)) rows = rows.filter((r) => compare(r.date_of_visit, time_min) >= 0);
    if (truthy(time_max)) rows = rows.filter((r) => compare(r.date_of_visit, time_max) <= 0);
    return rows;
  }

  /** `groupby("date_of_visit")` then a per-day value, days in sorted order. */
  private perDay(rows: Array<Record<string, unknown>>, value: (group: Array<Record<string, unknown>>) => number | PyFloat): Record<string, number | PyFloat> {
    const groups = new Map<string, Array<Record<string, unknown>>>();
    for (const r of rows) {
      const day = r.date_of_visit as string;
      if (!groups.has(day)) groups.set(day, []);
      groups.get(day)!.push(r);
    }
    return Object.fromEntries([...groups.keys()].sort().map((day) => [day, value(groups.get(day)!)]));
  }

  get_visitor_information_by_id(kwargs: Kwargs): unknown {
    const { visitor_id } = bind("AnalyticsTool.get_visitor_information_by_id", { visitor_id: null }, kwargs);
    if (!truthy(visitor_id)) return "Visitor ID not provided.";
    const found = this.visits.filter((r) => r.visitor_id === visitor_id);
    if (!found.length) return "Visitor not found.";
    return this.durationsAreFloats ? found.map((r) => ({ ...r, session_duration_seconds: new PyFloat(Number(r.session_duration_seconds)) })) : found;
  }

  create_plot(kwargs: Kwargs): string {
    const { time_min, time_max, value_to_plot, plot_type } = bind("AnalyticsTool.create_plot", { time_min: null, time_max: null, value_to_plot: null, plot_type: null }, kwargs);
    if (!truthy(time_min)) return "Start date not provided.";
    if (!truthy(time_max)) return "End date not provided.";
    if (!pyIn(value_to_plot, PLOTTABLE))
      return "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'";
    if (!pyIn(plot_type, PLOT_TYPES)) return "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'";
    const path = `plots/${pyStr(time_min)}_${pyStr(time_max)}_${pyStr(value_to_plot)}_${pyStr(plot_type)}.png`;
    this.plots = { columns: this.plots.columns, index: [...this.plots.index, this.plots.rows.length], rows: [...this.plots.rows, [path]] };
    return path;
  }

  total_visits_count(kwargs: Kwargs): unknown {
    const { time_min, time_max } = bind("AnalyticsTool.total_visits_count", { time_min: null, time_max: null }, kwargs);
    return this.perDay(this.window(time_min, time_max), (g) => g.length);
  }

  engaged_users_count(kwargs: Kwargs): unknown {
    const { time_min, time_max } = bind("AnalyticsTool.engaged_users_count", { time_min: null, time_max: null }, kwargs);
    return this.perDay(this.window(time_min, time_max), (g) => g.filter((r) => r.user_engaged === true).length);
  }

  traffic_source_count(kwargs: Kwargs): unknown {
    const { time_min, time_max, traffic_source } = bind("AnalyticsTool.traffic_source_count", { time_min: null, time_max: null, traffic_source: null }, kwargs);
    const rows = this.window(time_min, time_max);
    if (truthy(traffic_source)) return this.perDay(rows, (g) => g.filter((r) => r.traffic_source === traffic_source).length);
    return this.perDay(rows, (g) => g.length);
  }

  get_average_session_duration(kwargs: Kwargs): unknown {
    const { time_min, time_max } = bind("AnalyticsTool.get_average_session_duration", { time_min: null, time_max: null }, kwargs);
    if (!truthy(time_min) && !truthy(time_max)) this.durationsAreFloats = true;
    return this.perDay(this.window(time_min, time_max), (g) => new PyFloat(g.reduce((s, r) => s + Number(r.session_duration_seconds), 0) / g.length));
  }
}
