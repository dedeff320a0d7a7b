/**
 * The symbolic stepper's rules, in order of precedence: where two rules decide a local's
 * value, or a return's, the first one's fact stands; landings are narrowed in this order.
 * Adding a rule: its file here, one line below, a test (docs/symbolic-stepper.md).
 */
import type { Rule } from '../rule.js';
import { assigned } from './assigned.js';
import { branch } from './branch.js';
import { called } from './called.js';
import { comprehension } from './comprehension.js';
import { kept } from './kept.js';
import { loop } from './loop.js';
import { raisedReturn } from './raised-return.js';
import { received } from './received.js';
import { returned } from './returned.js';
import { typed } from './typed.js';
import { unbound } from './unbound.js';
import { undone } from './undone.js';

export const RULES: readonly Rule[] = [
  raisedReturn, // a return where the line returns nothing: an exception leaving, None
  returned, // `return LITERAL`, `return EXPR` of shown values
  assigned, // the line just run assigned literals or shown values, or changed a list or dict
  received, // a callee's return value, received by the line that called it
  called, // stepping into a call of the program's: its call, the parameters bound to the arguments
  comprehension, // a comprehension's frame from its caller's values
  undone, // stepping back over `x += part`
  loop, // a loop's next element, the one before, and whether it goes on
  branch, // an `if`/`while` test the state decides
  kept, // a name the line does not bind holds the same object
  unbound, // names bound only on lines that cannot have run yet
  typed, // a local's type, where pyright makes it certain: its repr's shape
];
