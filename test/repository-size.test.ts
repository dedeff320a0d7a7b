/**
 * .ci/check-size, which CI runs first: a tracked file over the size limit, or a last commit
 * that adds more than the commit limit, fails it with the file or the commit named. Checked
 * on small throw-away repositories with small limits (MAX_FILE_BYTES, MAX_COMMIT_BYTES).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';

const CHECK = join(ROOT, '.ci', 'check-size');

function repo(): { dir: string; commit: (files: Record<string, number>) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ndb-size-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  return {
    dir,
    commit(files) {
      for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), Buffer.alloc(bytes, name));
      git('add', '.');
      git('commit', '-q', '-m', 'files');
    },
  };
}

const check = (dir: string, env: Record<string, string>) => spawnSync(CHECK, [dir], { encoding: 'utf8', env: { ...process.env, ...env } });

describe('.ci/check-size', () => {
  it('passes on this repository', () => {
    const r = spawnSync(CHECK, [], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^check-size: no tracked file over 25.0 MB; the last commit adds [\d.]+ MB \(at most 40.0 MB\)\n$/);
  });

  it('names a tracked file over the limit, even one an earlier commit added', () => {
    const { dir, commit } = repo();
    commit({ 'big.bin': 3000, 'small.txt': 10 });
    commit({ 'other.txt': 10 });
    const r = check(dir, { MAX_FILE_BYTES: '2000', MAX_COMMIT_BYTES: '100000' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('tracked files over 0.0 MB:\n  big.bin 0.0 MB');
    expect(r.stderr).not.toContain('small.txt');
  });

  it('fails a last commit that adds more than the limit, counting added and changed files', () => {
    const { dir, commit } = repo();
    commit({ 'a.bin': 1500 });
    expect(check(dir, { MAX_FILE_BYTES: '10000', MAX_COMMIT_BYTES: '2000' }).status).toBe(0);
    commit({ 'a.bin': 1600, 'b.bin': 1500 }); // a.bin changed (1,600) and b.bin added (1,500): 3,100
    const r = check(dir, { MAX_FILE_BYTES: '10000', MAX_COMMIT_BYTES: '3000' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the last commit \(\w+\) adds 0.0 MB of file contents, over 0.0 MB/);
    expect(check(dir, { MAX_FILE_BYTES: '10000', MAX_COMMIT_BYTES: '3100' }).status).toBe(0);
  });
});
