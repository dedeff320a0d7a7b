/**
 * Typed states, actions and trajectories of the trace language (zod schemas, so anything
 * parsed from outside, a model's output or a JSON file, is checked at the boundary).
 */
import { z } from 'zod';

/** A Python call-stack frame: the function's name (`<module>`, `<listcomp>` included) and its current line. */
export const FrameSchema = z.object({
  function: z.string().min(1).regex(/^\S+$/, 'a function name has no whitespace'),
  line: z.number().int().nonnegative(),
});
export type Frame = z.infer<typeof FrameSchema>;

/**
 * The event of a state. `line_call` exists only in inverse trajectories: the duplicate of a
 * line that made a call, under which the callee's states hang (reference §3).
 */
export const EventSchema = z.enum(['call', 'line', 'return', 'exception', 'line_call']);
export type Event = z.infer<typeof EventSchema>;

/**
 * Variable name -> repr string. Key order is Python's but not significant. The key `..` is
 * reserved for the delta marker (no Python variable has that name).
 */
export const LocalsSchema = z
  .record(z.string(), z.string())
  .refine((locals) => !Object.hasOwn(locals, '..'), 'the name ".." is reserved for the delta marker');
export type Locals = z.infer<typeof LocalsSchema>;

export const StateSchema = z
  .object({
    event: EventSchema,
    /** 1-based source line number in the program. */
    line: z.number().int().nonnegative(),
    /** The text of that source line, without its newline. */
    source: z.string().refine((s) => !s.includes('\n'), 'a source line holds no newline'),
    /** Outermost first; the last frame is the current one and sits on `line`. */
    stack: z.array(FrameSchema).min(1),
    locals: LocalsSchema,
    /** repr of the return value (return) or of the exception (exception). */
    value: z.string().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.stack[s.stack.length - 1]!.line !== s.line) {
      ctx.addIssue({ code: 'custom', message: 'the innermost frame must sit on the state line' });
    }
    const needsValue = s.event === 'return' || s.event === 'exception';
    if (needsValue !== (s.value !== undefined)) {
      ctx.addIssue({ code: 'custom', message: `a ${s.event} state ${needsValue ? 'needs' : 'has no'} value` });
    }
  });
export type State = z.infer<typeof StateSchema>;

export const ForwardActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('step_into') }),
  z.object({ kind: z.literal('step_over') }),
  z.object({ kind: z.literal('step_return') }),
  z.object({ kind: z.literal('continue') }),
  z.object({
    kind: z.literal('breakpoint'),
    line: z.number().int().positive(),
    source: z.string().refine((s) => !s.includes('\n'), 'a source line holds no newline'),
  }),
]);
export const InverseActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('inv_step_into') }),
  z.object({ kind: z.literal('inv_step_over') }),
  z.object({ kind: z.literal('inv_step_call') }),
]);
export const ActionSchema = z.union([ForwardActionSchema, InverseActionSchema]);
export type ForwardAction = z.infer<typeof ForwardActionSchema>;
export type InverseAction = z.infer<typeof InverseActionSchema>;
export type Action = z.infer<typeof ActionSchema>;
export type ActionKind = Action['kind'];

export const FORWARD_ACTION_KINDS = ['step_into', 'step_over', 'step_return', 'breakpoint', 'continue'] as const;
export const INVERSE_ACTION_KINDS = ['inv_step_into', 'inv_step_over', 'inv_step_call'] as const;

/**
 * How a run ends. Forward: `normal` (with the entry's return value repr), `error` (with the
 * uncaught exception's repr), `never` (did not terminate within the limits). Inverse:
 * `entry`, stepping back past the first state.
 */
export const ExitSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('normal'), value: z.string() }),
  z.object({ kind: z.literal('error'), value: z.string() }),
  z.object({ kind: z.literal('never') }),
  z.object({ kind: z.literal('entry') }),
]);
export type Exit = z.infer<typeof ExitSchema>;

export const DirectionSchema = z.enum(['forward', 'inverse']);
export type Direction = z.infer<typeof DirectionSchema>;

/** One visited state and the action taken from it. */
export const StepSchema = z.object({ state: StateSchema, action: ActionSchema });
export type Step = z.infer<typeof StepSchema>;

/**
 * A debugging trajectory: the program, the states visited and the action taken from each,
 * and the exit reached (null when the trajectory stops before the end).
 * The last step's action leads to the exit, or to whatever comes next when `exit` is null.
 */
export const TrajectorySchema = z.object({
  direction: DirectionSchema,
  program: z.string(),
  steps: z.array(StepSchema),
  exit: ExitSchema.nullable(),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

export function isForwardAction(a: Action): a is ForwardAction {
  return !a.kind.startsWith('inv_');
}
