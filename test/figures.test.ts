/**
 * The README's figures table is generated from `ndb eval --report` files (cli/figures.ts):
 * each row from the latest report of its command, a row without a report kept as it was.
 * Checked on small fixture reports (test/fixtures/reports/), through the functions and through
 * `ndb eval tables`, and on the README itself: every row's command has its row.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, commandOf, END, FIGURES, figuresTable, readReports, tableBetweenMarkers, withTable } from '../cli/figures.js';
import { ROOT } from './fixtures.js';

const REPORTS = join(ROOT, 'test', 'fixtures', 'reports');
const NDB = join(ROOT, 'bin', 'ndb.js');
const README = join(ROOT, 'README.md');
const dir = mkdtempSync(join(tmpdir(), 'ndb-figures-'));

/** A README with the figures markers around a table that has one row of an older measurement. */
const OLD_ROW = '| Input of a call from its output (pass@1), real code | 31.8% (111/349) | 18.9% (66/349), the output as the only argument | `ndb eval cruxeval --task input --data evaluation/heldout-real.jsonl` | cd08063 |';
const SMALL_README = ['# ndb', '', BEGIN, '| measure | ndb | trivial baseline | command | commit |', '| --- | --- | --- | --- | --- |', OLD_ROW, END, '', 'after the table', ''].join('\n');

describe('the figures table from reports', () => {
  it('reads report files and leaves out what is not one', () => {
    const reports = readReports(REPORTS);
    expect(reports.map((r) => r.commit).sort()).toEqual(['0000000', 'abc1234', 'abc1234', 'def5678']);
    expect(readReports(join(dir, 'absent'))).toEqual([]);
  });

  it('writes each row from the latest report of its command, keeps a row without one, and says which', () => {
    const { table, sources } = figuresTable(readReports(REPORTS), SMALL_README);
    const lines = table.split('\n');
    expect(lines).toHaveLength(2 + FIGURES.length);
    // the latest of two cruxeval output reports (abc1234, not 0000000)
    expect(lines[2]).toBe('| Output of a call (CruxEval-style pass@1), real code, stepped line by line | 75.0% (3/4) | 25.0% (1/4), first argument unchanged | `ndb eval cruxeval --task output --data evaluation/heldout-real.jsonl` | abc1234, 2026-12-08 |');
    // no report of the input command (the other model's does not count): the old row stays
    expect(lines[3]).toBe(OLD_ROW);
    expect(lines[4]).toBe('| Next state exact, one step: step into / step over | 87.5% / 75.0% | 12.5% / 0.0%, same locals, next line | `ndb eval states --data evaluation/heldout-real.jsonl --limit 120` | def5678 (with changes), 2026-12-08 |');
    expect(lines[5]).toContain('| 50.0% / — / 100.0% | 0.0% / — / 0.0% |');
    // neither report nor row: said so
    expect(lines[6]).toBe('| Whole programs against the real pdb, stop by stop, dev programs: line / line and every local / return values right | not measured yet | | `ndb eval pdb --split dev` | |');
    expect(sources.map((s) => s.from)).toEqual(['report', 'kept', 'report', 'report', 'missing', 'missing', 'missing']);
  });

  it('replaces only what stands between the markers', () => {
    const text = withTable(SMALL_README, '| new |', 'README.md');
    expect(text).toBe(['# ndb', '', BEGIN, '| new |', END, '', 'after the table', ''].join('\n'));
    expect(() => tableBetweenMarkers('# no markers', 'X.md')).toThrow(/X.md has no figures markers/);
  });

  it("a report's command: the flags given, in the command's order, paths inside the package relative to it", () => {
    const flags = ['task', 'data', 'method', 'limit', 'json', 'model', 'report'];
    expect(commandOf('cruxeval', flags, { data: join(ROOT, 'evaluation', 'heldout-real.jsonl'), task: 'output', json: true, report: '/tmp/r.json' }, ROOT)).toBe('ndb eval cruxeval --task output --data evaluation/heldout-real.jsonl');
    expect(commandOf('states', ['data', 'limit', 'rules'], { limit: '120', rules: 'control-flow,loop' }, ROOT)).toBe('ndb eval states --limit 120 --rules control-flow,loop');
    expect(commandOf('pdb', ['split', 'model'], { split: 'all', model: '/somewhere else/m' }, ROOT)).toBe("ndb eval pdb --split all --model '/somewhere else/m'");
  });
});

describe('ndb eval tables', () => {
  it('rewrites a README from the reports; --check passes after and fails before', () => {
    const readme = join(dir, 'README.md');
    writeFileSync(readme, SMALL_README);
    const run = (...args: string[]) => spawnSync(process.execPath, [NDB, 'eval', 'tables', '--readme', readme, '--reports', REPORTS, ...args], { encoding: 'utf8' });
    const before = run('--check');
    expect(before.status).toBe(2);
    expect(before.stderr).toContain('the figures table is not what the reports');
    const rewrite = run();
    expect(rewrite.status).toBe(0);
    expect(rewrite.stdout).toContain('Output of a call (CruxEval-style pass@1), real code, stepped line by line: report of abc1234');
    expect(rewrite.stdout).toContain('Input of a call from its output (pass@1), real code: no report: kept as it was');
    const text = readFileSync(readme, 'utf8');
    expect(text).toContain('| 75.0% (3/4) |');
    expect(text.endsWith(`${END}\n\nafter the table\n`)).toBe(true);
    expect(run('--check').status).toBe(0);
  });

  it("the README's own table has a row for every figure, and no report changes it", () => {
    const current = tableBetweenMarkers(readFileSync(README, 'utf8'), README);
    const { table, sources } = figuresTable([], current);
    expect(sources.filter((s) => s.from !== 'kept')).toEqual([]);
    expect(table).toBe(current);
  });
});
