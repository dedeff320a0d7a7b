#!/usr/bin/env node
/**
 * `npm run test:e2e`: the extension in a real VS Code. code-server (VS Code in the browser)
 * with extension/ndb.vsix installed, driven by playwright-core through Debian's chromium:
 * open examples/count.py, start neural debugging (F5, launch.json), F10, F11, Shift+F11,
 * Step Back, hover a variable, Show Predicted Trace; check what the Variables view, the Call
 * Stack, the hover and the status bar show (structure only: the model's values are its own).
 * Then a long file: test/fixtures/long_module_1k.py (1,064 lines), the second launch
 * configuration picked in the Run and Debug view, F5 on its summarize (line 1039, its callees
 * and constants hundreds of lines above): the model sees a cut of it (program-analysis/cut.ts),
 * the user the file's own line numbers. Then breakpoints (test/e2e/grow.py, the third
 * configuration): a conditional breakpoint and a logpoint added through the editor's breakpoint
 * widget, a data breakpoint from the Variables view's context menu, the Breakpoints view's
 * Raised Exceptions filter; each checked where the adapter decides it (the stop's line, the
 * condition's value there, the logpoint's message in the Debug Console, the changed value, the
 * exception widget), not on the model's other values. Screenshots go to test-results/e2e/.
 *
 * Needs (test/e2e/README.md says how to get them offline):
 *   .e2e/node_modules/.bin/code-server   (or NDB_CODE_SERVER)  — test/e2e/setup.sh
 *   /usr/bin/chromium                    (or NDB_CHROMIUM)     — apt-get install chromium
 *   extension/ndb.vsix                   — npm run package (built here when missing)
 *
 * Not part of `npm test` (vitest includes test/**\/*.test.ts only).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CODE_SERVER = process.env.NDB_CODE_SERVER ?? join(ROOT, '.e2e', 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.NDB_CHROMIUM ?? '/usr/bin/chromium';
const VSIX = process.env.NDB_VSIX ?? join(ROOT, 'extension', 'ndb.vsix');
const SHOTS = join(ROOT, 'test-results', 'e2e');
/** A loaded 2-core machine: VS Code in a browser is slow to start; a prediction is ~0.1–1 s. */
const TIMEOUT = Number(process.env.NDB_E2E_TIMEOUT_MS ?? 90_000);

const started = Date.now();
const results = [];
function elapsed() {
  return `${((Date.now() - started) / 1000).toFixed(1)}s`;
}
function log(line) {
  process.stdout.write(`[e2e ${elapsed()}] ${line}\n`);
}
function check(name, ok, detail = '') {
  results.push({ name, ok });
  log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}

for (const [what, path, how] of [
  ['code-server', CODE_SERVER, 'run test/e2e/setup.sh'],
  ['chromium', CHROMIUM, 'apt-get install -y chromium'],
]) {
  if (!existsSync(path)) {
    console.error(`e2e: no ${what} at ${path}: ${how} (test/e2e/README.md)`);
    process.exit(2);
  }
}
if (!existsSync(VSIX) || process.argv.includes('--package')) {
  log('building the vsix (npm run package)');
  execFileSync(process.execPath, [join(ROOT, 'extension', 'scripts', 'package.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

// ---- a workspace, a profile, code-server ------------------------------------------------------

const tmp = mkdtempSync(join(tmpdir(), 'ndb-e2e-'));
const workspace = join(tmp, 'workspace');
const userData = join(tmp, 'user-data');
const extensions = join(tmp, 'extensions');
mkdirSync(join(workspace, '.vscode'), { recursive: true });
mkdirSync(join(userData, 'User'), { recursive: true });
cpSync(join(ROOT, 'examples', 'count.py'), join(workspace, 'count.py'));
const LONG_FILE = 'long_module_1k.py';
cpSync(join(ROOT, 'test', 'fixtures', LONG_FILE), join(workspace, LONG_FILE));
const LONG_LINES = readFileSync(join(ROOT, 'test', 'fixtures', LONG_FILE), 'utf8').replace(/\n$/, '').split('\n');
const LONG_ENTRY_LINE = LONG_LINES.findIndex((l) => l.startsWith('def summarize(')) + 1;
const LONG_CONFIG = 'Neural debug: summarize (long file)';
const GROW_FILE = 'grow.py';
cpSync(join(ROOT, 'test', 'e2e', GROW_FILE), join(workspace, GROW_FILE));
const GROW_LINES = readFileSync(join(ROOT, 'test', 'e2e', GROW_FILE), 'utf8').split('\n');
const growLine = (text) => GROW_LINES.findIndex((l) => l.trim() === text) + 1;
const GROW_CONFIG = 'Neural debug: grow (breakpoints)';
writeFileSync(
  join(workspace, '.vscode', 'launch.json'),
  JSON.stringify(
    {
      version: '0.2.0',
      configurations: [
        { type: 'neural-python', request: 'launch', name: 'Neural debug: count', program: '${workspaceFolder}/count.py', entry: 'count', args: "'berry', 'r'", stopOnEntry: true },
        { type: 'neural-python', request: 'launch', name: LONG_CONFIG, program: `\${workspaceFolder}/${LONG_FILE}`, entry: 'summarize', args: "['Banana', 'kiwi']", stopOnEntry: true },
        { type: 'neural-python', request: 'launch', name: GROW_CONFIG, program: `\${workspaceFolder}/${GROW_FILE}`, entry: 'grow', args: '4', stopOnEntry: true },
      ],
    },
    null,
    2,
  ),
);
writeFileSync(
  join(userData, 'User', 'settings.json'),
  JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'editor.hover.delay': 100,
    'debug.toolBarLocation': 'floating',
    'window.commandCenter': false,
    'chat.commandCenter.enabled': false,
    'workbench.colorTheme': 'Default Light Modern',
  }),
);
const config = join(tmp, 'code-server.yaml');
writeFileSync(config, 'auth: none\ncert: false\n');
const env = { ...process.env, XDG_CONFIG_HOME: join(tmp, 'config'), XDG_DATA_HOME: join(tmp, 'data') };
const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];

log(`installing ${VSIX}`);
let t = Date.now();
execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env, stdio: ['ignore', 'pipe', 'inherit'] });
log(`installed in ${((Date.now() - t) / 1000).toFixed(1)}s`);

const port = await freePort();
const server = spawn(CODE_SERVER, [...common, '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', workspace], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverLog = '';
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));
await waitFor(() => serverLog.includes('HTTP server listening'), 60_000, 'code-server to listen');
log(`code-server on port ${port}`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
let exitCode = 1;
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.setDefaultTimeout(TIMEOUT);
  await run(page);
  exitCode = results.every((r) => r.ok) ? 0 : 1;
} catch (err) {
  log(`ERROR ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  // The summary counts it: the checks after the error did not run.
  results.push({ name: 'the run reached its end', ok: false });
  const pages = browser.contexts().flatMap((c) => c.pages());
  if (pages[0]) await pages[0].screenshot({ path: join(SHOTS, 'error.png') }).catch(() => undefined);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  if (exitCode !== 0) log(`code-server's log:\n${serverLog.slice(-4000)}`);
  if (!process.env.NDB_E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
}
log(`${results.filter((r) => r.ok).length}/${results.length} checks passed; screenshots in ${SHOTS}`);
process.exit(exitCode);

// ---- the test ------------------------------------------------------------------------------------

/** @param {import('playwright-core').Page} page */
async function run(page) {
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor();
  log('workbench up');

  // Open count.py (Quick Open), the cursor in count().
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill('count.py');
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-line', { hasText: 'def count(s, t):' }).waitFor();
  await editor.locator('.view-line', { hasText: 'n = 0' }).click();
  await shot('01-count-open');
  log('count.py open');

  // F5: the launch.json configuration (count('berry', 'r')).
  const callStack = page.locator('.debug-call-stack, [id="workbench.debug.callStackView"]').first();
  const variables = page.locator('.debug-variables, [id="workbench.debug.variablesView"]').first();
  const stack = page.locator('.debug-call-stack .monaco-list-row');
  const varRows = page.locator('.debug-variables .monaco-list-row');
  await page.keyboard.press('F5');
  await page.locator('.debug-toolbar').waitFor();
  await stack.filter({ hasText: 'count' }).first().waitFor();
  await varRows.first().waitFor();
  const current = page.locator('.debug-top-stack-frame-line, .codicon-debug-stackframe').first();
  await current.waitFor();
  await shot('02-stopped-on-entry');
  check('call stack names count()', (await stack.filter({ hasText: 'count' }).count()) > 0, (await stack.first().innerText()).replace(/\s+/g, ' '));
  const entryVars = await rowTexts(varRows);
  check('variables show the arguments s and t', entryVars.some((v) => /^s\b/.test(v)) && entryVars.some((v) => /^t\b/.test(v)), entryVars.join(' | '));

  const status = page.locator('.statusbar-item', { hasText: 'ndb:' }).first();
  await status.waitFor();
  check('status bar shows model and device', /ndb: \S+ · (cpu|cuda)/.test(await status.innerText()), await status.innerText());

  /** A key (or action) that moves, then the stop it leads to. */
  const move = async (name, act) => {
    const before = await topFrame(stack);
    const t0 = Date.now();
    await act();
    // The stopped event refreshes the views: wait for the top frame to change (a step may
    // also land where it was, e.g. a loop's head: then after a quiet while, take it as it is).
    await waitFor(async () => (await topFrame(stack)) !== before, 5_000, `${name} to move`).catch(() => undefined);
    await waitFor(async () => (await page.locator('.debug-toolbar .codicon-debug-pause').count()) === 0 && (await stack.count()) > 0, TIMEOUT, `${name} to stop`);
    await page.waitForTimeout(300);
    await varRows.first().waitFor();
    const after = await topFrame(stack);
    await shot(name);
    log(`${name}: ${before} → ${after} (${Date.now() - t0} ms)`);
    return after;
  };

  const lineOf = (frame) => Number(/(\d+)(?::\d+)?\s*$/.exec(frame)?.[1] ?? NaN);
  const f10 = await move('03-f10-step-over', () => page.keyboard.press('F10'));
  check('F10 stops in count() on a line of count.py', /count/.test(f10) && lineOf(f10) >= 5 && lineOf(f10) <= 10, f10);
  check('status bar shows the step time', /\d+ (ms|s)\b/.test(await status.innerText()), await status.innerText());
  // Inline values (the language server's textDocument/inlineValue): after the step from the
  // call, the arguments at the end of the def line, as VS Code draws a real debugger's.
  const inline = page.locator('.view-line .debug-inline-value');
  await waitFor(async () => (await inline.count()) > 0, 15_000, 'inline values').catch(() => undefined);
  const inlineTexts = (await inline.allInnerTexts()).map((x) => x.replace(/\s+/g, ' ').trim());
  await shot('03b-inline-values');
  check('inline values show the arguments where they were set', inlineTexts.some((x) => /\bs = .*\bt = /.test(x)), inlineTexts.join(' | '));
  const f11 = await move('04-f11-step-into', () => page.keyboard.press('F11'));
  check('F11 stops on a line of count.py', lineOf(f11) >= 1 && lineOf(f11) <= 10, f11);
  const out = await move('05-shift-f11-step-out', () => page.keyboard.press('Shift+F11'));
  check('Shift+F11 stops on a line of count.py', lineOf(out) >= 1 && lineOf(out) <= 10, out);
  const back = await move('06-step-back', async () => {
    const button = page.locator('.debug-toolbar .codicon-debug-step-back').first();
    if (await button.count()) await button.click();
    else await runCommand(page, 'Neural Debug: Step Back');
  });
  check('Step Back stops on a line of count.py', lineOf(back) >= 1 && lineOf(back) <= 10, back);
  const backVars = await rowTexts(varRows);
  check('after Step Back the Variables view has rows', backVars.length > 0, backVars.join(' | '));

  // Hover a variable of the current frame: `s` is a parameter, in every frame of count().
  await page.mouse.move(800, 600);
  const hoverTarget = await hoverable(editor, ['for c in s:', 'def count(s, t):']);
  await hoverTarget.hover();
  const hover = page.locator('.debug-hover-widget').first();
  let hoverText = '';
  try {
    await hover.waitFor({ timeout: 20_000 });
    hoverText = (await hover.innerText()).replace(/\s+/g, ' ');
  } catch {
    // retry once: the first hover can race the editor's focus
    await page.mouse.move(10, 10);
    await hoverTarget.hover();
    await hover.waitFor({ timeout: 20_000 }).catch(() => undefined);
    hoverText = (await hover.innerText().catch(() => '')).replace(/\s+/g, ' ');
  }
  await shot('07-hover');
  check('hover over s shows a value', hoverText.length > 0 && /'|"|\d|\[|\{|None/.test(hoverText), hoverText.slice(0, 120));
  await page.mouse.move(5, 500);

  // Show Predicted Trace: a readonly document listing the stops.
  await runCommand(page, 'Neural Debug: Show Predicted Trace');
  const traceLine = page.locator('.view-line', { hasText: 'Predicted trace' }).first();
  await traceLine.waitFor();
  await page.waitForTimeout(500);
  await shot('08-predicted-trace');
  check('Show Predicted Trace opens the trace', (await page.locator('.view-line', { hasText: 'count:' }).count()) > 0);

  // Stop.
  await page.keyboard.press('Shift+F5');
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden' }).catch(() => undefined);
  await shot('09-stopped');

  // The extension's log (its output channel, as code-server writes it): the language server
  // started from the vsix, and got the debug state after the stops and null at the end.
  let extLog = '';
  await waitFor(
    () => {
      extLog = findFiles(join(userData, 'logs'), (f) => f.endsWith('Neural Debugger.log')).map((f) => readFileSync(f, 'utf8')).join('');
      return extLog.includes('ndb/debugState: null');
    },
    10_000,
    'the session end in the extension log',
  ).catch(() => undefined);
  check('the language server runs (ndb lsp --stdio from the vsix)', extLog.includes('language server: started'));
  check('the debug state goes to the language server after each stop, null at the end', /ndb\/debugState: count:\d+, \d+ locals/.test(extLog) && extLog.includes('ndb/debugState: null'), (extLog.match(/ndb\/debugState: .*/g) ?? []).slice(-3).join(' | '));

  await longFile(page, { shot, stack, varRows, lineOf });
  await breakpoints(page, { shot, stack, varRows, lineOf, move });
}

/**
 * A 1,064-line file: open it, pick its configuration in the Run and Debug view, F5 on
 * summarize (line 1039). The stop is on a line of the file near the def (the file's own
 * number), the Call Stack names summarize, the Variables view has rows.
 * @param {import('playwright-core').Page} page
 */
async function longFile(page, { shot, stack, varRows, lineOf }) {
  const t0 = Date.now();
  // One editor group again (the predicted trace opened a second one), then the file.
  await runCommand(page, 'Close All Editor Groups');
  await page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill(LONG_FILE);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: LONG_FILE }).first().waitFor();
  await page.keyboard.press('Enter');
  const line = (text) => page.locator('.editor-instance .monaco-editor .view-line', { hasText: text }).first();
  await line('A 1,000-line module').waitFor();

  const picked = await startConfiguration(page, LONG_CONFIG, line('A 1,000-line module'));
  await page.locator('.debug-toolbar').waitFor();
  await stack.filter({ hasText: 'summarize' }).first().waitFor();
  await varRows.first().waitFor();
  await line('def summarize(words):').waitFor();
  await page.waitForTimeout(300);
  const top = await topFrame(stack);
  await shot('10-long-file-stopped');
  log(`long file: ${top} (${Date.now() - t0} ms from opening it)`);
  check(`the long file (${LONG_LINES.length} lines) has the entry past line 600`, LONG_LINES.length >= 1000 && LONG_ENTRY_LINE > 600, `summarize at line ${LONG_ENTRY_LINE}`);
  check('the Run and Debug view selects the long file\'s configuration (the status bar names it)', picked);
  check("F5 on the long file stops in summarize near its def, on the file's own line", /summarize/.test(top) && lineOf(top) >= LONG_ENTRY_LINE && lineOf(top) <= LONG_ENTRY_LINE + 3, top);
  const vars = await rowTexts(varRows);
  check('the long file: the Variables view has rows', vars.length > 0, vars.join(' | '));
  await page.keyboard.press('Shift+F5');
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden' }).catch(() => undefined);
}

/**
 * Picks a launch configuration in the Run and Debug view's drop-down (a <select> under VS
 * Code's own list) and presses F5 in the editor (`focus`); Debug: Select and Start Debugging
 * where the drop-down does not take. Whether the drop-down selected it.
 * @param {import('playwright-core').Page} page
 */
async function startConfiguration(page, name, focus) {
  const select = page.locator('.start-debug-action-item select').first();
  if (!(await select.isVisible())) await page.keyboard.press('Control+Shift+D');
  await select.waitFor();
  const index = await select.locator('option').evaluateAll((options, wanted) => options.findIndex((o) => (o.textContent ?? '').startsWith(wanted)), name);
  await select.selectOption({ index });
  // The status bar names the selected configuration: then F5 debugs it.
  const picked = await page
    .locator('.statusbar-item', { hasText: name })
    .first()
    .waitFor({ timeout: 5_000 })
    .then(() => true)
    .catch(() => false);
  await focus.click();
  if (picked) await page.keyboard.press('F5');
  else {
    log('the drop-down did not select the configuration: Debug: Select and Start Debugging instead');
    await runCommand(page, 'Debug: Select and Start Debugging');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
  }
  return picked;
}

/**
 * Breakpoints as a VS Code user sets them, on test/e2e/grow.py (`grow(4)`: a loop adding i to
 * total, then a raise caught in the same function):
 *   - a conditional breakpoint (`i == 2`) on `total = total + i` and a logpoint
 *     (`step at i={i}`) on `step = i * 2`, through Debug: Add Conditional Breakpoint… and
 *     Debug: Add Logpoint… (the editor's breakpoint widget), before F5;
 *   - F5 (stop on entry), continue: the stop is the conditional breakpoint's line, the Call
 *     Stack says "Paused on breakpoint", `i` is 2 there (the adapter stops only where the
 *     condition holds over the predicted locals), and the Debug Console has the logpoint's
 *     message for the iterations before (`step at i=N`);
 *   - all breakpoints removed, Break on Value Change on `total` (the Variables view's context
 *     menu: dataBreakpointInfo, setDataBreakpoints), continue: the Call Stack says
 *     "total changed: A → B" and the Variables view's total is no longer what it was;
 *   - all removed again, Raised Exceptions ticked in the Breakpoints view, continue: the stop
 *     is on the `raise` line and the exception widget names ValueError.
 * What the model predicts elsewhere is not checked: each check is one the adapter decides.
 * @param {import('playwright-core').Page} page
 */
async function breakpoints(page, { shot, stack, varRows, lineOf, move }) {
  const t0 = Date.now();
  const condLine = growLine('total = total + i');
  const logLine = growLine('step = i * 2');
  const raiseLine = growLine('raise ValueError(total)');
  await runCommand(page, 'Close All Editor Groups');
  await page.locator('.editor-instance .monaco-editor').first().waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill(GROW_FILE);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: GROW_FILE }).first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  const line = (text) => editor.locator('.view-line', { hasText: text }).first();
  await line('def grow(k):').waitFor();

  /** The breakpoint widget on the line with `text` (the cursor there), `value` typed into it, Enter. */
  const addWithWidget = async (text, command, value) => {
    await line(text).click();
    // The line's start (Add Logpoint… takes the cursor's column: an inline logpoint elsewhere).
    await page.keyboard.press('Home');
    await page.keyboard.press('Home');
    await runCommand(page, command);
    const widget = page.locator('.breakpoint-widget').first();
    await widget.waitFor();
    await widget.locator('.inputContainer textarea, textarea').first().focus().catch(() => undefined);
    await page.keyboard.type(value, { delay: 20 });
    await page.waitForTimeout(300);
    // A suggestion list open over the widget would take the Enter.
    if (await page.locator('.breakpoint-widget .suggest-widget.visible, .suggest-widget.visible').count()) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  };
  await addWithWidget('total = total + i', 'Debug: Add Conditional Breakpoint...', 'i == 2');
  await addWithWidget('step = i * 2', 'Debug: Add Logpoint...', 'step at i={i}');
  const bpRows = page.locator('.debug-breakpoints .monaco-list-row');
  if (!(await page.locator('.debug-breakpoints').first().isVisible())) await page.keyboard.press('Control+Shift+D');
  await bpRows.filter({ hasText: GROW_FILE }).nth(1).waitFor({ timeout: 10_000 }).catch(() => undefined);
  const glyphs = page.locator('.editor-instance .codicon-debug-breakpoint-conditional, .editor-instance .codicon-debug-breakpoint-log');
  await shot('11-breakpoints-set');
  check('the breakpoint widget sets a conditional breakpoint and a logpoint (their glyphs in the margin)', (await glyphs.count()) >= 2, `${await glyphs.count()} glyphs; Breakpoints view: ${(await rowTexts(bpRows)).join(' | ')}`);

  await startConfiguration(page, GROW_CONFIG, line('def grow(k):'));
  await page.locator('.debug-toolbar').waitFor();
  await stack.filter({ hasText: 'grow' }).first().waitFor();
  await varRows.first().waitFor();
  const stateMessage = page.locator('.call-stack-state-message').first();
  const stateText = async () => ((await stateMessage.count()) ? (await stateMessage.innerText()).replace(/\s+/g, ' ').trim() : '');
  const localValue = async (name) => {
    // A row reads `name = value` (VS Code 1.100; `name: value` in older ones).
    const row = (await rowTexts(varRows)).find((r) => new RegExp(`^${name}\\s*[:=]\\s`).test(r));
    return row === undefined ? undefined : row.slice(name.length).replace(/^\s*[:=]\s*/, '');
  };

  // Continue to the conditional breakpoint.
  const atCond = await move('12-conditional-breakpoint', () => page.keyboard.press('F5'));
  const condState = await stateText();
  check(`the conditional breakpoint stops on its line (${condLine}), paused on breakpoint`, /grow/.test(atCond) && lineOf(atCond) === condLine && /breakpoint/i.test(condState), `${atCond}; ${condState}`);
  check('where the conditional breakpoint stops, its condition holds (i is 2)', (await localValue('i')) === '2', (await rowTexts(varRows)).join(' | '));

  // The logpoint's messages, in the Debug Console, for the iterations before the stop.
  // The Debug Console (the panel VS Code opens at the first session; else its command, category Debug Console).
  const repl = page.locator('.repl').first();
  if (!(await repl.isVisible())) await runCommand(page, 'Debug Console: Focus on Debug Console View');
  await repl.waitFor();
  let replText = '';
  await waitFor(async () => /step at i=\d+/.test((replText = await repl.innerText())), 10_000, 'the logpoint message').catch(() => undefined);
  await shot('13-logpoint-output');
  check('the logpoint writes its message with the value in the Debug Console (step at i=N), without stopping there', /step at i=\d+/.test(replText) && lineOf(atCond) !== logLine, (replText.match(/step at i=.*/g) ?? []).slice(0, 4).join(' | '));

  // A data breakpoint on total: Break on Value Change in the Variables view.
  await runCommand(page, 'Remove All Breakpoints');
  await page.waitForTimeout(500);
  const totalBefore = await localValue('total');
  const totalRow = varRows.filter({ hasText: /^\s*total\s*[:=]/ }).first();
  await totalRow.click({ button: 'right' });
  const menuItem = page.locator('.monaco-menu .action-item', { hasText: 'Break on Value Change' }).first();
  const offered = await menuItem
    .waitFor({ timeout: 10_000 })
    .then(() => true)
    .catch(() => false);
  await shot('14-break-on-value-change');
  check('the Variables view offers Break on Value Change on total (dataBreakpointInfo)', offered);
  if (offered) {
    await menuItem.click();
    await bpRows.filter({ hasText: 'total' }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
    const atData = await move('15-data-breakpoint', () => page.keyboard.press('F5'));
    const dataState = await stateText();
    const totalAfter = await localValue('total');
    check('the data breakpoint stops where total changed (Call Stack: "total changed: A → B")', /total changed: .+ → .+/.test(dataState) && /grow/.test(atData), `${atData}; ${dataState}`);
    check('after the data breakpoint the Variables view shows total changed', totalAfter !== undefined && totalAfter !== totalBefore, `${totalBefore} → ${totalAfter}`);
  } else {
    await page.keyboard.press('Escape');
  }

  // An exception breakpoint: Raised Exceptions in the Breakpoints view.
  await runCommand(page, 'Remove All Breakpoints');
  await page.waitForTimeout(500);
  if (!(await page.locator('.debug-breakpoints').first().isVisible())) await page.keyboard.press('Control+Shift+D');
  const raised = bpRows.filter({ hasText: 'Raised Exceptions' }).first();
  await raised.waitFor();
  const box = raised.locator('input[type=checkbox]').first();
  if (!(await box.isChecked())) await box.click();
  await page.waitForTimeout(500);
  check('the Breakpoints view offers debugpy\'s Raised Exceptions filter, ticked', await box.isChecked());
  const atRaise = await move('16-exception-breakpoint', () => page.keyboard.press('F5'));
  const widget = page.locator('.exception-widget').first();
  const widgetText = await widget
    .waitFor({ timeout: 10_000 })
    .then(async () => (await widget.innerText()).replace(/\s+/g, ' '))
    .catch(() => '');
  await shot('17-exception-widget');
  check(`the exception breakpoint stops on the raise (line ${raiseLine}), the exception widget names ValueError`, lineOf(atRaise) === raiseLine && /ValueError/.test(widgetText), `${atRaise}; ${widgetText.slice(0, 120)}; ${await stateText()}`);
  log(`breakpoints: ${Date.now() - t0} ms`);
  // Leave the filter as it was.
  if (await box.isChecked()) await box.click();
  await page.keyboard.press('Shift+F5');
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden' }).catch(() => undefined);
}

function findFiles(dir, keep) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? findFiles(join(dir, e.name), keep) : keep(e.name) ? [join(dir, e.name)] : []));
}

// ---- helpers --------------------------------------------------------------------------------------

/** Runs a command by its title from the Command Palette. */
async function runCommand(page, title) {
  await page.keyboard.press('Control+Shift+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function topFrame(stack) {
  const first = stack.first();
  if (!(await first.count())) return '';
  return (await first.innerText()).replace(/\s+/g, ' ').trim();
}

async function rowTexts(rows) {
  const texts = await rows.allInnerTexts();
  return texts.map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** The token `s` on the first of `lines` the editor shows. */
async function hoverable(editor, lines) {
  for (const text of lines) {
    const line = editor.locator('.view-line', { hasText: text }).first();
    if (!(await line.count())) continue;
    const tokens = line.locator('span > span');
    const n = await tokens.count();
    for (let i = n - 1; i >= 0; i--) {
      if ((await tokens.nth(i).innerText()).trim() === 's') return tokens.nth(i);
    }
  }
  throw new Error('no token s to hover in the editor');
}

async function waitFor(predicate, ms, what) {
  const until = Date.now() + ms;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
