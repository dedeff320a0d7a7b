/**
 * Soundness of the control-flow constraint against a real run: every state the state tree's
 * moves reach (state-tree/tree.ts), written as the model would write it, must pass the frame
 * constraint with the program's control flow (program-analysis/control-flow.ts). Used by `ndb eval states` (impossibleMove: the
 * impossible stops it counts) and by test/control-flow.test.ts (checkTree on every move of
 * real runs; NDB_SOUNDNESS_PROGRAMS=N runs the README's figure).
 */
import { serializeExit, serializeFrame } from '../grammar/serialize.js';
import type { Action, Exit, State } from '../grammar/state.js';
import { TOKEN_PATTERN, TOKENS } from '../grammar/tokens.js';
import { truncateRepr, truncateState } from '../grammar/truncate.js';
import { StateTree } from '../state-tree/tree.js';
import type { ControlFlow } from '../program-analysis/control-flow.js';
import { FrameConstraint, type FrameRules } from '../model-client/frame-constraint.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { callerOnCallLine, entryState, frameStates, type RunHistory } from '../semantics/history.js';
import { StepOracle } from '../semantics/oracle.js';
import { PythonSession } from '../semantics/python-session.js';
import { ALL_RULES } from '../semantics/rule.js';

let python: PythonSession | undefined;
/** One walker process for every check of this process (it does not keep Node alive while idle). */
function stepperPython(): PythonSession {
  return (python ??= new PythonSession());
}

/** Feeds a frame's text: each special token alone, each payload whole. */
export function feedText(c: FrameConstraint, text: string): boolean {
  const encoder = new TextEncoder();
  let last = 0;
  for (const m of text.matchAll(TOKEN_PATTERN)) {
    if (m.index > last && !c.pushBytes(encoder.encode(text.slice(last, m.index)))) return false;
    if (!c.pushSpecial(m[0])) return false;
    last = m.index + m[0].length;
  }
  return last === text.length || c.pushBytes(encoder.encode(text.slice(last)));
}

export interface Refusal {
  action: Action;
  prev: State;
  text: string;
}

export interface CheckResult {
  checked: number;
  refused: Refusal[];
}

function frameText(direction: 'forward' | 'inverse', landing: { state: State } | { exit: Exit }, prev: State, action: Action): string {
  if ('exit' in landing) return serializeExit(landing.exit) + TOKENS.traceEnd;
  return serializeFrame(direction, landing.state, prev, action) + TOKENS.actionSep;
}

/** A program's control flow with what the frame constraint reads beside it. */
export interface ProgramFlow {
  flow: ControlFlow;
  lines: readonly string[];
  names: FrameNames;
}

/**
 * Whether `action` from `prevRaw` can land on `landing` as the control-flow constraint sees
 * it (both written as training data is, truncated); the frame text when it cannot.
 */
export async function impossibleMove(program: ProgramFlow, direction: 'forward' | 'inverse', prevRaw: State, action: Action, landing: { state: State } | { exit: Exit }, history: RunHistory = {}): Promise<string | null> {
  const prev = truncateState(prevRaw);
  const land = 'exit' in landing ? { exit: 'value' in landing.exit ? { ...landing.exit, value: truncateRepr(landing.exit.value) } : landing.exit } : { state: truncateState(landing.state) };
  const text = frameText(direction, land, prev, action);
  const { flow, lines, names } = program;
  // The history as the model sees it, values truncated: of the frame's states the rules read
  // the lines and events, and the locals of the oldest (the frame's call).
  const frame = history.frameStates;
  const seen: RunHistory = {
    ...(history.caller ? { caller: truncateState(history.caller) } : {}),
    ...(frame ? { frameStates: frame.length === 0 ? frame : [...frame.slice(0, -1), truncateState(frame[frame.length - 1]!)] } : {}),
    ...(history.entry ? { entry: truncateState(history.entry) } : {}),
  };
  const oracle = await StepOracle.build(flow, action, prev, seen, ALL_RULES, stepperPython());
  const rules: FrameRules = { action, lines, names, prevFunction: prev.stack[prev.stack.length - 1]!.function, oracle };
  const c = new FrameConstraint(rules);
  return feedText(c, text) && c.done ? null : text;
}

/** Checks every forward and inverse move from every state of one run. */
export async function checkTree(tree: StateTree, flow: ControlFlow, lines: readonly string[]): Promise<CheckResult> {
  const program: ProgramFlow = { flow, lines, names: FrameNames.ofProgram(lines) };
  const refused: Refusal[] = [];
  let checked = 0;
  const check = async (direction: 'forward' | 'inverse', prev: State, action: Action, landing: { state: State } | { exit: Exit }, history?: RunHistory) => {
    checked++;
    const text = await impossibleMove(program, direction, prev, action, landing, history);
    if (text !== null) refused.push({ action, prev: truncateState(prev), text });
  };
  const forward: Action[] = [{ kind: 'step_into' }, { kind: 'step_over' }, { kind: 'step_return' }, { kind: 'continue' }];
  const run = tree.states.map((state) => ({ state, action: forward[0]! }));
  for (let i = 0; i < tree.size; i++) {
    const prev = tree.states[i]!;
    const actions = [...forward];
    // A breakpoint on a line the run reaches later.
    const later = tree.states.slice(i + 1).find((s) => s.event === 'line');
    if (later) actions.push({ kind: 'breakpoint', line: later.line, source: later.source });
    // The run in order: each state's caller on its call line and its frame's state before, as a history of steps shows them.
    const history = { caller: callerOnCallLine(run, i), frameStates: frameStates(run, i), entry: entryState(run, i) };
    for (const action of actions) {
      const l = tree.move(i, action);
      await check('forward', prev, action, 'node' in l ? { state: tree.states[l.node]! } : l, history);
    }
  }
  const inverse: Action[] = [{ kind: 'inv_step_into' }, { kind: 'inv_step_over' }, { kind: 'inv_step_call' }];
  for (let p = 0; p < tree.inverse.length; p++) {
    const prev = tree.inverse[p]!.state;
    for (const action of inverse) {
      const l = tree.move(p, action);
      await check('inverse', prev, action, 'node' in l ? { state: tree.inverse[l.node]!.state } : l);
    }
  }
  return { checked, refused };
}
