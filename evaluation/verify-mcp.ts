/**
 * `ndb eval verify --via mcp`: the same evaluation with every prediction made by `ndb mcp`'s
 * verify_tests tool, asked by the Model Context Protocol SDK's own client over stdio, as a
 * coding agent asks it (issue 46). Each pool is one tool call: its candidates as sources,
 * its cases as a tests file of asserts; the tool's verdicts, pass counts, Best@k choice and
 * repair-feedback lines come back into the report of verify-eval.ts, scored the same way
 * against the real runs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { z } from 'zod';
import type { OutputMethod } from '../model-client/call-outcome.js';
import { FEEDBACK_STEPS } from './repair-feedback.js';
import { type Judge, testsText } from './verify-eval.js';

/** One verify_tests call may predict a whole pool: up to 8 candidates, each case, each feedback run. */
const CALL_TIMEOUT_MS = 3_600_000;

const Answer = z.object({
  reports: z.array(
    z.object({
      solution: z.string(),
      passed: z.number().int(),
      pass_confidence: z.number(),
      cases: z.array(
        z.object({
          line: z.number().int(),
          verdict: z.enum(['pass', 'fail', 'raises', 'unknown']),
          confidence: z.number().nullable(),
          feedback: z.object({ departure: z.object({ line: z.number().int() }).nullable() }).optional(),
        }),
      ),
    }),
  ),
  best: z.string().optional(),
});

export interface McpJudge {
  judge: Judge;
  close(): Promise<void>;
}

/**
 * A client on a fresh server: `command` starts it (e.g. node bin/ndb.js mcp --model DIR),
 * its log goes to this process's stderr.
 */
export async function mcpJudge(command: readonly string[], opts: { method: OutputMethod; samples?: number; cwd?: string }): Promise<McpJudge> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    stderr: 'inherit',
    env: process.env as Record<string, string>,
  });
  const client = new Client({ name: 'ndb-eval-verify', version: '0.0.0' });
  await client.connect(transport);
  const judge: Judge = async (pool) => {
    const names = pool.candidates.map((_, i) => `candidate ${i + 1}`);
    const result = await client.callTool(
      {
        name: 'verify_tests',
        arguments: {
          solutions: pool.candidates.map((c, i) => ({ source: c.code, name: names[i] })),
          tests: { source: testsText(pool.cases) },
          method: opts.method,
          ...(opts.samples === undefined ? {} : { samples: opts.samples }),
          feedback: 20,
          max_steps: FEEDBACK_STEPS,
        },
      },
      undefined,
      { timeout: CALL_TIMEOUT_MS },
    );
    if (result.isError) throw new Error(`verify_tests on ${pool.problem}: ${JSON.stringify(result.content)}`);
    const answer = Answer.parse(result.structuredContent);
    const candidates = answer.reports.map((r) => {
      // The failure confidence is the tool's ranking's own business: the choice comes from `best`.
      const failConfidence = r.cases.filter((c) => c.verdict === 'fail' || c.verdict === 'raises').reduce((s, c) => s + (c.confidence ?? 0), 0);
      return {
        predicted: r.cases.map((c) => c.verdict),
        passed: r.passed,
        passConfidence: r.pass_confidence,
        failConfidence,
        feedback: r.cases.map((c) => c.feedback?.departure?.line ?? null),
      };
    });
    const chosen = answer.best === undefined ? 0 : names.indexOf(answer.best);
    if (chosen < 0) throw new Error(`verify_tests on ${pool.problem}: best ${JSON.stringify(answer.best)} is none of the candidates`);
    return { candidates, chosen };
  };
  return { judge, close: () => client.close() };
}
