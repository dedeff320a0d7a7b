/**
 * What the symbolic stepper says of a frame being written. A value is decided exactly (one
 * repr), as one of a few reprs, or as the same object the state before held (its repr keeps
 * what an object's identity keeps: model-client/value-rules.ts turns that into text). Every
 * fact names the rule that made it, so that a value can be shown as decided and by what.
 */

export type ValueFact =
  | { kind: 'exact'; repr: string }
  | { kind: 'one_of'; reprs: readonly string[] }
  /** The same object as `before`, the repr the reference state showed. */
  | { kind: 'kept'; before: string }
  /** A value of one of these types (rules/typed.ts, from pyright): its repr's shape, not its text. */
  | { kind: 'type'; types: readonly PyType[] };

/**
 * What a value's type makes certain of its repr (model-client/value-rules.ts): `int` prints as
 * a number or a bool (a subclass), `float` as a number or a bool (an int passes for a float),
 * `str` in quotes, `none` as `None`, `list` `[`, `tuple` `(`, `dict` `{`, `set` `{` or `set(`,
 * `object` (an instance of a class of the program's that prints as a default repr) `<`.
 */
export type PyType = 'int' | 'float' | 'str' | 'bool' | 'none' | 'list' | 'tuple' | 'dict' | 'set' | 'object';

/** A value fact with where it came from. */
export type Decided = ValueFact & {
  /** The rule's name (rules/index.ts). */
  rule: string;
  /** The name is surely bound here (the step (re)bound it, or a caller's name a callee's return left bound): a written frame must show it where its value differs from the state before's. */
  binds?: boolean;
};

/** What the stepper decides of one frame being written. */
export interface FrameAnswer {
  /** Names the frame cannot hold. */
  unbound: ReadonlySet<string>;
  /** Names the locals written must show (the step bound them to a value that differs from before). */
  mustWrite: readonly string[];
  /** The fact on a local's value, if any rule decides it. */
  value(name: string): Decided | undefined;
  /** A return event's value, one of these reprs (undefined: free). */
  returns: { reprs: readonly string[]; rule: string } | undefined;
}
