/**
 * The benchmark's chart: per action, median latency (bar) and p95 (tick above it), ours beside
 * the baseline, drawn with bench/png.ts.
 */
import { Raster, type Rgb } from './png.js';

export interface ChartGroup {
  label: string;
  ours: { median: number; p95: number };
  baseline: { median: number; p95: number };
}

const OURS: Rgb = [33, 113, 181];
const BASE: Rgb = [189, 189, 189];
const INK: Rgb = [40, 40, 40];

export function latencyChart(title: string, groups: readonly ChartGroup[]): Buffer {
  const width = 760;
  const height = 420;
  const left = 70;
  const top = 50;
  const bottom = 70;
  const plotH = height - top - bottom;
  const r = new Raster(width, height);
  r.text(left, 14, title, INK, 2);
  const finite = groups.flatMap((g) => [g.ours.p95, g.baseline.p95, g.ours.median, g.baseline.median]).filter(Number.isFinite);
  const max = niceCeil(Math.max(1, ...finite));
  // Axis and grid: five steps.
  for (let i = 0; i <= 5; i++) {
    const v = (max * i) / 5;
    const y = top + plotH - (plotH * i) / 5;
    r.rect(left, y, width - left - 20, 1, [225, 225, 225]);
    const label = `${Math.round(v)}`;
    r.text(left - 8 - Raster.textWidth(label), y - 5, label, INK);
  }
  r.text(8, top - 22, 'MS', INK);
  r.rect(left, top, 1, plotH, INK);
  const slot = (width - left - 20) / groups.length;
  const bar = Math.min(50, slot / 3);
  groups.forEach((g, i) => {
    const x = left + slot * i + slot / 2 - bar;
    for (const [k, m, color] of [[0, g.ours, OURS], [1, g.baseline, BASE]] as const) {
      const bx = x + k * bar;
      if (Number.isFinite(m.median)) {
        const h = (plotH * m.median) / max;
        r.rect(bx + 2, top + plotH - h, bar - 4, h, color);
      }
      if (Number.isFinite(m.p95)) r.rect(bx + 2, top + plotH - (plotH * m.p95) / max, bar - 4, 2, INK);
    }
    r.text(left + slot * i + slot / 2 - Raster.textWidth(g.label) / 2, top + plotH + 10, g.label, INK);
  });
  // Legend.
  const ly = height - 28;
  r.rect(left, ly, 14, 10, OURS);
  const w = r.text(left + 20, ly, 'ours (prefix cache + prefetch)', INK);
  r.rect(left + 40 + w, ly, 14, 10, BASE);
  const w2 = r.text(left + 60 + w, ly, 'baseline (both off)', INK);
  r.rect(left + 80 + w + w2, ly + 4, 14, 2, INK);
  r.text(left + 100 + w + w2, ly, 'p95', INK);
  return r.png();
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
