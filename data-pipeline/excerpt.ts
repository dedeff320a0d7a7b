/**
 * Cutting a big real module down to the functions one trace touched (reference §2: "the
 * trace is cut to that call's scope"). The excerpt becomes the trajectory's program and
 * every line number is renumbered to point into it, so a model sees a short, consistent
 * context instead of a thousand-line file.
 */
import type { Trace } from '../tracer/events.js';

/** Written between two non-adjacent pieces of the original file. */
export const EXCERPT_GAP = '# ...';

export function excerptTrace(trace: Trace, ranges: readonly (readonly [number, number])[]): Trace {
  const lines: string[] = [];
  const renumber = new Map<number, number>();
  let lastEnd: number | undefined;
  for (const [start, end] of ranges) {
    if (lastEnd !== undefined && start > lastEnd + 1) lines.push(EXCERPT_GAP);
    for (let n = start; n <= end; n++) {
      lines.push(trace.lines[n - 1] ?? '');
      renumber.set(n, lines.length);
    }
    lastEnd = end;
  }
  const map = (line: number): number => {
    const to = renumber.get(line);
    if (to === undefined) throw new Error(`line ${line} lies outside the excerpt`);
    return to;
  };
  const events = trace.events.map((e) => ({
    ...e,
    line: map(e.line),
    stack: e.stack.map((f) => ({ ...f, line: map(f.line) })),
  }));
  return { ...trace, program: lines.join('\n') + '\n', lines, events };
}
