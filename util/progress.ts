/**
 * A one-line progress bar on stderr: redrawn in place on a terminal, printed every 10%
 * otherwise (CI logs stay short).
 */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDecile = -1;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, extra = ''): void {
    const elapsed = (Date.now() - this.started) / 1000;
    const rate = done / Math.max(elapsed, 1e-3);
    const eta = rate > 0 ? (this.total - done) / rate : 0;
    const width = 30;
    const filled = this.total === 0 ? width : Math.round((done / this.total) * width);
    const line = `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total} ${rate.toFixed(1)}/s ETA ${formatSeconds(eta)}${extra ? ' ' + extra : ''}`;
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}\x1b[K`);
      if (done === this.total) this.stream.write('\n');
      return;
    }
    const decile = this.total === 0 ? 10 : Math.floor((done / this.total) * 10);
    if (decile !== this.lastDecile) {
      this.lastDecile = decile;
      this.stream.write(line + '\n');
    }
  }
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}
