/**
 * Does confidence mean something: predictions grouped by the confidence shown, and how often
 * each group is right. Used by `ndb eval cruxeval` (an output's or input's confidence) and
 * `ndb eval states` (each value the model wrote in a next state).
 */

/** One shown confidence and whether what it was shown for is right. */
export interface ConfidencePoint {
  /** Undefined: nothing was shown (no prediction); such points are left out of every band. */
  confidence?: number;
  right: boolean;
}

export interface CalibrationBand {
  /** The band's lower bound: a prediction shown at `from` or more (and below the next band's). */
  from: number;
  predictions: number;
  passed: number;
  /** The mean confidence shown in the band (null when empty): above passed / predictions, it overstates. */
  meanConfidence: number | null;
}

/** 90%+, 50-90%, below 50%. */
export const BANDS = [0.9, 0.5, 0] as const;

export function calibration(points: readonly ConfidencePoint[]): CalibrationBand[] {
  return BANDS.map((from, i) => {
    const to = i === 0 ? Infinity : BANDS[i - 1]!;
    const inBand = points.filter((p) => p.confidence !== undefined && p.confidence >= from && p.confidence < to);
    const meanConfidence = inBand.length === 0 ? null : inBand.reduce((s, p) => s + p.confidence!, 0) / inBand.length;
    return { from, predictions: inBand.length, passed: inBand.filter((p) => p.right).length, meanConfidence };
  });
}

/** `12.5%`, or `—` for no share. */
export const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);

/** `90%+: 12 predictions, 75.0% right (shown 96.1% on average); ...` */
export function formatCalibration(bands: readonly CalibrationBand[]): string {
  return bands
    .map((b, i) => {
      const band = i === 0 ? `${b.from * 100}%+` : `${b.from * 100}-${BANDS[i - 1]! * 100}%`;
      const shown = b.meanConfidence === null ? '' : ` (shown ${pct(b.meanConfidence)} on average)`;
      return `${band}: ${b.predictions} predictions, ${pct(b.predictions === 0 ? null : b.passed / b.predictions)} right${shown}`;
    })
    .join('; ');
}

