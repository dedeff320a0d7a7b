/**
 * The benchmark's chart: per action, one bar per configuration (its median latency) with a
 * tick at its p95, drawn with bench/png.ts. The y axis is logarithmic: the configurations
 * differ by orders of magnitude (a prefetched step takes milliseconds, a recomputed one
 * hundreds), and on a linear axis the fast medians would vanish.
 */
import { Raster, type Rgb } from './png.js';

export interface ChartSeries {
  /** The legend's text. */
  name: string;
  color: Rgb;
}

export interface ChartGroup {
  label: string;
  /** One per series, in the series' order; NaN for none. */
  values: readonly { median: number; p95: number }[];
}

const INK: Rgb = [40, 40, 40];
const GRID: Rgb = [225, 225, 225];
const MINOR: Rgb = [242, 242, 242];

export function latencyChart(title: string, series: readonly ChartSeries[], groups: readonly ChartGroup[]): Buffer {
  const width = 920;
  const height = 440;
  const left = 70;
  const right = 20;
  const top = 50;
  const bottom = 80;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const r = new Raster(width, height);
  r.text(left, 14, title, INK, 2);

  // The axis: whole decades around every value.
  const finite = groups.flatMap((g) => g.values.flatMap((v) => [v.median, v.p95])).filter((v) => Number.isFinite(v) && v > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(1, ...finite)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(lo * 10, ...finite)));
  const decades = Math.round(Math.log10(hi / lo));
  const y = (v: number) => top + plotH - (plotH * Math.log10(Math.max(v, lo) / lo)) / decades;
  for (let d = 0; d <= decades; d++) {
    const v = lo * 10 ** d;
    if (d < decades) for (const m of [2, 5]) r.rect(left, y(v * m), plotW, 1, MINOR);
    r.rect(left, y(v), plotW, 1, GRID);
    const label = v >= 1 ? `${v}` : v.toFixed(-Math.log10(v));
    r.text(left - 8 - Raster.textWidth(label), y(v) - 5, label, INK);
  }
  r.text(8, top - 22, 'MS (LOG)', INK);
  r.rect(left, top, 1, plotH, INK);

  const slot = plotW / Math.max(1, groups.length);
  const bar = Math.min(36, (slot - 16) / Math.max(1, series.length));
  groups.forEach((g, i) => {
    const x0 = left + slot * i + (slot - bar * series.length) / 2;
    g.values.forEach((m, k) => {
      const bx = x0 + k * bar;
      const color = series[k]?.color ?? INK;
      if (Number.isFinite(m.median) && m.median > 0) r.rect(bx + 2, y(m.median), bar - 4, top + plotH - y(m.median), color);
      if (Number.isFinite(m.p95) && m.p95 > 0) r.rect(bx + 2, y(m.p95), bar - 4, 2, INK);
    });
    r.text(left + slot * i + slot / 2 - Raster.textWidth(g.label) / 2, top + plotH + 10, g.label, INK);
  });

  // Legend: the series, then the p95 tick.
  const ly = height - 32;
  let x = left;
  for (const s of series) {
    r.rect(x, ly, 14, 10, s.color);
    x += 20 + r.text(x + 20, ly, s.name, INK) + 20;
  }
  r.rect(x, ly + 4, 14, 2, INK);
  r.text(x + 20, ly, 'p95', INK);
  return r.png();
}
