/**
 * Every error code the source uses is in the error table (rules/error-codes.ts), with the status the table gives it,
 * and every code of the table is used somewhere. The source is read as text: `new ApiError(<status>, '<code>'`,
 * `code: '<code>'`, `errorBody('<code>'`, `toolError('<code>'`, the refusals' constructors and the types of
 * non-retryable Temporal failures; the code vocabularies typed as unions are held to the table by the compiler below.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { TokenRefusalCode } from '../../identity/token-refusal';
import type { ReasonCode } from '../../messages/message';
import type { IntakeCode } from '../../messages/intake-refusals';
import type { PlanIssue } from '../../chains/plan';
import type { ErrorFrame } from '../../protocol/frames';
import { CHAIN_FAILURES } from '../../chains/temporal';
import { SEND_FAILURES } from '../../temporal-callers/contract';
import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry } from '../../rules/error-codes';

// The compiler checks these vocabularies: a member not in the table fails `npm run typecheck`.
type Within<T extends ErrorCode> = T;
export type TypedVocabularies = Within<
  ReasonCode | TokenRefusalCode | IntakeCode | PlanIssue['code'] | ErrorFrame['code']
>;

const ROOT = resolve(__dirname, '../..');
/** Where codes a client reads are made. Not the router's inner verdicts (router/), nor tests, demos and benchmarks. */
const SOURCE_DIRS = [
  'api',
  'activities',
  'workflows',
  'chains',
  'messages',
  'temporal-callers',
  'rules',
  'catalogue',
  'protocol',
  'identity',
  'worker',
  'planner',
  'sdk',
  'store',
  'platform',
  'util',
  'cli',
];
const TABLE_FILE = 'rules/error-codes.ts';
/** zod's issue code in refinements (`ctx.addIssue({ code: 'custom' })`): not ours. */
const NOT_OURS = new Set(['custom']);

const USE_PATTERNS = [
  /\bcode: '([a-z][a-z0-9_]*)'/g,
  /\b(?:errorBody|toolError|refusal|Refusal|notFound|refuse)\('([a-z][a-z0-9_]*)'/g,
  /ApplicationFailure\.nonRetryable\([^;]*?,\s*'([a-z][a-z0-9_]*)'\s*\)/g,
  /new ApiError\(\s*\d{3},\s*'([a-z][a-z0-9_]*)'/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(resolve(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|cjs|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const files = SOURCE_DIRS.flatMap(sourceFiles)
  .filter((file) => file !== TABLE_FILE)
  .map((file) => ({ file, text: readFileSync(resolve(ROOT, file), 'utf8') }));
const table = ERROR_CODES as Record<string, ErrorCodeEntry>;

function usedCodes(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const { file, text } of files) {
    for (const pattern of USE_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const code = match[1]!;
        if (!NOT_OURS.has(code)) used.set(code, [...(used.get(code) ?? []), relative(ROOT, resolve(ROOT, file))]);
      }
    }
  }
  return used;
}

describe('error codes', () => {
  it('error codes - every code the source uses is in the table', () => {
    const used = usedCodes();
    assert.ok(used.size > 50, `the scan found only ${used.size} codes: is it still reading the source?`);
    const missing = [...used]
      .filter(([code]) => !(code in table))
      .map(([code, where]) => `${code} (${[...new Set(where)].join(', ')})`);
    assert.deepEqual(missing, [], 'codes used but not in rules/error-codes.ts');
  });

  it('error codes - a literal `new ApiError(status, code` answers the status the table gives the code', () => {
    const wrong = files.flatMap(({ file, text }) =>
      [...text.matchAll(/new ApiError\(\s*(\d{3}),\s*'([a-z][a-z0-9_]*)'/g)]
        .filter(([, status, code]) => table[code!]?.status !== Number(status))
        .map(([, status, code]) => `${file}: ${status} ${code} (the table: ${table[code!]?.status})`),
    );
    assert.deepEqual(wrong, []);
  });

  it('error codes - the Temporal failure types are codes of the table, marked with their runs', () => {
    for (const type of Object.values(SEND_FAILURES))
      assert.ok(table[type]?.temporal?.includes('sendMessage'), `${type}: sendMessage`);
    for (const type of Object.values(CHAIN_FAILURES))
      assert.ok(table[type]?.temporal?.includes('runChain'), `${type}: runChain`);
  });

  it('error codes - every code of the table is used somewhere (no dead codes)', () => {
    const all = files.map(({ text }) => text).join('\n');
    // A2A task states become `a2a_<state>` in one template (protocol/a2a-delivery.ts outcomeOfTask).
    const a2aStates = all.includes("code: `a2a_${state.replace(/-/g, '_')}`");
    const dead = Object.keys(table).filter((code) => {
      if (code.startsWith('a2a_')) return !a2aStates;
      return !all.includes(`'${code}'`);
    });
    assert.deepEqual(dead, [], 'codes in rules/error-codes.ts that no source file uses');
  });

  it('error codes - every entry says what it means; statuses are HTTP error statuses', () => {
    for (const [code, entry] of Object.entries(table)) {
      assert.match(code, /^[a-z][a-z0-9_]*$/, code);
      assert.ok(entry.meaning.length > 10, `${code}: meaning`);
      if (entry.status !== undefined) assert.ok(entry.status >= 400 && entry.status < 600, `${code}: ${entry.status}`);
    }
  });
});
