/**
 * The Variables view of a neural debugging session: DAP scopes and variables for the
 * runtime's current stop (adapter/debug-session.ts answers the requests with them).
 *
 * What a real debugger shows plus what only a predicted state has:
 * - each value's confidence, in the `type` field (`list · 93%`), where VS Code shows it on
 *   hover (and beside the value with `debug.showVariableTypes`) without touching the value
 *   itself, which the user copies and edits; a value the symbolic stepper decided says so
 *   instead, with its rule (`int · decided: assigned`): Python's semantics, not a guess;
 * - in verify mode, the real value beside a differing one (`3   ≠ real 4`), and the real
 *   locals the prediction left out;
 * - containers expanded from their repr text (python-values.ts): the values never existed as
 *   objects, so their children come from parsing what the model wrote.
 *
 * A variablesReference is a handle into this view; handles are dropped at every stop.
 */
import { Handles, Scope } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Exit } from '../grammar/state.js';
import { MAX_LOCALS, MAX_REPR_CHARS, MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { childCount, parsePyValue, type PyValue, typeName } from './python-values.js';
import type { FrameView, NeuralRuntime } from './runtime.js';
import type { Stop } from './timeline.js';
import type { Verification } from './verifier.js';

/** What a variablesReference stands for. `frame` is the runtime's frame id (0: innermost). */
export type VariableContainer =
  | { kind: 'locals'; frame: number }
  | { kind: 'end' }
  | { kind: 'children'; value: PyValue; evaluateName?: string };

/** The names under which the current stop's value and the run's end appear. */
export const RETURN_NAME = '(return)';
export const EXCEPTION_NAME = '(exception)';

const ORIGIN_LABEL: Record<Stop['origin'], string> = {
  model: 'predicted',
  input: 'from your arguments',
  tracer: 'real run',
};

/** Where a shown value came from, as the `type` field says it. */
export type Provenance = { kind: 'model'; confidence: number } | { kind: 'decided'; rule: string } | { kind: 'input' } | { kind: 'tracer' } | { kind: 'edited' } | { kind: 'unknown' };

/** Gap between a predicted value and the real one in verify mode; wide enough to read as a column. */
const REAL_GAP = '   ';

export class VariablesView {
  private handles = new Handles<VariableContainer>();
  /** debugpy's showReturnValue: "(return) f" among the locals after a call returned. */
  showReturnValue = true;

  constructor(private readonly runtime: NeuralRuntime) {}

  /** Forgets every handle: the stop changed, so what they pointed at is gone. */
  reset(): void {
    this.handles.reset();
  }

  container(reference: number): VariableContainer | undefined {
    return this.handles.get(reference);
  }

  // ---- scopes ----------------------------------------------------------------------------

  scopes(frame: FrameView): DebugProtocol.Scope[] {
    const scopes: DebugProtocol.Scope[] = [];
    if (frame.id === 0 && this.runtime.ended) scopes.push(scope('End of the run (predicted)', this.handles.create({ kind: 'end' })));
    scopes.push(this.localsScope(frame));
    // debugpy's Globals: in a function called from the module's top level, the module's variables as last seen there.
    const frames = this.runtime.frames();
    const module = frames.at(-1);
    if (module && module.id !== frame.id && module.function === '<module>' && module.locals) {
      scopes.push({ ...new Scope('Globals (last seen)', this.handles.create({ kind: 'locals', frame: module.id }), false) });
    }
    return scopes;
  }

  private localsScope(frame: FrameView): DebugProtocol.Scope {
    if (frame.id === 0) {
      const stop = this.runtime.current!;
      // The user's input with nothing in it (a module, a call without arguments) is just the start.
      const label = stop.origin === 'input' && Object.keys(stop.state.locals).length === 0 ? 'the start of the run' : ORIGIN_LABEL[stop.origin];
      return scope(`Locals (${label}${verifyNote(this.stateVerification())})`, this.handles.create({ kind: 'locals', frame: 0 }));
    }
    // A caller's locals are those of the last stop inside it: they may have changed since.
    if (!frame.locals) return scope('Locals (not seen yet)', 0);
    return scope('Locals (last seen)', this.handles.create({ kind: 'locals', frame: frame.id }));
  }

  // ---- variables -------------------------------------------------------------------------

  variables(container: VariableContainer): DebugProtocol.Variable[] {
    switch (container.kind) {
      case 'locals':
        return container.frame === 0 ? this.currentLocals() : this.callerLocals(container.frame);
      case 'end':
        return this.endVariables();
      case 'children':
        return this.children(container.value, container.evaluateName);
    }
  }

  /** The current stop's value (return, exception), its locals, and in verify mode the real ones it lacks. */
  private currentLocals(): DebugProtocol.Variable[] {
    const stop = this.runtime.current!;
    const { state } = stop;
    const v = this.stateVerification();
    const vars: DebugProtocol.Variable[] = [];
    // debugpy's "(return) f": the value of the call the stop just came back from.
    const returned = this.showReturnValue ? this.runtime.returnedFrom() : null;
    if (returned) vars.push({ ...this.variable(`${RETURN_NAME} ${returned.function}`, returned.value, { kind: 'unknown' }), presentationHint: { kind: 'virtual', attributes: ['readOnly'] } });
    if (state.value !== undefined) {
      const name = state.event === 'exception' ? EXCEPTION_NAME : RETURN_NAME;
      const decided = stop.origin === 'model' ? stop.confidence.decided?.value : undefined;
      const provenance: Provenance = decided ? { kind: 'decided', rule: decided } : stop.origin === 'model' ? { kind: 'model', confidence: stop.confidence.value ?? 1 } : { kind: stop.origin };
      vars.push({ ...this.variable(name, state.value, provenance, v && v.value !== undefined ? v.value : undefined), presentationHint: { kind: 'virtual', attributes: ['readOnly'] } });
    }
    for (const [name, repr] of Object.entries(state.locals)) {
      if (name === MORE_LOCALS_KEY) {
        vars.push(moreLocals(repr));
        continue;
      }
      const real = v && name in v.locals ? (v.locals[name] ?? null) : undefined;
      vars.push(this.variable(name, repr, this.localProvenance(name), real, name));
    }
    for (const [name, real] of Object.entries(v?.missing ?? {})) vars.push(missingLocal(name, real));
    return vars;
  }

  private callerLocals(frameId: number): DebugProtocol.Variable[] {
    const frame = this.runtime.frames().find((f) => f.id === frameId);
    return Object.entries(frame?.locals ?? {}).map(([name, repr]) => {
      if (name === MORE_LOCALS_KEY) return moreLocals(repr);
      const v = this.variable(name, repr, { kind: 'unknown' }, undefined, name);
      return { ...v, type: joinType(v.type, 'last seen'), presentationHint: { attributes: ['readOnly'] } };
    });
  }

  private endVariables(): DebugProtocol.Variable[] {
    const end = this.runtime.ended;
    if (!end) return [];
    const v = this.runtime.verification();
    const real = v?.kind === 'exit' && !v.matches ? exitText(v.real) : undefined;
    const provenance: Provenance = end.origin === 'model' ? { kind: 'model', confidence: end.confidence.value ?? end.confidence.kind } : { kind: end.origin };
    const { exit } = end;
    const shown =
      exit.kind === 'normal' || exit.kind === 'error'
        ? this.variable(exit.kind === 'normal' ? '(returned)' : '(raised)', exit.value, provenance, real)
        : { name: '(run)', value: real === undefined ? exitText(exit) : `${exitText(exit)}${REAL_GAP}≠ real ${real}`, variablesReference: 0 };
    return [{ ...shown, presentationHint: { kind: 'virtual', attributes: ['readOnly'] } }];
  }

  private children(value: PyValue, evaluateName: string | undefined): DebugProtocol.Variable[] {
    if (value.kind === 'atom') return [];
    const vars: DebugProtocol.Variable[] = value.children.map(({ name, value: child }) => {
      // A set's items have no expression that reaches them.
      const childName = evaluateName !== undefined && value.kind !== 'set' ? `${evaluateName}[${name}]` : undefined;
      const type = typeName(child);
      return {
        name,
        value: child.text,
        ...(type ? { type } : {}),
        variablesReference: this.expandable(child, childName),
        ...(childName ? { evaluateName: childName } : {}),
        // Only a whole local can be set (setVariable): an item is part of its repr.
        presentationHint: { attributes: ['readOnly'] },
      } satisfies DebugProtocol.Variable;
    });
    if (value.truncated) {
      vars.push({ name: '…', value: `more not shown: the model writes at most ${MAX_REPR_CHARS} characters of a value`, variablesReference: 0, presentationHint: { kind: 'virtual', attributes: ['readOnly'] } });
    }
    return vars;
  }

  /**
   * One shown value. `real`: in verify mode, the real repr when it differs (null: the real
   * run has no such local); undefined when there is nothing to flag.
   */
  variable(name: string, repr: string, provenance: Provenance, real?: string | null, evaluateName?: string): DebugProtocol.Variable {
    const parsed = parsePyValue(repr);
    const flagged = real === undefined ? repr : `${repr}${REAL_GAP}≠ real ${real ?? '(no such variable)'}`;
    const type = joinType(typeName(parsed), provenanceLabel(provenance));
    return {
      name,
      value: flagged,
      ...(type ? { type } : {}),
      variablesReference: this.expandable(parsed, evaluateName),
      ...(evaluateName ? { evaluateName } : {}),
    };
  }

  /** A handle for a value with children to show, 0 for one without. */
  expandable(value: PyValue, evaluateName?: string): number {
    if (value.kind === 'atom' || (childCount(value) === 0 && !value.truncated)) return 0;
    return this.handles.create({ kind: 'children', value, ...(evaluateName ? { evaluateName } : {}) });
  }

  // ---- confidence and verification ---------------------------------------------------------

  /**
   * Where the current value of a local came from. A predicted frame that only restates its
   * predecessor's locals (a delta) carries confidences for the locals it changed alone; an
   * unchanged one is as sure as where it was last written, so walk back through the stops
   * of the same frame to find it.
   */
  localProvenance(name: string): Provenance {
    const stops = this.runtime.timeline.stops;
    const here = this.runtime.current!;
    const frame = here.state.stack.map((f) => f.function).join(' ');
    for (let i = stops.indexOf(here); i >= 0; i--) {
      const stop = stops[i]!;
      if (stop.state.stack.map((f) => f.function).join(' ') !== frame) break;
      if (stop.edited.includes(name)) return { kind: 'edited' };
      const confidence = stop.confidence.locals[name];
      if (confidence === undefined) continue;
      const rule = stop.origin === 'model' ? stop.confidence.decided?.locals[name] : undefined;
      if (rule) return { kind: 'decided', rule };
      return stop.origin === 'model' ? { kind: 'model', confidence } : { kind: stop.origin };
    }
    return { kind: 'unknown' };
  }

  /** Verify mode's comparison of the current stop, when there is one to show. */
  private stateVerification(): Extract<Verification, { kind: 'state' }> | null {
    if (this.runtime.ended) return null;
    const v = this.runtime.verification();
    return v?.kind === 'state' ? v : null;
  }
}

function scope(name: string, reference: number): DebugProtocol.Scope {
  return { ...new Scope(name, reference, false), presentationHint: 'locals' };
}

function verifyNote(v: Extract<Verification, { kind: 'state' }> | null): string {
  if (!v) return '';
  if (v.matches) return ', matches the real run';
  if (!v.sameLocation) return `, ≠ real run: it is at line ${v.real.line}`;
  return ', ≠ real run';
}

function moreLocals(count: string): DebugProtocol.Variable {
  return { name: '…', value: `${count.replace(/^\+/, '')} more locals not shown (a state holds at most ${MAX_LOCALS})`, variablesReference: 0, presentationHint: { kind: 'virtual', attributes: ['readOnly'] } };
}

function missingLocal(name: string, real: string): DebugProtocol.Variable {
  return { name, value: `(not predicted)${REAL_GAP}real ${real}`, type: 'missing from the prediction', variablesReference: 0, presentationHint: { attributes: ['readOnly'] } };
}

export function provenanceLabel(p: Provenance): string | undefined {
  switch (p.kind) {
    case 'model':
      return percent(p.confidence);
    case 'decided':
      return `decided: ${p.rule}`;
    case 'input':
      return 'from your arguments';
    case 'tracer':
      return 'real run';
    case 'edited':
      return 'set by you';
    case 'unknown':
      return undefined;
  }
}

/** 0.934 → `93%`; never `100%` for a guess, never `0%` for a value the model did write. */
function percent(p: number): string {
  if (p >= 1) return '100%';
  if (p >= 0.995) return '>99%';
  if (p < 0.01) return '<1%';
  return `${Math.round(p * 100)}%`;
}

function joinType(...parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((p): p is string => !!p);
  return kept.length ? kept.join(' · ') : undefined;
}

function exitText(exit: Exit): string {
  switch (exit.kind) {
    case 'normal':
    case 'error':
      return exit.value;
    case 'never':
      return 'did not end within the limits';
    case 'entry':
      return 'back at the start';
  }
}
