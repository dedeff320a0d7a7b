/**
 * The symbolic stepper's oracle as the tests build it: the rules' questions answered by one
 * CPython walker process for the test file (it does not keep Node alive while idle).
 */
import type { Action, State } from '../grammar/state.js';
import type { ControlFlow } from '../program-analysis/control-flow.js';
import type { RunHistory } from '../semantics/history.js';
import { StepOracle } from '../semantics/oracle.js';
import { PythonSession } from '../semantics/python-session.js';
import { ALL_RULES, type RuleSelection } from '../semantics/rule.js';

let python: PythonSession | undefined;

export function oracle(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory = {}, rules: RuleSelection = ALL_RULES): Promise<StepOracle> {
  return StepOracle.build(flow, action, prev, history, rules, (python ??= new PythonSession()));
}
