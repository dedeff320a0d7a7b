/**
 * A missing model skips the model's tests on a developer's machine and fails them in CI
 * (test/fixtures.ts, modelPresent): checked on an empty model folder, directly and through the
 * fixtures module as a test file loads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EMBEDDED_MODEL, inCI, modelPresent } from './fixtures.js';

const empty = mkdtempSync(join(tmpdir(), 'ndb-empty-model-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('a missing model', () => {
  it('CI is told by the CI variable', () => {
    expect(inCI({ CI: 'true' })).toBe(true);
    expect(inCI({ CI: '1' })).toBe(true);
    expect(inCI({})).toBe(false);
    expect(inCI({ CI: 'false' })).toBe(false);
    expect(inCI({ CI: '0' })).toBe(false);
    expect(inCI({ CI: '' })).toBe(false);
  });

  it('off CI: the model tests are skipped (modelPresent is false)', () => {
    expect(modelPresent(empty, {})).toBe(false);
    expect(modelPresent(join(empty, 'absent'), { CI: 'false' })).toBe(false);
  });

  it('in CI: an error that names the folder and what to do', () => {
    expect(() => modelPresent(empty, { CI: 'true' })).toThrow(/no model at .*ndb-empty-model-.*in CI the tests that run the model must run.*NDB_TEST_MODEL/);
  });

  it('a folder with its manifest is a model, in CI too', () => {
    expect(modelPresent(EMBEDDED_MODEL, { CI: 'true' })).toBe(true);
  });

  it('in CI, loading the fixtures with NDB_TEST_MODEL at an empty folder fails loudly (as every model test file would)', async () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv('NDB_TEST_MODEL', empty);
    try {
      vi.resetModules();
      await expect(import('./fixtures.js')).rejects.toThrow(`no model at ${empty}`);
      vi.stubEnv('CI', '');
      vi.resetModules();
      const offCI = await import('./fixtures.js');
      expect(offCI.HAS_MODEL).toBe(false);
      expect(offCI.MODEL_DIR).toBe(empty);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
