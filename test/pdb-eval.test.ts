/**
 * `ndb eval pdb` (evaluation/pdb-eval.ts): the corpus is what it says it is, every script
 * runs under the real pdb as written, and the harness's comparison gives the answers known
 * for a tiny program: with the tracer-backed predictor (the real run) every stop is right,
 * and a predictor wrong at one stop is caught there, and only there once re-synced.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../grammar/state.js';
import type { HistoryEntry, Prediction, Predictor } from '../model-client/predictor.js';
import type { Entry } from '../program-analysis/entry-state.js';
import { PYTHON } from '../evaluation/pdb-driver.js';
import { type CorpusProgram, evaluatePdb, formatPdbEval, missLines, observeProgram, pdbView, readCorpus } from '../evaluation/pdb-eval.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';

const corpus = readCorpus();

describe('the pdb corpus', () => {
  it('parses, with enough programs and about a third held out', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(36);
    const heldout = corpus.filter((p) => p.split === 'heldout').length;
    expect(heldout / corpus.length).toBeGreaterThan(0.25);
    expect(heldout / corpus.length).toBeLessThan(0.4);
    // Every command kind is used, and breakpoints are not the whole story.
    const used = new Set(corpus.flatMap((p) => p.commands.map((c) => c.split(' ')[0])));
    expect([...used].sort()).toEqual(['b', 'c', 'n', 'r', 's']);
  });

  it('holds realistic, deterministic programs with a module-level call at the bottom', () => {
    for (const p of corpus) {
      const lines = readFileSync(p.path, 'utf8').split('\n');
      const code = lines.filter((l) => l.trim() !== '');
      expect(lines.length, p.name).toBeGreaterThanOrEqual(15);
      expect(lines.length, p.name).toBeLessThanOrEqual(61);
      expect(code.some((l) => /^\s*def /.test(l)), `${p.name} has functions`).toBe(true);
      const last = code[code.length - 1]!;
      expect(/^(\w+ = )?main\(\)$/.test(last) || (/^\s+main\(\)$/.test(last) && code[code.length - 2] === 'if __name__ == "__main__":'), `${p.name} ends with ${last}`).toBe(true);
      const text = lines.join('\n');
      expect(text, `${p.name}: no clock, randomness, files or input`).not.toMatch(/\bimport (random|time|datetime|os|sys|io|subprocess|socket|threading|uuid|secrets)\b|\bopen\(|\binput\(/);
      for (const c of p.commands.filter((c) => c.startsWith('b '))) {
        const line = lines[Number(c.slice(2)) - 1] ?? '';
        expect(line.trim(), `${p.name}: ${c} is on a line of code`).not.toMatch(/^(#.*)?$/);
      }
    }
  });

  it('every program runs under real Python: to its end, or to the uncaught exception its script expects', () => {
    for (const p of corpus) {
      const run = spawnSync(PYTHON, [p.path], { encoding: 'utf8', timeout: 10_000, env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' } });
      if (p.raises === undefined) {
        expect({ name: p.name, status: run.status, stderr: run.stderr }).toEqual({ name: p.name, status: 0, stderr: '' });
      } else {
        expect(run.status, p.name).toBe(1);
        expect(run.stderr.trim().split('\n').pop(), p.name).toMatch(new RegExp(`^${p.raises}(:|$)`));
      }
    }
  });

  it('every script runs under real pdb as written: it stays in the program and ends as the program does', async () => {
    for (const p of corpus) {
      const observed = await observeProgram(p);
      const all = [observed.start, ...observed.after];
      expect(all.filter((o) => o.at === 'outside'), p.name).toEqual([]);
      // Only the last command may end the program (the driver refuses commands past it).
      expect(all.slice(0, -1).filter((o) => o.at === 'exit'), p.name).toEqual([]);
      const last = all[all.length - 1]!;
      if (p.raises !== undefined) expect(last, p.name).toMatchObject({ at: 'exit', kind: 'error', value: expect.stringMatching(new RegExp(`^${p.raises}\\(`)) });
      else expect(last.at === 'exit' && last.kind === 'error', p.name).toBe(false);
    }
  });
});

// ---- the harness on a tiny program ------------------------------------------------------------------

const TINY = `class Counter:
    def __init__(self):
        self.n = 0

    def bump(self, k):
        self.n += k
        return self.n


def parse(text):
    try:
        return int(text)
    except ValueError:
        print("not a number:", text)
        return 0


def main():
    c = Counter()
    for word in ["3", "x", "4"]:
        c.bump(parse(word))
    return c.n


total = main()
`;

const TINY_SCRIPT = ['b 19', 'n', 'n', 's', 'n', 'n', 'n', 'n', 'r', 'n', 'n', 's', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'c'];

/** Where pdb stops, by hand: (event, function:line) after each command, stop 0 first. */
const TINY_STOPS = [
  'line <module>:1',
  'line main:19',
  'line main:20',
  'line main:21',
  'call parse:10',
  'line parse:11',
  'line parse:12',
  'return parse:12', // 3
  'call bump:5', // next at a --Return-- steps: parse's caller goes on into bump
  'return bump:7',
  'line main:20',
  'line main:21',
  'call parse:10',
  'line parse:11',
  'line parse:12',
  'exception parse:12', // int('x')
  'line parse:13',
  'line parse:14',
  'line parse:15', // after the program printed: still a line stop
  'return parse:15',
  'end normal',
];

const dir = mkdtempSync(join(tmpdir(), 'ndb-pdb-eval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tinyCorpus(): CorpusProgram[] {
  writeFileSync(join(dir, 'tiny_counter.py'), TINY);
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ programs: [{ name: 'tiny_counter', file: 'tiny_counter.py', split: 'dev', commands: TINY_SCRIPT }] }));
  return readCorpus(dir);
}

/** The real run, but at one stop (line `line`, a `line` event) a local shown wrong. */
class WrongAt implements Predictor {
  private readonly real = new TracerPredictor();
  constructor(private readonly line: number) {}

  start(program: string, entry: Entry | null): Promise<Prediction> {
    return this.real.start(program, entry);
  }

  async predict(history: readonly HistoryEntry[], action: Action): Promise<Prediction> {
    const p = await this.real.predict(history, action);
    if (p.kind !== 'state' || p.state.event !== 'line' || p.state.line !== this.line) return p;
    return { ...p, state: { ...p.state, locals: { ...p.state.locals, text: "'wrong'" } } };
  }
}

describe('the harness', () => {
  it('reads what pdb shows as the tracer records it', () => {
    const view = pdbView(
      {
        at: 'stop',
        event: 'line',
        line: 3,
        function: '<module>',
        stack: [{ function: '<module>', line: 3 }],
        locals: [
          { name: '__name__', repr: "'__main__'", kind: 'value' },
          { name: 'json', repr: "<module 'json'>", kind: 'module' },
          { name: 'main', repr: '<function main at 0x7f0012>', kind: 'def' },
          { name: 'DATA', repr: '[1, 2]', kind: 'value' },
          { name: 'obj', repr: '<__main__.Box object at 0x7f3a10>', kind: 'value' },
        ],
      },
      new Set(),
    );
    expect(view).toEqual({ at: 'stop', event: 'line', line: 3, function: '<module>', stack: [{ function: '<module>', line: 3 }], locals: { DATA: '[1, 2]', obj: '<__main__.Box object at 0x…>' } });
    // In a function, functions are locals like any other.
    const inner = pdbView({ at: 'stop', event: 'return', line: 5, function: 'f', stack: [], locals: [{ name: 'g', repr: '<function g at 0x1>', kind: 'def' }], value: '7' }, new Set());
    expect(inner).toMatchObject({ locals: { g: '<function g at 0x…>' }, value: '7' });
    expect(pdbView({ at: 'exit', kind: 'error', value: "KeyError('durian')" }, new Set())).toEqual({ at: 'end', end: { kind: 'error', type: 'KeyError' } });
  });

  it('with the real run as the predictor, every stop is right', async () => {
    const programs = tinyCorpus();
    const report = await evaluatePdb(programs, new TracerPredictor(), 'dev');
    const r = report.programs[0]!;
    expect(r.error).toBeUndefined();
    const shown = r.detail!.map(({ pdb }) => (pdb.at === 'stop' ? `${pdb.event} ${pdb.function}:${pdb.line}` : pdb.at === 'end' ? `end ${pdb.end.kind}` : pdb.at));
    expect(shown).toEqual(TINY_STOPS);
    expect(r.detail!.every((d) => d.score.exact)).toBe(true);
    expect(r).toMatchObject({
      stops: 20,
      lineRight: 20,
      stateRight: 20,
      exactRight: 20,
      returns: { n: 3, right: 3 },
      end: { pdb: { kind: 'normal' }, ndb: { kind: 'normal' }, right: true },
      firstDivergence: null,
      firstWrongState: null,
      resync: { steps: 21, exact: 21, line: 21 },
    });
    expect(report.internalErrors).toEqual([]);
    expect(report.totals.dev).toMatchObject({ programs: 1, stops: 20, lineRight: 20, stateRight: 20, returns: { n: 3, right: 3 }, ends: { n: 1, right: 1 }, firstDivergenceMedian: null, neverDiverged: 1 });
    expect(formatPdbEval(report, 'tracer')).toMatch(/\ndev\s+1\s+20\s+100\.0%\s+100\.0%\s+3\/3\s+1\/1\s+never\s+100\.0%\s+100\.0%\n/);
    expect(missLines(report)).toEqual([]);
  });

  it('a wrong stop is caught where it happens; without re-syncing the run goes on from it, re-synced it costs one step', async () => {
    const programs = tinyCorpus();
    // parse's line 11 is stop 5 and stop 13: its `text` shown wrong both times.
    const report = await evaluatePdb(programs, new WrongAt(11), 'dev');
    const r = report.programs[0]!;
    expect(r.detail![5]!.score).toEqual({ line: true, state: false, exact: false });
    // From there on ndb's run is not the real one: the tracer cannot go on from a state the
    // program never had, so every later command fails and ndb stays at stop 5's state.
    expect(r.detail![6]!.ndb).toMatchObject({ at: 'error' });
    expect(r).toMatchObject({ stops: 20, lineRight: 6, stateRight: 5, firstWrongState: 5, firstDivergence: 6, end: { ndb: { kind: 'running' }, right: false } });
    // Re-synced, each history is pdb's: only the two predictions landing on line 11 miss.
    expect(r.resync).toEqual({ steps: 21, exact: 19, line: 21 });
    expect(r.resyncMisses!.map((m) => m.stop)).toEqual([5, 13]);
    expect(report.internalErrors.length).toBeGreaterThan(0);
    expect(report.internalErrors.every((e) => e.message.startsWith('OffTraceError'))).toBe(true);
    const misses = missLines(report).map((l) => JSON.parse(l) as { kind: string; stop: number });
    expect(misses.map((m) => [m.kind, m.stop])).toEqual([['first-wrong-stop', 5], ['resync', 5], ['resync', 13]]);
  });

  it('keeps held-out programs to numbers: no stops, no misses', async () => {
    writeFileSync(join(dir, 'tiny_counter.py'), TINY);
    writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ programs: [{ name: 'tiny_counter', file: 'tiny_counter.py', split: 'heldout', commands: TINY_SCRIPT }] }));
    const report = await evaluatePdb(readCorpus(dir), new WrongAt(11), 'heldout');
    const r = report.programs[0]!;
    expect(r.detail).toBeUndefined();
    expect(r.resyncMisses).toBeUndefined();
    expect(r).toMatchObject({ stops: 20, lineRight: 6, stateRight: 5 });
    expect(missLines(report)).toEqual([]);
    expect(report.internalErrors).toEqual([]);
    expect(report.heldoutInternalErrors).toBeGreaterThan(0);
    expect(formatPdbEval(report, 'x')).not.toMatch(/tiny_counter|OffTrace/);
  });

  it('refuses a malformed manifest', () => {
    writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ programs: [{ name: 'x', file: 'x.py', split: 'dev', commands: ['step'] }] }));
    expect(() => readCorpus(dir)).toThrow(/commands/);
  });
});
