/**
 * The symbolic stepper's one interface: an oracle built once per step from the control flow,
 * the action, the state before and the history, that the decoder consults. It answers where
 * the step can land, and for each frame being written (once its head and location are read)
 * the names unbound, the names that must be written, each decided local's value and a
 * return's value. Nothing of the program runs: the rules (rules/index.ts, in order of
 * precedence) decide what Python's semantics decide from the values the state shows, and what
 * needs Python's value semantics (a statement's effect, a test, a return's value) CPython's
 * own safe walker works out, asked in one batch when the oracle is built (StepOracle.build).
 */
import type { Action, State } from '../grammar/state.js';
import { MAX_LOCALS, truncateRepr } from '../grammar/truncate.js';
import type { ControlFlow, Landing } from '../program-analysis/control-flow.js';
import type { Decided, FrameAnswer } from './facts.js';
import type { RunHistory } from './history.js';
import { ALL_RULES, type Rule, type RuleSelection } from './rule.js';
import type { PythonSession, SessionResult } from './python-session.js';
import { RULES } from './rules/index.js';
import { type FrameAt, type Question, Step } from './step.js';

const NO_NAMES: ReadonlySet<string> = new Set();

export class StepOracle {
  readonly step: Step;
  private readonly rules: readonly Rule[];
  private readonly frames = new Map<string, FrameAnswer>();

  /**
   * @param selection the rule families on (`--rules`); `control-flow` alone (or none of the
   * value families) leaves every value to the model.
   */
  /** An oracle whose rules have asked Python nothing: use build() to decode a step. */
  constructor(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory = {}, selection: RuleSelection = ALL_RULES) {
    this.step = new Step(flow, action, prev, history);
    this.rules = RULES.filter((r) => selection.has(r.family));
  }

  /**
   * The oracle for one step, with the rules' questions answered by CPython's walker in one
   * batch (`python`; null: none asked, so the rules that need Python decide nothing).
   */
  static async build(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory = {}, selection: RuleSelection = ALL_RULES, python: PythonSession | null = null): Promise<StepOracle> {
    const oracle = new StepOracle(flow, action, prev, history, selection);
    const questions = new Map<string, Question>();
    for (const rule of oracle.rules) for (const q of rule.ask?.(oracle.step) ?? []) questions.set(q.key, q);
    if (python && questions.size > 0) {
      const asked = [...questions.values()];
      const results = await python.batch(asked.map((q) => q.request));
      oracle.step.answered(new Map<string, SessionResult>(asked.map((q, i) => [q.key, results[i]!])));
    }
    return oracle;
  }

  /** Where the step can land: the control flow's landing, narrowed by the rules. */
  landing(): Landing {
    const { flow, action, prev } = this.step;
    return this.rules.reduce((landing, rule) => (rule.landing ? rule.landing(this.step, landing) : landing), flow.landing(action, prev));
  }

  /** What the stepper decides of the frame written at `at` (worked out once per frame). */
  frame(at: FrameAt): FrameAnswer {
    const key = `${at.event} ${at.line} ${at.bare} ${at.function ?? ''}`;
    let answer = this.frames.get(key);
    if (!answer) this.frames.set(key, (answer = this.decide(at)));
    return answer;
  }

  private decide(at: FrameAt): FrameAnswer {
    const values = new Map<string, Decided>();
    const unbound = new Set<string>();
    let returns: FrameAnswer['returns'];
    for (const rule of this.rules) {
      const found = rule.frame?.(this.step, at);
      if (!found) continue;
      for (const [name, fact] of Object.entries(found.values ?? {})) if (!values.has(name)) values.set(name, { ...fact, rule: rule.name });
      for (const name of found.unbound ?? []) unbound.add(name);
      if (!returns && found.returns) returns = { reprs: found.returns, rule: rule.name };
    }
    return {
      unbound: unbound.size > 0 ? unbound : NO_NAMES,
      mustWrite: this.mustWrite(at, values),
      value: (name) => values.get(name),
      returns,
    };
  }

  /**
   * Names the step surely bound that the state before lacks or held with another value, so
   * that the locals written (a delta too) must show them: a line that assigns a literal or a
   * value the state decides, a loop's targets entering its body, the name a callee's return
   * value is assigned to, a comprehension's free variables on its call. Not where the frame
   * is near the cap on locals (a truncated frame keeps only its first names).
   */
  private mustWrite(at: FrameAt, values: ReadonlyMap<string, Decided>): readonly string[] {
    const { prev, history } = this.step;
    const names = [...values].filter(([, fact]) => fact.binds).map(([name]) => name);
    if (!prev || names.length === 0) return [];
    // The same frame: a name it held before is written only where its value changed (a delta
    // keeps the rest), so it is required only where every value it may now hold differs.
    if (at.bare) return Object.keys(prev.locals).length >= MAX_LOCALS - 2 ? [] : names.filter((n) => mustChange(prev.locals[n], values.get(n)!));
    // A new comprehension's frame holds only these; the caller a callee returned to, what its state on the call line showed and the name the line binds.
    const { caller } = history;
    const held = at.event === 'call' ? names.length : caller && caller.line === prev.stack[prev.stack.length - 2]?.line ? Object.keys(caller.locals).length + 1 : undefined;
    return held === undefined || held >= MAX_LOCALS - 2 ? [] : names;
  }
}

/** Whether a name that held `before` (undefined: unbound) must be written: every value the step decides for it differs. */
function mustChange(before: string | undefined, fact: Decided): boolean {
  if (before === undefined) return true;
  if (fact.kind === 'exact') return truncateRepr(fact.repr) !== before;
  return fact.kind === 'one_of' && fact.reprs.every((v) => truncateRepr(v) !== before);
}
