/**
 * The docs name only what is there: every relative link of README.md and docs/*.md, and every inline-code path that
 * names a file or folder of this repository, exists. Which inline code is a repository path: a path whose first part
 * is a top-level entry of the repository (`api/routes/`, `.ci/run`); a bare source file name (`chain-run.ts`), which
 * must exist somewhere, and within the folder when it is named in that folder's row of a table (`| \`messages/\` |`).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(__dirname, '../..');
/** Not the repository's own: dependencies, git, and what runs and tests write (they are in .gitignore). */
const NOT_OURS = new Set([
  'node_modules',
  '.git',
  'dist',
  '.agent-reach-data',
  '.agent-reach-cluster',
  '.tmp',
  '__pycache__',
]);
/** Written by a run, not committed: a doc may name it (test/output is in .gitignore). */
const WRITTEN_BY_RUNS = ['test/output/'];
const SOURCE_FILE = /^[\w.-]+\.(?:ts|cjs|mjs|py)$/;
const PATH_LIKE = /^\.?[\w@-][\w.@-]*(?:\/[\w.@-]+)*\/?$/;

function repoFiles(dir = ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (NOT_OURS.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? repoFiles(path) : [relative(ROOT, path)];
  });
}

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const files = repoFiles();
const basenames = new Set(files.map((f) => f.split('/').at(-1)));
const topLevel = new Set(readdirSync(ROOT).filter((name) => !NOT_OURS.has(name)));

/** Each line of a doc outside fenced code blocks, with its number. */
function proseLines(doc: string, text: string): { line: string; at: string }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, index) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    return fenced || line.trimStart().startsWith('```') ? [] : [{ line, at: `${doc}:${index + 1}` }];
  });
}

const read = (doc: string) => readFileSync(join(ROOT, doc), 'utf8');

/** Where a doc's relative links point that does not exist. */
function brokenLinks(doc: string, text = read(doc)): string[] {
  return proseLines(doc, text).flatMap(({ line, at }) =>
    [...line.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split('#')[0]!)
      .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .filter((target) => !existsSync(resolve(ROOT, dirname(doc), decodeURIComponent(target))))
      .map((target) => `${at} links to ${target}`),
  );
}

/** The inline-code repository paths of a doc that do not exist. */
function missingPaths(doc: string, text = read(doc)): string[] {
  return proseLines(doc, text).flatMap(({ line, at }) => {
    const folder = /^\| `([\w.-]+\/)` \|/.exec(line)?.[1];
    return [...line.matchAll(/`([^`\s]+)`/g)].flatMap((m) => {
      const path = m[1]!;
      if (!PATH_LIKE.test(path)) return [];
      if (path.includes('/') && topLevel.has(path.split('/')[0]!)) {
        if (WRITTEN_BY_RUNS.some((written) => path.startsWith(written))) return [];
        return existsSync(join(ROOT, path)) ? [] : [`${at} names ${path}`];
      }
      if (!SOURCE_FILE.test(path)) return [];
      if (!basenames.has(path)) return [`${at} names ${path}, which is nowhere`];
      if (folder && !files.some((f) => f.startsWith(folder) && f.endsWith(`/${path}`)))
        return [`${at} names ${path} in the row of ${folder}, which has none`];
      return [];
    });
  });
}

describe('docs name what is there', () => {
  it('docs paths - the docs are found', () => {
    assert.ok(docs.length >= 10, docs.join(', '));
    assert.ok(files.includes(normalize('api/routes/chains.ts')));
  });

  it("docs paths - what the checks flag and what they leave: stale paths and links, not URLs, other programs' files or run output", () => {
    const text = [
      'Intake (`api/message-service.ts`, `messages/intake.ts`), routes in `api/routes/`, `.ci/run`, a stale `.ci/walk`.',
      'Not ours: `/v1/chains`, `build/version/version.txt`, `tokenizer.json`, `msg:<tenant>:<id>`, `test/output/dashboard.png`.',
      'Bare names: `chain-run.ts` is somewhere, `no-such-file.ts` nowhere.',
      '| `temporal-callers/` | `contract.ts`, `endpoint.ts` (in nexus/), `chain-run.ts` (elsewhere) |',
      '```sh',
      'cat `gone/file.ts`',
      '```',
      'See [chains](chains.md), [a section](chains.md#list), [the site](https://temporal.io), [gone](gone.md), [here](#top).',
    ].join('\n');
    assert.deepEqual(missingPaths('docs/example.md', text), [
      'docs/example.md:1 names api/message-service.ts',
      'docs/example.md:1 names .ci/walk',
      'docs/example.md:3 names no-such-file.ts, which is nowhere',
      'docs/example.md:4 names chain-run.ts in the row of temporal-callers/, which has none',
    ]);
    assert.deepEqual(brokenLinks('docs/example.md', text), ['docs/example.md:8 links to gone.md']);
  });

  it('docs paths - every relative link of README.md and docs/*.md exists', () => {
    assert.deepEqual(
      docs.flatMap((doc) => brokenLinks(doc)),
      [],
    );
  });

  it('docs paths - every repository file or folder the docs name in code exists', () => {
    assert.deepEqual(
      docs.flatMap((doc) => missingPaths(doc)),
      [],
    );
  });
});
