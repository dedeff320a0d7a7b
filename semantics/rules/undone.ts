/**
 * Stepping back over a line that only adds to a name (`i += 1`, `s = s + c`, `xs += [x]`), the
 * value the name held before: the value after, less what was added, where the state after
 * shows both (the added part must not read the name). An int less the int added; a str, list
 * or tuple without the suffix added (an int after may have been a bool before, `b += 1` with b
 * True: a case left to this rule's reading, 1, as no program we trace does it). The line
 * binds nothing else, so the added part reads the same values before and after; had the line
 * raised, the landing would be no line of this frame after it, or the added part would raise
 * on these values too.
 */
import type { TestExpr } from '../../program-analysis/control-flow.js';
import { evaluate, someExpr } from '../expr-eval.js';
import { type PyValue, pyRepr, reprValue } from '../repr-value.js';
import type { Rule } from '../rule.js';

export const undone: Rule = {
  name: 'undone',
  family: 'assign',
  frame(step, at) {
    const { flow, prev } = step;
    if (!step.inverse || !step.byCode || !step.fromStatementLine || !at.bare || at.event !== 'line') return undefined;
    const line = flow.assigned.get(at.line);
    const v = line?.value;
    if (!line || line.also || line.when || step.unstable(line.name) || !v || !('binary' in v) || (v.binary !== '+' && v.binary !== '-')) return undefined;
    const [self, added] = v.operands as [TestExpr, TestExpr];
    if (!('name' in self) || self.name !== line.name || someExpr(added, (x) => 'name' in x && x.name === line.name)) return undefined;
    const after = prev!.locals[line.name];
    const now = after === undefined ? undefined : reprValue(after);
    const part = evaluate(added, prev!.locals, flow.pure);
    const before = now && part && undoAdd(v.binary, now, part);
    const repr = before && pyRepr(before);
    return repr === undefined ? undefined : { values: { [line.name]: { kind: 'exact', repr } } };
  },
};

/** The value `x` with `x OP part` equal to `after`: ints exactly (not floats: rounding), sequences by their suffix. */
function undoAdd(op: string, after: PyValue, part: PyValue): PyValue | undefined {
  const isInt = (v: PyValue) => v.type === 'int' || v.type === 'bool';
  if (after.type === 'int' && isInt(part)) {
    const n = part.type === 'int' ? part.value : part.type === 'bool' && part.value ? 1n : 0n;
    return { type: 'int', value: op === '+' ? after.value - n : after.value + n };
  }
  if (op !== '+') return undefined;
  if (after.type === 'str' && part.type === 'str') {
    const k = after.chars.length - part.chars.length;
    return k >= 0 && part.chars.every((c, i) => after.chars[k + i] === c) ? { type: 'str', chars: after.chars.slice(0, k) } : undefined;
  }
  if ((after.type === 'list' && part.type === 'list') || (after.type === 'tuple' && part.type === 'tuple')) {
    const k = after.items.length - part.items.length;
    return k >= 0 && part.items.every((x, i) => pyRepr(after.items[k + i]!) === pyRepr(x) && pyRepr(x) !== undefined) ? { type: after.type, items: after.items.slice(0, k) } : undefined;
  }
  return undefined;
}
