// What GET /api/plots answers (src/viewer/plots/plot_data.ts), as plots.ts reads it; global like api.d.ts.
interface PlotHistogram {
  edges: number[];
  agents: Array<{ agent: string; n: number; counts: number[]; mean: number | null }>;
}
interface PlotPassCurve {
  agent: string;
  k: number[];
  pass: number[];
  pass_min: Array<number | null>;
  pass_max: Array<number | null>;
  repeats: number[];
  majority: number[] | null;
  majority_min: Array<number | null> | null;
  majority_max: Array<number | null> | null;
}
interface PlotData {
  pass_threshold: number;
  rewards: PlotHistogram;
  pass_at_k: { answer_key: string; majority_note: string | null; agents: PlotPassCurve[] };
  curriculum: { edges: number[]; agents: Array<{ agent: string; tasks: number; always: number; never: number; between: number; counts: number[] }> };
  usage: { rows_read: number; rows: number; sampled: boolean; fields: Array<{ name: string; unit: string; histogram: PlotHistogram }>; missing: string[] };
  failures: { axis: string; buckets: Array<{ from: number; to: number }>; classes: Array<{ name: string; counts: number[] }> };
}
