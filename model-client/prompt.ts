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
 * steps in between.
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

/** The prompt's text after the program context: frames and actions, then `<|frame_sep|>`. */
export function historyText(program: string, steps: readonly Step[]): string {
  const direction = directionOf(steps[steps.length - 1]!);
  const text = serializeTrajectory(truncateTrajectory({ direction, program, steps: [...steps], exit: null }));
  return text.slice(serializeContext(program).length);
}
