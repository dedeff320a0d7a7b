/**
 * The benchmark's programs: the first rows of the held-out set (evaluation/heldout.jsonl,
 * CruxEval-format rows: `code`, `input`, entry `f`), written to files as a debugger would
 * open them, and the examples/ programs with fixed arguments, the last a longer file of
 * several functions (orders.py: 31 lines, 330 tokens of context before any history, a real
 * run of 70 states). Fixed, so runs compare.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface BenchProgram {
  name: string;
  path: string;
  entry: string;
  args: string;
}

const EXAMPLES: Omit<BenchProgram, 'path'>[] = [
  { name: 'examples/count.py', entry: 'count', args: "'berry', 'r'" },
  { name: 'examples/shapes.py', entry: 'total_area', args: "[('square', 3), ('rect', (2, 4))]" },
  { name: 'examples/orders.py', entry: 'summarise', args: "['apple: 3', 'Fig:10', 'plum', 'pear:2']" },
];

export async function benchPrograms(root: string, dir: string, heldoutRows: number, examples: number): Promise<BenchProgram[]> {
  const rows = (await readFile(join(root, 'evaluation', 'heldout.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, heldoutRows)
    .map((l) => JSON.parse(l) as { id: string; code: string; input: string });
  const programs: BenchProgram[] = [];
  for (const row of rows) {
    const path = join(dir, `${row.id.replace(/\W+/g, '_')}.py`);
    await writeFile(path, row.code);
    programs.push({ name: row.id, path, entry: 'f', args: row.input });
  }
  for (const e of EXAMPLES.slice(0, examples)) programs.push({ ...e, path: join(root, e.name) });
  return programs;
}
