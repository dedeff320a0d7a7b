import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { charRepr, reprItems } from '../semantics/repr-items.js';

describe('the items a repr shows', () => {
  it('splits containers at the top level only, past commas and brackets inside strings', () => {
    expect(reprItems(`['xxx', 'a, b', "it's", [1, (2, 3)], {'k': ']'}]`)).toEqual({ items: ["'xxx'", "'a, b'", `"it's"`, '[1, (2, 3)]', "{'k': ']'}"], complete: true });
    expect(reprItems('(1,)')).toEqual({ items: ['1'], complete: true });
    expect(reprItems('()')).toEqual({ items: [], complete: true });
    expect(reprItems('{1, 2}')).toEqual({ items: ['1', '2'], complete: true });
    expect(reprItems('frozenset({1, 2})')).toEqual({ items: ['1', '2'], complete: true });
    expect(reprItems('set()')).toEqual({ items: [], complete: true });
    expect(reprItems("{1: [2, 3], 'a': (4,)}")).toEqual({ items: ['1', "'a'"], values: ['[2, 3]', '(4,)'], complete: true });
  });

  it('keeps only the whole items of a truncated repr', () => {
    expect(reprItems('[1, 2, 3, 4…')).toEqual({ items: ['1', '2', '3'], complete: false });
    expect(reprItems("'abc…")).toEqual({ items: ["'a'", "'b'", "'c'"], complete: false });
  });

  it('is undefined for what is no container or str repr', () => {
    for (const repr of ['<object at 0x…>', '42', 'None', "b'ab'", 'deque([1])', '(1)', '[1, 2']) expect(reprItems(repr), repr).toBeUndefined();
  });

  it("writes each character of a str as Python's repr does", () => {
    const text = `a'"\\\n\t\x00é\u00a0€😀`;
    const python = JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import json, sys; s = sys.stdin.read(); print(json.dumps([repr(s), [repr(c) for c in s]]))'], { input: text }).toString()) as [string, string[]];
    expect([...text].map(charRepr)).toEqual(python[1]);
    expect(reprItems(python[0])).toEqual({ items: python[1], complete: true });
  });
});
