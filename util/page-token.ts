/**
 * A caller's page token for one of Temporal's visibility cursors: the cursor wrapped with a digest of the query it
 * belongs to, so a token used with other filters (or made up) is refused, never a page of something else. Pure.
 *
 * Given keys, the token also carries a MAC of query and cursor, so a cursor the caller made up never reaches
 * Temporal (which answers an unreadable cursor with UNKNOWN, after the client's retries: ~19 s, then a 500).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Past this, a token is not one of ours (Temporal's cursors are far shorter). */
export const MAX_PAGE_TOKEN_CHARS = 4096;

function queryDigest(query: string): string {
  return createHash('sha256').update(query).digest('hex').slice(0, 16);
}

function macOf(key: string, query: string, cursor: string): string {
  return createHmac('sha256', key).update(`page-token\0${query}\0${cursor}`).digest('base64url');
}

/** The token for Temporal's `cursor` of the next page under `query`; empty on the last page (an empty cursor). */
export function pageTokenOf(cursor: Uint8Array, query: string, key?: string): string {
  if (cursor.length === 0) return '';
  const c = Buffer.from(cursor).toString('base64');
  return Buffer.from(
    JSON.stringify({ q: queryDigest(query), c, ...(key ? { m: macOf(key, query, c) } : {}) }),
  ).toString('base64url');
}

function macMatches(mac: unknown, keys: readonly string[], query: string, cursor: string): boolean {
  if (typeof mac !== 'string') return false;
  const given = Buffer.from(mac);
  return keys.some((key) => {
    const expected = Buffer.from(macOf(key, query, cursor));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/**
 * Temporal's cursor from a token made for `query` (with one of `keys`, when given): undefined for the first page
 * (''), 'invalid' for anything else.
 */
export function cursorOfToken(
  token: string,
  query: string,
  keys?: readonly string[],
): Uint8Array | undefined | 'invalid' {
  if (token === '') return undefined;
  if (token.length > MAX_PAGE_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return 'invalid';
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return 'invalid';
  }
  const { q, c, m } = (parsed ?? {}) as { q?: unknown; c?: unknown; m?: unknown };
  if (q !== queryDigest(query) || typeof c !== 'string' || c === '') return 'invalid';
  if (keys && !macMatches(m, keys, query, c)) return 'invalid';
  return new Uint8Array(Buffer.from(c, 'base64'));
}
