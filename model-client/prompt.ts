/**
 * The prompt for the next frame, written exactly as training wrote trajectories: the
 * program, then each visited state and the action taken from it (serializeTrajectory over
 * truncateTrajectory, so deltas, truncation and escaping are training's), ending with
 * `<|frame_sep|>`.
 *
 * Training never mixed directions in one trajectory, so the prompt holds only the run of
 * steps since the debugger last changed direction: stepping back from a forward run starts
 * an inverse trajectory at the current state (training starts half its trajectories at a
 * random state, so a first frame written in full is nothing new to the model). Training
 * trajectories hold at most 48 states; a longer run keeps its latest ones, the window
 * moving forward half a window at a time so that the cached prompt stays valid for many
 * steps in between. A window whose prompt does not fit the context slides the same way, by
 * tokens (slideStarts): half the history's room at a time, not one step a press.
 */
import { serializeContext, serializeTrajectory } from '../grammar/serialize.js';
import { type Direction, isForwardAction, type Step } from '../grammar/state.js';
import { truncateTrajectory } from '../grammar/truncate.js';

/** Training's longest trajectory is 48 states; the state to predict is one of them. */
export const DEFAULT_MAX_PROMPT_STEPS = 47;

export function directionOf(step: Step): Direction {
  return isForwardAction(step.action) ? 'forward' : 'inverse';
}

/**
 * Where the prompt may start, best first: the window of the current run, then ever shorter
 * ones (for a prompt that does not fit the context), down to the current state alone.
 */
export function windowStarts(steps: readonly Step[], maxSteps = DEFAULT_MAX_PROMPT_STEPS): number[] {
  const end = steps.length;
  const direction = directionOf(steps[end - 1]!);
  let start = end - 1;
  while (start > 0 && directionOf(steps[start - 1]!) === direction) start--;
  const half = Math.max(1, Math.floor(maxSteps / 2));
  if (end - start > maxSteps) start += Math.ceil((end - start - maxSteps) / half) * half;
  const starts = [start];
  while (start < end - 1) {
    start += Math.max(1, Math.floor((end - start) / 2));
    starts.push(Math.min(start, end - 1));
  }
  return starts;
}

/**
 * Where a window may start when its prompt, written from its first step, does not fit the
 * context, best first (indices into the window's steps): the first step at least `jump`
 * history tokens after the window's first frame, then the first at least 2 x `jump`, and so
 * on (each step once). `frameStarts` holds each step's token offset in that text (its
 * `<|frame_sep|>`). A step's offset does not change as the run grows (a frame is written
 * against the one before it), so the start stays put, and the cached prompt valid, until the
 * prompt outgrows the context again, then moves on by `jump` tokens at once: the prefix cache
 * is rebuilt once per jump, not at every press.
 */
export function slideStarts(frameStarts: readonly number[], jump: number): number[] {
  if (!(jump >= 1)) throw new Error(`slideStarts: a jump of ${jump} tokens`);
  const starts: number[] = [];
  let i = 0;
  for (let k = 1; ; k++) {
    while (i < frameStarts.length && frameStarts[i]! < k * jump) i++;
    if (i >= frameStarts.length) return starts;
    if (starts[starts.length - 1] !== i) starts.push(i);
  }
}

/** The prompt's text after the program context: frames and actions, then `<|frame_sep|>`. */
export function historyText(program: string, steps: readonly Step[]): string {
  const direction = directionOf(steps[steps.length - 1]!);
  const text = serializeTrajectory(truncateTrajectory({ direction, program, steps: [...steps], exit: null }));
  return text.slice(serializeContext(program).length);
}
