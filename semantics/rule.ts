/**
 * A rule of the symbolic stepper: one thing Python's semantics decide about a step from the
 * state before, nothing run. A rule may narrow where the step lands (control flow) and, for a
 * frame being written, decide some locals' values, names the frame cannot hold, and a
 * return's value. What needs Python's value semantics it asks CPython's walker first (`ask`). Rules are listed in rules/index.ts, whose order is their precedence: a
 * local's value is the first rule's that decides it.
 */
import type { Landing } from '../program-analysis/control-flow.js';
import type { ValueFact } from './facts.js';
import type { FrameAt, Question, Step } from './step.js';

/**
 * The families an ablation turns on or off (`--rules`). `control-flow` is the base the others
 * stand on: lines by frame and where an action lands, from the bytecode (program-analysis/).
 */
export const RULE_FAMILIES = ['control-flow', 'branch', 'loop', 'comprehension', 'assign', 'call', 'return', 'keep', 'unbound', 'type'] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];

/** What one rule decides of a frame being written. */
export interface RuleFrame {
  /** Locals' values; `binds`: the step surely bound the name to it. */
  values?: Readonly<Record<string, ValueFact & { binds?: boolean }>>;
  /** Names the frame cannot hold. */
  unbound?: Iterable<string>;
  /** A return event's value: one of these reprs. */
  returns?: readonly string[];
}

export interface Rule {
  /** Its file's name in rules/: what a decided value says it came from. */
  readonly name: string;
  readonly family: Exclude<RuleFamily, 'control-flow'>;
  /**
   * The values this rule needs CPython's walker to work out, on the state before: asked in one
   * batch before the step is decoded (nothing of the program runs), read back by key.
   */
  ask?(step: Step): readonly Question[];
  /** Where the step can land, narrowed from `landing`. */
  landing?(step: Step, landing: Landing): Landing;
  /** What the rule decides of the frame written at `at` (undefined: nothing). */
  frame?(step: Step, at: FrameAt): RuleFrame | undefined;
}

/** Which families are on: all of them, none (the grammar alone), or a list. */
export type RuleSelection = ReadonlySet<RuleFamily>;
export const ALL_RULES: RuleSelection = new Set(RULE_FAMILIES);
export const NO_RULES: RuleSelection = new Set();

/**
 * `all`, `none`, or a comma-separated list of families (`control-flow,branch`); a value
 * family needs the control flow, which it brings along. Throws with the families' names on
 * an unknown one.
 */
export function parseRuleSelection(text: string): RuleSelection {
  const t = text.trim();
  if (t === 'all') return ALL_RULES;
  if (t === 'none') return NO_RULES;
  const out = new Set<RuleFamily>();
  for (const word of t.split(',').map((w) => w.trim()).filter((w) => w !== '')) {
    if (!(RULE_FAMILIES as readonly string[]).includes(word)) throw new Error(`unknown rule family "${word}": use all, none, or a comma-separated list of ${RULE_FAMILIES.join(', ')}`);
    out.add(word as RuleFamily);
  }
  if (out.size === 0) throw new Error(`no rule family given: use all, none, or a comma-separated list of ${RULE_FAMILIES.join(', ')}`);
  if (out.size > 0) out.add('control-flow');
  return out;
}

/** The selection as `--rules` takes it. */
export function ruleSelectionText(rules: RuleSelection): string {
  if (rules.size === 0) return 'none';
  if (RULE_FAMILIES.every((f) => rules.has(f))) return 'all';
  return RULE_FAMILIES.filter((f) => rules.has(f)).join(',');
}
