import { describe, expect, it } from 'vitest';
import { LoopGuard } from '../model-client/loop-guard.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** A guard that has seen `written` (the frame so far), with `prompt` as what it may copy from. */
function guardAfter(written: string, prompt = ''): LoopGuard {
  const guard = new LoopGuard(() => bytes(prompt));
  guard.wrote(bytes(written));
  return guard;
}

describe('the loop guard', () => {
  // What a 95M-token model wrote for `line = 'apple: 3'` on examples/orders.py.
  const loop = `{"line": "'apple: 3${', 3'.repeat(22)}`;

  it('lets ordinary text and short runs through', () => {
    expect(guardAfter('{"xs": "[0, 0, 0, 0]", "s": "\'hello world\'"').bans()).toBeNull();
    expect(guardAfter(`{"line": "'apple: 3, 3, 3`).bans()).toBeNull();
  });

  it('refuses a token that writes the period once more, however the loop is split into tokens', () => {
    const bans = guardAfter(loop).bans();
    expect(bans).not.toBeNull();
    expect(bans!(bytes(', '))).toBe(true);
    expect(bans!(bytes(','))).toBe(true);
    expect(bans!(bytes(', 3, 3'))).toBe(true);
    // Leaving the loop is allowed, even by a token that starts like it.
    expect(bans!(bytes("'"))).toBe(false);
    expect(bans!(bytes(", 4'"))).toBe(false);
  });

  it('lets a frame copy a run as long as the prompt shows it, and not one item further', () => {
    const list = `[${Array(40).fill('0').join(', ')}]`;
    const prompt = `{"dp": "${list}"}`;
    const copying = guardAfter(`{"dp": "[${Array(30).fill('0').join(', ')}`, prompt).bans();
    expect(copying).not.toBeNull();
    expect(copying!(bytes(', '))).toBe(false);
    const past = guardAfter(`{"dp": "[${Array(40).fill('0').join(', ')}`, prompt).bans();
    expect(past!(bytes(', '))).toBe(true);
    expect(past!(bytes(']'))).toBe(false);
  });

  it('once a frame has looped, stops the next loop sooner', () => {
    const guard = guardAfter(loop);
    expect(guard.bans()!(bytes(', '))).toBe(true);
    guard.wrote(bytes(': 3, 3: 3, 3: 3'));
    expect(guard.bans()).not.toBeNull();
    // A fresh guard lets that much through.
    expect(guardAfter('{"line": "\'3: 3, 3: 3, 3: 3').bans()).toBeNull();
  });

  it('leaves a stack alone: a recursion repeats its frames', () => {
    const guard = new LoopGuard(() => Buffer.alloc(0));
    guard.wrote({ special: '<|loc_sep|>' });
    guard.wrote(bytes('f:4 '.repeat(20)));
    expect(guard.bans()).toBeNull();
  });

  it('forgets the run at a special token (a new field)', () => {
    const guard = guardAfter(loop);
    guard.wrote({ special: '<|arg_sep|>' });
    guard.wrote(bytes('3, 3'));
    expect(guard.bans()).toBeNull();
  });
});
