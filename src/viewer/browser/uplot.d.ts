// The part of uPlot's API (the `uplot` package, loaded before the page's script as a global) that
// plots.ts uses. The package's own uPlot.d.ts is a module, which the page's classic scripts cannot import.
interface UplotSeries {
  label?: string;
  stroke?: string;
  fill?: string;
  width?: number;
  dash?: number[];
  points?: { show: boolean };
  paths?: unknown;
  value?: (self: unknown, value: number | null) => string;
}
interface UplotAxis {
  label?: string;
  values?: (self: unknown, ticks: number[]) => string[];
}
interface UplotOptions {
  title?: string;
  width: number;
  height: number;
  scales?: Record<string, { time?: boolean; range?: [number, number] | ((self: unknown, min: number, max: number) => [number, number]) }>;
  series: UplotSeries[];
  axes?: UplotAxis[];
  legend?: { show: boolean };
  cursor?: { show: boolean };
}
declare class uPlot {
  constructor(options: UplotOptions, data: Array<Array<number | null>>, target: HTMLElement);
  destroy(): void;
  static paths: { stepped?: (options: { align: 1 | -1 }) => unknown };
}
