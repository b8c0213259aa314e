/**
 * Agent-supplied JSON Schema `pattern`s run on callers' text, so they run on RE2 (re2js, pure JavaScript): matching
 * takes time linear in the input whatever the pattern, so `^(a+)+$` cannot stall the event loop. RE2 has no
 * backreferences or lookaround; a pattern that needs them is refused at registration.
 */
import { RE2JS } from 're2js';
import { LruCache } from './lru';

/** Longest pattern accepted: RE2's program grows with it. */
export const MAX_PATTERN_CHARS = 500;

/** What ajv and the extractor need of a compiled pattern: an unanchored search, as JSON Schema's `pattern` is. */
export interface SafePattern {
  test(text: string): boolean;
  toString(): string;
}

type Compiled = { pattern: SafePattern } | { problem: string };

const compiled = new LruCache<string, Compiled>(2_000);

/**
 * ECMAScript's `\uXXXX` and `\u{X…}` escapes, common in patterns written for JavaScript, in RE2's `\x{…}` spelling.
 * Escaped backslashes are copied as they are, so `\\u0041` stays a backslash followed by "u0041".
 */
export function toRe2Syntax(pattern: string): string {
  return pattern.replace(
    /\\\\|\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})/g,
    (whole, braced?: string, four?: string) => ((braced ?? four) ? `\\x{${braced ?? four}}` : whole),
  );
}

function compile(pattern: string): Compiled {
  if (pattern.length > MAX_PATTERN_CHARS)
    return { problem: `the pattern is longer than ${MAX_PATTERN_CHARS} characters` };
  try {
    const re = RE2JS.compile(toRe2Syntax(pattern));
    // ajv keys its shared pattern cache by toString(), as it would a RegExp's "/…/u": each pattern needs its own.
    return { pattern: { test: (text) => re.matcher(text).find(), toString: () => `re2:${pattern}` } };
  } catch (error) {
    return {
      problem: `the pattern is not supported by the linear-time engine (RE2: no backreferences or lookaround): ${(error as Error).message}`,
    };
  }
}

function cached(pattern: string): Compiled {
  let entry = compiled.get(pattern);
  if (!entry) {
    entry = compile(pattern);
    compiled.set(pattern, entry);
  }
  return entry;
}

/** The pattern compiled for linear-time matching, or null when RE2 cannot take it. */
/** How many compiled patterns are kept (bounded by the LRU's 2,000). */
export function cachedPatterns(): number {
  return compiled.size;
}

export function safePattern(pattern: string): SafePattern | null {
  const entry = cached(pattern);
  return 'pattern' in entry ? entry.pattern : null;
}

/** Why the pattern cannot be used, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  const entry = cached(pattern);
  return 'problem' in entry ? entry.problem : undefined;
}

/** ajv's `code.regExp` option: every `pattern` and `patternProperties` key ajv compiles runs on RE2. */
export const re2RegExpEngine = Object.assign(
  (pattern: string): SafePattern => {
    const entry = cached(pattern);
    if ('problem' in entry) throw new Error(entry.problem);
    return entry.pattern;
  },
  { code: 'require("re2js")' },
);
