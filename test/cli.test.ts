/**
 * The `ndb` command as a user runs it: the compiled CLI (npm test builds it first) on real
 * Python.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrajectory } from '../grammar/parse.js';
import { TracerRecordSchema } from '../tracer/events.js';
import { COUNT_PY } from './fixtures.js';

const NDB = join(import.meta.dirname, '..', 'bin', 'ndb.js');

function ndb(...args: string[]) {
  const r = spawnSync(process.execPath, [NDB, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'ndb-cli-'));
const EXAMPLE = COUNT_PY;

describe('ndb trace', () => {
  it('prints the real run in the trace language', () => {
    const r = ndb('trace', EXAMPLE, '--entry', 'count', '--args', "'berry', 'r'");
    expect(r.code).toBe(0);
    const t = parseTrajectory(r.stdout.trimEnd());
    expect(t.direction).toBe('forward');
    expect(t.exit).toEqual({ kind: 'normal', value: '2' });
    expect(t.steps[0]!.state).toMatchObject({ event: 'call', line: 5, locals: { s: "'berry'", t: "'r'" } });
    expect(t.steps.every((s) => s.action.kind === 'step_into')).toBe(true);
    expect(t.steps.at(-1)!.state).toMatchObject({ event: 'return', value: '2' });
  });

  it('prints JSON records with --json', () => {
    const r = ndb('trace', EXAMPLE, '--entry', 'count', '--args', "'berry', 'r'", '--json');
    expect(r.code).toBe(0);
    const records = r.stdout.trim().split('\n').map((l) => TracerRecordSchema.parse(JSON.parse(l)));
    expect(records.at(-1)).toMatchObject({ type: 'exit', exit: 'normal', value: '2' });
    expect(records.filter((x) => x.type === 'event' && x.function === 'is_match' && x.event === 'call')).toHaveLength(5);
  });

  it('traces a module top level without --entry', () => {
    const file = join(dir, 'top.py');
    writeFileSync(file, 'x = 1\ny = x + 1\n');
    const t = parseTrajectory(ndb('trace', file).stdout.trimEnd());
    expect(t.steps.map((s) => s.state.line)).toContain(2);
    expect(t.steps.at(-1)!.state.locals).toEqual({ x: '1', y: '2' });
  });

  const syntaxFile = join(dir, 'bad.py');
  writeFileSync(syntaxFile, 'def f(:\n    pass\n');
  it.each([
    ['a syntax error', [syntaxFile, '--entry', 'f', '--args', '1'], /SyntaxError at line 1/],
    ['a missing entry', [EXAMPLE, '--entry', 'nope', '--args', '1'], /no function named 'nope'.*functions defined: is_match, count/],
    ['arguments that are not literals', [EXAMPLE, '--entry', 'count', '--args', 'open("x")'], /not a Python literal/],
    ['a missing file', [join(dir, 'missing.py')], /no such file/],
    ['--args without --entry', [EXAMPLE, '--args', '1'], /--args needs --entry/],
    ['a bad limit', [EXAMPLE, '--max-events', 'many'], /--max-events must be a non-negative integer/],
  ])('%s gives one clear line and exit code 2', (_name, args, pattern) => {
    const r = ndb('trace', ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects an unknown command the same way', () => {
    const r = ndb('fly');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "fly"/);
  });
});

describe('the command line (commander)', () => {
  it('--version prints the version of package.json', () => {
    const r = ndb('--version');
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('ndb alone, ndb help and --help list the commands on stdout, exit code 0', () => {
    for (const args of [[], ['help'], ['--help']]) {
      const r = ndb(...args);
      expect(r.code, args.join(' ')).toBe(0);
      for (const command of ['trace', 'data', 'eval', 'verify', 'debug', 'dap', 'lsp']) expect(r.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
      expect(r.stderr).toBe('');
    }
  });

  it.each([
    [['debug', '--help'], /^Usage: ndb debug \[options\] <FILE>/, ['--entry <NAME>', '--args <LITERALS>', '--infer-args', '--model <DIR>', '--device <cpu|cuda>', '--precision <fp32|int8>', '--samples <N>', '--temperature <T>', '--verify']],
    [['trace', '-h'], /^Usage: ndb trace \[options\] <FILE>/, ['--entry <NAME>', '--args <LITERALS>', '--json', '--max-events <N>', '--timeout <SECONDS>']],
    [['dap', '--help'], /^Usage: ndb dap \[options\]/, ['--port <N>', '--host <H>', '--token <T>', '--allow-remote']],
    [['lsp', '--help'], /^Usage: ndb lsp \[options\]/, ['--stdio', '--model <DIR>', '--device <cpu|cuda>', '--max-steps <N>']],
    [['verify', '--help'], /^Usage: ndb verify \[options\] \[SOLUTIONS\.\.\.\]/, ['--tests <TESTS.py>', '--candidates', '--json', '--samples <N>', '--model <DIR>', '--method <breakpoint|step_return|step_over>']],
    [['data', '--help'], /^Usage: ndb data/, ['build', 'tokenizer', 'tokenize', 'check']],
    [['data', 'build', '--help'], /^Usage: ndb data build \[options\]/, ['--out <DIR>', '--programs <N>', '--seed <S>', '--concurrency <K>', '--mix <ORIGIN=SHARE,...>', '--jumps <SHARE>', '--walks <SHARE>']],
    [['data', 'check', '--help'], /^Usage: ndb data check \[options\]/, ['--origin <humaneval|mbpp|stdlib|packages>', '--limit <N>', '--json']],
    [['eval', '--help'], /^Usage: ndb eval/, ['make-heldout', 'states', 'cruxeval', 'verify']],
    [['eval', 'cruxeval', '--help'], /^Usage: ndb eval cruxeval \[options\]/, ['--task <output|input>', '--data <FILE.jsonl>', '--method <breakpoint|step_return|step_over>', '--limit <N>', '--json', '--model <DIR>', '--precision <fp32|int8>', '--samples <N>']],
    [['eval', 'verify', '--help'], /^Usage: ndb eval verify \[options\]/, ['--limit <POOLS>', '--k <4-8>', '--cases <N>', '--seed <S>']],
    [['help', 'data', 'build'], /^Usage: ndb data build \[options\]/, ['--out <DIR>', '--mix <ORIGIN=SHARE,...>']],
    [['help', 'eval', 'cruxeval'], /^Usage: ndb eval cruxeval \[options\]/, ['--task <output|input>']],
    [['help', 'debug'], /^Usage: ndb debug \[options\] <FILE>/, ['--entry <NAME>']],
  ])('ndb %j: the help of the command, its flags, exit code 0', (args, usage, flags) => {
    const r = ndb(...args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(usage);
    for (const flag of flags) expect(r.stdout).toContain(flag);
  });

  it('ndb help with an unknown name: one line with a suggestion, exit code 2', () => {
    const r = ndb('help', 'data', 'buidl');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ndb: error: unknown data command "buidl" (did you mean build?); run `ndb data --help`');
    expect(ndb('help', 'evl').stderr).toMatch(/unknown command "evl" \(did you mean eval\?\)/);
  });

  it('an option value may start with -: --args -1 as --args=-1', () => {
    const file = join(dir, 'neg.py');
    writeFileSync(file, 'def f(x):\n    return x * 2\n');
    for (const args of [['--args', '-1'], ['--args=-1']]) {
      const r = ndb('trace', file, '--entry', 'f', ...args);
      expect(r.code, args.join(' ')).toBe(0);
      const t = parseTrajectory(r.stdout.trimEnd());
      expect(t.steps[0]!.state.locals).toEqual({ x: '-1' });
      expect(t.exit).toEqual({ kind: 'normal', value: '-2' });
    }
  });

  it.each([
    ['a typo in a command', ['trac', EXAMPLE], /^ndb: error: unknown command "trac" \(did you mean trace\?\); run `ndb help`$/],
    ['a typo in a subcommand', ['data', 'buil'], /^ndb: error: unknown data command "buil" \(did you mean build\?\); run `ndb data --help`$/],
    ['a typo in a flag', ['trace', EXAMPLE, '--entyr', 'count'], /^ndb: error: unknown option '--entyr' \(did you mean --entry\?\); see `ndb trace --help`$/],
    ['a flag without its value', ['dap', '--port'], /^ndb: error: option '--port <N>' argument missing; see `ndb dap --help`$/],
    ['a group without its command', ['eval'], /^ndb: error: `ndb eval` needs a command; run `ndb eval --help` for the list$/],
    ['a missing file argument', ['trace'], /^ndb: error: missing required argument 'FILE'; see `ndb trace --help`$/],
  ])('%s: one line, exit code 2', (_name, args, pattern) => {
    const r = ndb(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(pattern);
  });

  it('a CUDA fallback warns once, with one prefix', () => {
    const r = spawnSync(process.execPath, [NDB, 'debug', EXAMPLE, '--entry', 'count', '--args', "'a', 'b'", '--device', 'cuda'], { input: 'q\n', encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(0);
    // This machine's onnxruntime-node has no CUDA provider (or no GPU): the fallback's warning.
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^ndb: warning: CUDA requested but .*; running on the CPU$/);
  });
});

describe('ndb data build', () => {
  const build = (out: string) => ndb('data', 'build', '--out', out, '--programs', '40', '--seed', '3');

  it('builds reproducibly, splits by program and prints a summary', () => {
    const a = build(join(dir, 'a'));
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/programs\s+40/);
    expect(a.stdout).toMatch(/trajectories\s+\d+ \(train \d+, validation \d+, test \d+; forward \d+, inverse \d+\)/);
    expect(a.stdout).toMatch(/programs\/s/);
    expect(a.stderr).toMatch(/40\/40/); // the progress bar

    expect(build(join(dir, 'b')).code).toBe(0);
    for (const file of ['train.jsonl', 'validation.jsonl', 'test.jsonl', 'programs.jsonl', 'splits.json']) {
      expect(readFileSync(join(dir, 'b', file), 'utf8'), file).toBe(readFileSync(join(dir, 'a', file), 'utf8'));
    }

    const splits = JSON.parse(readFileSync(join(dir, 'a', 'splits.json'), 'utf8')) as Record<string, string>;
    for (const split of ['train', 'validation', 'test']) {
      const lines = readFileSync(join(dir, 'a', `${split}.jsonl`), 'utf8').trim().split('\n').filter(Boolean);
      for (const line of lines) {
        const row = JSON.parse(line) as { group: string; text: string };
        expect(splits[row.group]).toBe(split); // no program in two splits
        expect(() => parseTrajectory(row.text)).not.toThrow();
      }
    }
  });

  it('refuses policy shares that add up to more than 1', () => {
    const r = ndb('data', 'build', '--out', join(dir, 'c'), '--programs', '4', '--jumps', '0.6', '--walks', '0.5');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ndb: error: --jumps 0.6 and --walks 0.5 add up to more than 1');
  });
});

describe('ndb data and ndb eval on the wrong files', () => {
  const badTokenizer = join(dir, 'bad-tokenizer');
  mkdirSync(badTokenizer, { recursive: true });
  writeFileSync(join(badTokenizer, 'tokenizer.json'), '{oops');
  const notJson = join(dir, 'notes.jsonl');
  writeFileSync(notJson, '# not a held-out file\n');
  const wrongRows = join(dir, 'rows.jsonl');
  writeFileSync(wrongRows, '{"code": 1}\n');
  const model = join(import.meta.dirname, '..', 'models', 'default');
  const dataset = join(dir, 'empty-dataset'); // the splits are there, so only the tokenizer is wrong
  mkdirSync(dataset, { recursive: true });
  for (const split of ['train', 'validation']) writeFileSync(join(dataset, `${split}.jsonl`), '');
  it.each([
    ['tokenize without a dataset', ['data', 'tokenize', '--data', join(dir, 'none'), '--tokenizer', model, '--out', join(dir, 't')], /is not a dataset folder \(no train.jsonl; see ndb data build\)/],
    ['tokenizer without a dataset', ['data', 'tokenizer', '--data', join(dir, 'none'), '--out', join(dir, 'tk')], /is not a dataset folder/],
    ['tokenize without a tokenizer', ['data', 'tokenize', '--data', dataset, '--tokenizer', join(dir, 'none'), '--out', join(dir, 't')], /has no tokenizer.json/],
    ['tokenize with a corrupt tokenizer', ['data', 'tokenize', '--data', dataset, '--tokenizer', badTokenizer, '--out', join(dir, 't')], /tokenizer.json is not valid/],
    ['build into a path under a file', ['data', 'build', '--out', join(notJson, 'out'), '--programs', '2'], /cannot mkdir .*notes.jsonl\/out: part of the path is a file, not a folder/],
    // Node's recursive mkdir loops forever here (the system says ENOENT though /proc exists).
    ['build under /proc, where no folder can be made', ['data', 'build', '--out', '/proc/ndb-no-such/out', '--programs', '2'], /cannot mkdir \/proc\/ndb-no-such: no such file or folder/],
    ['eval on a file that is not JSON', ['eval', 'states', '--data', notJson], /line 1: not a CruxEval row .*: not JSON/],
    ['eval states with an unknown policy', ['eval', 'states', '--policy', 'random'], /--policy must be one of paper, jumps, walk/],
    ['eval on rows of the wrong shape', ['eval', 'cruxeval', '--task', 'output', '--data', wrongRows], /line 1: not a CruxEval row/],
  ])('%s: one clear line, exit code 2, not reported as a bug', (_name, args, pattern) => {
    const r = ndb(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

