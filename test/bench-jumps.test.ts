/**
 * bench/jumps.ts reads its breakpoint and its line kinds from the real trace
 * (`ndb trace FILE --json`), not from the predicted run: checked here on two pdb-corpus dev
 * programs, whose real runs are fixed. Nothing is timed and no model is loaded.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseTrace } from '../bench/jumps.js';
import { ROOT } from './fixtures.js';

const corpus = (file: string) => join(ROOT, 'evaluation', 'pdb-corpus', file);

describe('bench/jumps.ts analyseTrace', () => {
  it('merge_sort.py: the breakpoint is the line first hit nearest 50 line events in, and call lines carry their callee lines', () => {
    const t = analyseTrace(ROOT, corpus('merge_sort.py'));
    // No line is first hit between events 42 and 133: line 10 (`j += 1`) at 41 is nearest.
    expect(t.breakpoint).toEqual({ line: 10, firstHit: 41 });
    expect(t.realLineEvents).toBe(141);
    // `ordered = merge_sort(data)` runs the whole sort; `main()` at the top level all of it.
    expect(t.callLines[27]).toBe(132);
    expect(t.callLines[33]).toBe(136);
    expect(Object.keys(t.callLines).map(Number).sort((a, b) => a - b)).toEqual([20, 21, 22, 27, 33]);
    expect(t.plainLines).toContain(26);
    expect(t.plainLines).not.toContain(27);
  });

  it('inventory.py: a class statement is neither a call line nor a plain line', () => {
    const t = analyseTrace(ROOT, corpus('inventory.py'));
    expect(t.breakpoint).toEqual({ line: 39, firstHit: 50 });
    expect(t.callLines[1]).toBeUndefined();
    expect(t.plainLines).not.toContain(1);
    // `stock = Inventory("warehouse")` enters __init__ (2 lines).
    expect(t.callLines[33]).toBe(2);
  });
});
