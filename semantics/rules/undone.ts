/**
 * Stepping back over a line that only adds to a name (`i += 1`, `s = s + c`, `xs += [x]`), the
 * value the name held before: the value after, less what was added, where the state after
 * shows both (the added part must not read the name). An int less the int added; a str, list
 * or tuple without the suffix added (an int after may have been a bool before, `b += 1` with b
 * True: a case left to this rule's reading, 1, as no program we trace does it). The line
 * binds nothing else, so the added part reads the same values before and after; had the line
 * raised, the landing would be no line of this frame after it, or the added part would raise
 * on these values too. CPython's walker works it out (UNDO), on the state after.
 */
import { reprItems } from '../repr-items.js';
import type { Rule } from '../rule.js';
import type { Question } from '../step.js';

/** The value before `a = a OP p` as a 1-tuple, or `()` where the values cannot be undone exactly. */
const UNDO: Readonly<Record<'+' | '-', string>> = {
  '+':
    '(lambda a, p: (a - p,) if isinstance(a, int) and not isinstance(a, bool) and isinstance(p, int) else ' +
    '((a[:len(a) - len(p)],) if ((isinstance(a, str) and isinstance(p, str)) or (isinstance(a, list) and isinstance(p, list)) ' +
    'or (isinstance(a, tuple) and isinstance(p, tuple))) and len(p) <= len(a) and a[len(a) - len(p):] == p else ()))',
  '-': '(lambda a, p: (a + p,) if isinstance(a, int) and not isinstance(a, bool) and isinstance(p, int) else ())',
};
/** The name the state after's value is bound to in the question (no program name starts so). */
const AFTER = 'ndb_value_after';

export const undone: Rule = {
  name: 'undone',
  family: 'assign',
  ask(step) {
    const { flow, prev } = step;
    if (!step.inverse || !step.byCode || !step.fromStatementLine) return [];
    // The lines a step back from here can land on: those the frame's flow leads from to this one.
    const before = flow.frames.get(step.prevFunction!)?.prev.get(prev!.line) ?? [];
    const out: Question[] = [];
    for (const line of before) {
      const undo = flow.statements.get(line)?.undo;
      const after = undo && prev!.locals[undo.name];
      if (!undo || after === undefined || step.unstable(undo.name)) continue;
      out.push(step.evaluate(`undo ${line}`, `${UNDO[undo.op]}(${AFTER}, (${undo.part}))`, { ...prev!.locals, [AFTER]: after }));
    }
    return out;
  },
  frame(step, at) {
    if (!step.inverse || !at.bare || at.event !== 'line') return undefined;
    const undo = step.flow.statements.get(at.line)?.undo;
    const shown = step.value(`undo ${at.line}`);
    const before = shown === undefined ? undefined : reprItems(shown);
    if (!undo || !before?.complete || before.items.length !== 1) return undefined;
    return { values: { [undo.name]: { kind: 'exact', repr: before.items[0]! } } };
  },
};
