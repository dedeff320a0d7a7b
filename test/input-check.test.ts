/**
 * The input task's forward check (model-client/input-check.ts): which answer is shown, given
 * the model's answers and how its runs of them end. The answers and runs are written here;
 * the model's own are tested end to end in test/evaluation.test.ts and test/dap-long.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type CandidateRun, NoPrediction } from '../model-client/call-outcome.js';
import { checkInputs } from '../model-client/input-check.js';

/** The model's answers, in callCandidates' order; `fail` makes the own answer a failure. */
async function* answersOf(args: string[], fail?: Error): AsyncGenerator<string> {
  if (fail) throw fail;
  yield* args;
}

const returning = (value: string): CandidateRun => ({ outcome: { kind: 'returned', value, confidence: 0.5 }, binds: true });
const noAnswer: CandidateRun = { outcome: null, binds: true };
const unbound: CandidateRun = { outcome: { kind: 'raised', exception: "TypeError('f() missing 1 required positional argument')", confidence: 1 }, binds: false };

/** checkInputs over `answers`, each run ending as `runs` says (args → run), recording what ran. */
async function choose(answers: AsyncGenerator<string>, runs: Record<string, CandidateRun>, value = '3') {
  const ran: string[] = [];
  const choice = await checkInputs(answers, {
    value,
    argsOf: (a) => a,
    run: async (args) => {
      ran.push(args);
      return runs[args] ?? noAnswer;
    },
    recoverable: (err) => err instanceof NoPrediction,
  });
  return { choice, ran };
}

describe('checkInputs: the first answer whose run returns the value, else the value itself where f takes it', () => {
  it("shows the model's own answer when its run confirms it, and runs nothing more", async () => {
    const { choice, ran } = await choose(answersOf(['1', '2']), { '1': returning('3') });
    expect(choice).toMatchObject({ kind: 'answer', answer: '1', args: '1', confirmed: true });
    expect(ran).toEqual(['1']);
  });

  it('then the value itself as the only argument, before the other answers', async () => {
    const { choice, ran } = await choose(answersOf(['1', '2']), { '3': returning('3'), '2': returning('3') });
    expect(choice).toMatchObject({ kind: 'value', args: '3', confirmed: true });
    expect(ran).toEqual(['1', '3']);
  });

  it('then the other answers in order, each run once', async () => {
    const { choice, ran } = await choose(answersOf(['1', '2', '1', '4', '5']), { '4': returning('3'), '5': returning('3') });
    expect(choice).toMatchObject({ kind: 'answer', answer: '4', confirmed: true });
    expect(ran).toEqual(['1', '3', '2', '4']);
  });

  it('confirming none: the value itself when f takes it as its only argument, unconfirmed, with its run', async () => {
    const { choice, ran } = await choose(answersOf(['1', '2']), { '1': returning('0'), '3': returning('9') });
    expect(choice).toMatchObject({ kind: 'value', args: '3', confirmed: false, run: { outcome: { kind: 'returned', value: '9' } } });
    expect(ran).toEqual(['1', '3', '2']);
  });

  it("confirming none, the value not binding (f takes more arguments): the model's own answer, with its run", async () => {
    const { choice } = await choose(answersOf(['1, 2', '4, 5']), { '1, 2': returning('0'), '3': unbound });
    expect(choice).toMatchObject({ kind: 'answer', answer: '1, 2', confirmed: false, run: { outcome: { value: '0' } } });
  });

  it("the model's own answer that is the value itself stays its own", async () => {
    const { choice, ran } = await choose(answersOf(['3']), { '3': returning('0') });
    expect(choice).toMatchObject({ kind: 'answer', answer: '3', confirmed: false });
    expect(ran).toEqual(['3']);
  });

  it("without an answer of the model's: the value itself, checked; its failure when f cannot take the value", async () => {
    const failure = new NoPrediction('inv_step_call did not give the call');
    expect((await choose(answersOf([], failure), { '3': returning('3') })).choice).toMatchObject({ kind: 'value', confirmed: true });
    expect((await choose(answersOf([], failure), {})).choice).toMatchObject({ kind: 'value', confirmed: false });
    await expect(choose(answersOf([], failure), { '3': unbound })).rejects.toBe(failure);
  });

  it('a failure that is a bug is thrown at once', async () => {
    const bug = new TypeError('x is undefined');
    await expect(choose(answersOf([], bug), { '3': returning('3') })).rejects.toBe(bug);
  });
});
