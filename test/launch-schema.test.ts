/**
 * The VS Code extension's launch schema (extension/package.json, what the editor offers and
 * checks in launch.json) lists exactly the attributes the DAP session accepts (adapter/debug-session.ts's
 * zod schema), but for `ndbEvents`, which the extension sets itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LaunchArgsSchema } from '../adapter/debug-session.js';
import { EXCEPTION_FILTERS } from '../adapter/navigation.js';
import { NDB_EVENTS_FLAG } from '../protocol/dap.js';
import { ROOT } from './fixtures.js';

/** Set by the extension for every session (configuration.ts), never written by a user. */
const SET_BY_THE_EXTENSION: string[] = [NDB_EVENTS_FLAG];

describe('the launch configuration', () => {
  it("extension/package.json's launch schema and the session's zod schema list the same attributes", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'extension', 'package.json'), 'utf8'));
    const launch = manifest.contributes.debuggers[0].configurationAttributes.launch;
    const inManifest = Object.keys(launch.properties).sort();
    const inSession = Object.keys(LaunchArgsSchema.shape)
      .filter((k) => !SET_BY_THE_EXTENSION.includes(k))
      .sort();
    expect(inManifest).toEqual(inSession);
    expect(launch.required).toEqual(['program']);
  });

  it("the extension announces the breakpoint kinds and exception filters the adapter offers", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'extension', 'package.json'), 'utf8'));
    const readme = readFileSync(join(ROOT, 'extension', 'README.md'), 'utf8');
    // debugpy's filter ids and labels (VS Code shows the labels in the Breakpoints view).
    expect(EXCEPTION_FILTERS.map((f) => f.filter)).toEqual(['raised', 'uncaught', 'userUnhandled']);
    for (const f of EXCEPTION_FILTERS) expect(readme).toContain(f.label);
    for (const feature of ['Conditional breakpoints', 'hit counts', 'logpoints', 'function breakpoints', 'Data breakpoints', 'Step Into Target', 'Jump to Cursor', 'Restart Frame', '(return) f']) expect(readme).toContain(feature);
    expect(manifest.keywords).toEqual(expect.arrayContaining(['conditional breakpoints', 'logpoints', 'data breakpoints']));
    const debuggerEntry = manifest.contributes.debuggers[0];
    expect(debuggerEntry.strings.unverifiedBreakpoints).toMatch(/condition, hit count or log message/);
    expect(debuggerEntry.configurationAttributes.launch.properties.showReturnValue).toMatchObject({ type: 'boolean', default: true });
  });
});
