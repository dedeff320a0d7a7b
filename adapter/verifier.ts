/**
 * Verify mode (opt-in): the real run, recorded by the tracer, set beside the predicted one,
 * so that every predicted value that differs from the real one can be flagged.
 *
 * This is the only place the debugger runs the user's program, and only when asked. It never
 * replaces a prediction: the session shows the model's state and adds the real values where
 * they differ. The real state at a stop is where the same actions lead in the real run's
 * state tree, so a wrong prediction earlier does not shift the comparison.
 */
import type { Action, Exit, ForwardAction, State } from '../grammar/state.js';
import { truncateRepr, truncateState } from '../grammar/truncate.js';
import { StateTree } from '../state-tree/tree.js';
import { sandboxProtections, traceSource, TraceFailure, verifySandbox } from '../tracer/run-tracer.js';

/** How one predicted stop compares with the real run. */
export type Verification =
  | {
      kind: 'state';
      real: State;
      /** Whether event, line and stack match. */
      sameLocation: boolean;
      /** Locals whose predicted repr differs: name -> the real repr (undefined: no such local in the real run). */
      locals: Record<string, string | undefined>;
      /** Real locals the prediction left out. */
      missing: Record<string, string>;
      /** The real return value or exception, when it differs. */
      value?: string;
      matches: boolean;
    }
  | { kind: 'exit'; real: Exit; matches: boolean }
  | { kind: 'unavailable'; reason: string };

export class Verifier {
  private constructor(private readonly tree: StateTree) {}

  /**
   * Records the real run, in the tracer's bubblewrap sandbox (tracer/sandbox.ts; in words:
   * `sandboxProtections`); throws TraceFailure when it cannot start, and with kind `sandbox`,
   * running nothing, where this machine cannot make the sandbox (`verifySandbox` says why).
   */
  static async record(program: string, entry: { entry: string; args: string } | null): Promise<Verifier> {
    const trace = await traceSource(program, { ...(entry ?? {}), sandbox: true });
    return new Verifier(new StateTree(trace));
  }

  /** Where the real run is after `actions` from its first state: a node, or its end. */
  private replay(actions: readonly Action[]): { node: number } | { exit: Exit } | { unavailable: string } {
    if (this.tree.size === 0) return { exit: this.tree.exit };
    let node = 0;
    for (const action of actions) {
      if (action.kind.startsWith('inv_')) return { unavailable: 'the real run cannot be replayed through a backward inference' };
      const landing = this.tree.forward(node, action as ForwardAction);
      if ('exit' in landing) return landing;
      node = landing.node;
    }
    return { node };
  }

  /** The real counterpart of a predicted state reached by `actions` from the first stop. */
  checkState(predicted: State, actions: readonly Action[]): Verification {
    const at = this.replay(actions);
    if ('unavailable' in at) return { kind: 'unavailable', reason: at.unavailable };
    if ('exit' in at) return { kind: 'unavailable', reason: `the real run has already ended here (${describeExit(at.exit)})` };
    const real = truncateState(this.tree.states[at.node]!);
    const locals: Record<string, string | undefined> = {};
    for (const [name, repr] of Object.entries(predicted.locals)) if (real.locals[name] !== repr) locals[name] = real.locals[name];
    const missing: Record<string, string> = {};
    for (const [name, repr] of Object.entries(real.locals)) if (!(name in predicted.locals)) missing[name] = repr;
    const sameLocation = real.event === predicted.event && real.line === predicted.line && JSON.stringify(real.stack) === JSON.stringify(predicted.stack);
    // A value is compared only where both stops have one (a return or exception in both).
    const value = real.value !== undefined && predicted.value !== undefined && real.value !== predicted.value ? real.value : undefined;
    const matches = sameLocation && Object.keys(locals).length === 0 && Object.keys(missing).length === 0 && value === undefined;
    return { kind: 'state', real, sameLocation, locals, missing, ...(value === undefined ? {} : { value }), matches };
  }

  /** The real counterpart of a predicted end. */
  checkExit(predicted: Exit, actions: readonly Action[]): Verification {
    const at = this.replay(actions);
    if ('unavailable' in at) return { kind: 'unavailable', reason: at.unavailable };
    if ('node' in at) return { kind: 'unavailable', reason: `the real run has not ended here: it is at line ${this.tree.states[at.node]!.line}` };
    const real = 'value' in at.exit ? { ...at.exit, value: truncateRepr(at.exit.value) } : at.exit;
    return { kind: 'exit', real, matches: JSON.stringify(real) === JSON.stringify(predicted) };
  }
}

export function describeExit(exit: Exit): string {
  switch (exit.kind) {
    case 'normal':
      return `returned ${exit.value}`;
    case 'error':
      return `raised ${exit.value}`;
    case 'never':
      return 'did not end within the limits';
    case 'entry':
      return 'back at the start';
  }
}

export { sandboxProtections, TraceFailure, verifySandbox };
