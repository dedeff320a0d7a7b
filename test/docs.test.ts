/**
 * The documentation stays a house a newcomer can enter: the README short, every topic in
 * docs/ listed in it, and no link leaving the repository (a clone has nothing outside it) or
 * pointing at a file that is not there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';

function markdownFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(folder, e.name)) : e.name.endsWith('.md') ? [join(folder, e.name)] : [],
  );
}

const DOCS = ['README.md', 'training/README.md', 'models/default/README.md', ...markdownFiles('docs')];

/** The link targets of a markdown text, code blocks and code spans left out. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the documentation', () => {
  it('README.md is under 250 lines and 20 KB; training/README.md under 200 lines', () => {
    const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1; // as wc -l counts
    expect(lines('README.md')).toBeLessThan(250);
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThan(20_000);
    expect(lines('training/README.md')).toBeLessThan(200);
  });

  it('every topic in docs/ is listed in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const topics = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(topics.filter((f) => !readme.includes(`(docs/${f})`))).toEqual([]);
  });

  it('no link leaves the repository, and every link reaches a file that is there', () => {
    const outside: string[] = [];
    const missing: string[] = [];
    for (const file of DOCS) {
      for (const target of links(readFileSync(join(ROOT, file), 'utf8'))) {
        if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('//')) {
          outside.push(`${file}: ${target}`);
          continue;
        }
        const path = target.split('#')[0]!;
        if (path === '') continue;
        const full = resolve(ROOT, dirname(file), decodeURI(path));
        if (relative(ROOT, full).startsWith('..')) outside.push(`${file}: ${target}`);
        else if (!existsSync(full)) missing.push(`${file}: ${target}`);
      }
    }
    expect(outside).toEqual([]);
    expect(missing).toEqual([]);
  });
});
