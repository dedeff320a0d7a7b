/**
 * The state tree of one recorded run and the debugger actions as moves on it
 * (reference §3). Forward nodes are the trace's events in order; a node's depth is its
 * call-stack depth, so the events of a callee are the children of the line that called it.
 *
 * The inverse tree reverses the order. Each line that made a call is duplicated as a
 * `line_call` node placed, in inverse order, just before the callee's (reversed) states:
 * from the line after a call, stepping back lands on the `line_call` node; from there
 * `inv_step_into` enters the callee at its return and `inv_step_over` goes on to the line
 * itself, as it was before the call.
 */
import type { Action, Exit, ForwardAction, InverseAction, State } from '../grammar/state.js';
import type { Trace, TraceEvent } from '../tracer/events.js';

/** Where a move lands: a node index, or the end of the run (forward exit / inverse entry). */
export type Landing = { node: number } | { exit: Exit };

export interface InverseNode {
  state: State;
  depth: number;
  /** The forward node this one shows (for a `line_call`, the line that made the call). */
  forward: number;
}

export function stateOfEvent(e: TraceEvent, lines: readonly string[]): State {
  return {
    event: e.event,
    line: e.line,
    source: lines[e.line - 1] ?? '',
    stack: e.stack,
    locals: e.locals,
    ...(e.value === undefined ? {} : { value: e.value }),
  };
}

export function exitOfTrace(trace: Trace): Exit {
  const { exit, value } = trace.exit;
  if (exit === 'never') return { kind: 'never' };
  return { kind: exit, value: value ?? 'None' };
}

export class StateTree {
  readonly states: State[];
  readonly depths: number[];
  readonly exit: Exit;
  readonly inverse: InverseNode[];
  /** forward node index -> its position in `inverse` (the original node, not a duplicate). */
  readonly inversePosition: number[];

  constructor(readonly trace: Trace) {
    this.states = trace.events.map((e) => stateOfEvent(e, trace.lines));
    this.depths = trace.events.map((e) => e.depth);
    this.exit = exitOfTrace(trace);
    this.inverse = this.buildInverse();
    this.inversePosition = new Array<number>(this.states.length);
    this.inverse.forEach((n, pos) => {
      if (n.state.event !== 'line_call') this.inversePosition[n.forward] = pos;
    });
  }

  get size(): number {
    return this.states.length;
  }

  // ---- forward moves --------------------------------------------------------------------

  forward(node: number, action: ForwardAction): Landing {
    switch (action.kind) {
      case 'step_into':
        return this.land(node + 1 < this.size ? node + 1 : undefined);
      case 'step_over':
        return this.land(this.nextAtDepthOrAbove(node));
      case 'step_return':
        return this.land(this.returnOfFrame(node));
      case 'breakpoint':
        return this.land(this.findForward(node, (j) => this.states[j]!.event === 'line' && this.states[j]!.line === action.line));
      case 'continue':
        return { exit: this.exit };
    }
  }

  /** The next node at the same depth or above: never down into a call. */
  private nextAtDepthOrAbove(node: number): number | undefined {
    const d = this.depths[node]!;
    return this.findForward(node, (j) => this.depths[j]! <= d);
  }

  /**
   * The return node of the current frame. From a return node itself there is nothing left
   * in the frame, so it goes up to the caller's next state, skipping sibling calls the
   * caller's line still makes (pdb's `return` at `--Return--` does the same).
   */
  private returnOfFrame(node: number): number | undefined {
    const d = this.depths[node]!;
    if (this.states[node]!.event === 'return') return this.findForward(node, (j) => this.depths[j]! < d);
    for (let j = node + 1; j < this.size; j++) {
      if (this.depths[j]! < d) return j; // left the frame without a return event (cut trace)
      if (this.depths[j] === d && this.states[j]!.event === 'return') return j;
    }
    return undefined;
  }

  private findForward(node: number, match: (j: number) => boolean): number | undefined {
    for (let j = node + 1; j < this.size; j++) if (match(j)) return j;
    return undefined;
  }

  private land(node: number | undefined): Landing {
    return node === undefined ? { exit: this.exit } : { node };
  }

  // ---- inverse moves (positions in `inverse`) ---------------------------------------------

  backward(pos: number, action: InverseAction): Landing {
    const inv = this.inverse;
    const d = inv[pos]!.depth;
    const find = (match: (q: number) => boolean): Landing => {
      for (let q = pos + 1; q < inv.length; q++) if (match(q)) return { node: q };
      return { exit: { kind: 'entry' } };
    };
    switch (action.kind) {
      case 'inv_step_into':
        return pos + 1 < inv.length ? { node: pos + 1 } : { exit: { kind: 'entry' } };
      case 'inv_step_over':
        return find((q) => inv[q]!.depth <= d);
      case 'inv_step_call':
        // From the call itself there is no earlier state in the frame: go on to the caller.
        if (inv[pos]!.state.event === 'call') return find((q) => inv[q]!.depth <= d);
        return find((q) => inv[q]!.depth < d || (inv[q]!.depth === d && inv[q]!.state.event === 'call'));
    }
  }

  /** Applies any action: forward ones on forward node indices, inverse ones on inverse positions. */
  move(at: number, action: Action): Landing {
    return action.kind.startsWith('inv_') ? this.backward(at, action as InverseAction) : this.forward(at, action as ForwardAction);
  }

  /**
   * Reverse order, with a `line_call` duplicate of every line that made a call placed just
   * before its callee's states. A callee block is the run of nodes deeper than the line.
   */
  private buildInverse(): InverseNode[] {
    // blockEnds[m] = the lines whose callee block ends at forward node m, outermost first.
    const blockEnds = new Map<number, number[]>();
    for (let k = 0; k < this.size; k++) {
      if (this.states[k]!.event !== 'line' || k + 1 >= this.size || this.depths[k + 1]! <= this.depths[k]!) continue;
      let m = k + 1;
      while (m + 1 < this.size && this.depths[m + 1]! > this.depths[k]!) m++;
      const list = blockEnds.get(m) ?? [];
      list.push(k);
      blockEnds.set(m, list);
    }
    const out: InverseNode[] = [];
    for (let j = this.size - 1; j >= 0; j--) {
      for (const k of blockEnds.get(j) ?? []) {
        out.push({ state: { ...this.states[k]!, event: 'line_call' }, depth: this.depths[k]!, forward: k });
      }
      out.push({ state: this.states[j]!, depth: this.depths[j]!, forward: j });
    }
    return out;
  }
}
