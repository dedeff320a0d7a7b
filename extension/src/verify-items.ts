/**
 * Verify Tests (the command): `ndb verify`'s JSON report as quick-pick items, the failing
 * cases first, each with the launch that debugs its call. No vscode import: the test reads
 * it directly.
 */

/** The part of `ndb verify --json` (evaluation/verify.ts VerifyReport) the command reads. */
export interface VerifyJson {
  solution: string;
  passed: number;
  total: number;
  cases: {
    case: { source: 'tests' | 'doctest'; line: number; text: string; function?: string; args?: string; unknown?: string };
    verdict: 'pass' | 'fail' | 'raises' | 'unknown';
    predicted: string | null;
    exception?: string;
    confidence: number | null;
    reason?: string;
  }[];
}

export interface VerifyItem {
  label: string;
  description: string;
  detail?: string;
  /** 1-based line of the case in the file. */
  line: number;
  /** The case's call, to debug: absent when the case is no call with literals. */
  debug?: { entry: string; args: string };
}

const ICON = { pass: '$(pass)', fail: '$(error)', raises: '$(error)', unknown: '$(question)' } as const;
const ORDER = { fail: 0, raises: 0, unknown: 1, pass: 2 } as const;

export function verifyItems(report: VerifyJson): VerifyItem[] {
  return report.cases
    .map((r, i) => ({ r, i }))
    .sort((a, b) => ORDER[a.r.verdict] - ORDER[b.r.verdict] || a.i - b.i)
    .map(({ r }) => {
      const verdict = r.verdict === 'raises' ? `raises ${r.exception ?? ''}`.trim() : r.verdict;
      const confidence = r.confidence === null ? '' : ` (${Math.round(r.confidence * 100)}%)`;
      const got = r.predicted === null ? '' : `, got ${r.predicted.length > 60 ? `${r.predicted.slice(0, 59)}…` : r.predicted}`;
      const c = r.case;
      return {
        label: `${ICON[r.verdict]} line ${c.line}: ${c.text}`,
        description: `predicted: ${verdict}${got}${confidence}`,
        ...(r.reason ? { detail: r.reason } : {}),
        line: c.line,
        ...(c.function !== undefined && c.args !== undefined ? { debug: { entry: c.function, args: c.args } } : {}),
      };
    });
}

/** The summary shown above the items: `predicted: P of N pass`. */
export function verifySummary(report: VerifyJson): string {
  return `predicted: ${report.passed} of ${report.total} pass`;
}
