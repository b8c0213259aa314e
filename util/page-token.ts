/**
 * A caller's page token for one of Temporal's visibility cursors: the cursor wrapped with a digest of the query it
 * belongs to, so a token used with other filters (or made up) is refused, never a page of something else. Pure.
 */
import { createHash } from 'node:crypto';

/** Past this, a token is not one of ours (Temporal's cursors are far shorter). */
export const MAX_PAGE_TOKEN_CHARS = 4096;

function queryDigest(query: string): string {
  return createHash('sha256').update(query).digest('hex').slice(0, 16);
}

/** The token for Temporal's `cursor` of the next page under `query`; empty on the last page (an empty cursor). */
export function pageTokenOf(cursor: Uint8Array, query: string): string {
  if (cursor.length === 0) return '';
  return Buffer.from(JSON.stringify({ q: queryDigest(query), c: Buffer.from(cursor).toString('base64') })).toString('base64url');
}

/** Temporal's cursor from a token made for `query`: undefined for the first page (''), 'invalid' for anything else. */
export function cursorOfToken(token: string, query: string): Uint8Array | undefined | 'invalid' {
  if (token === '') return undefined;
  if (token.length > MAX_PAGE_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return 'invalid';
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return 'invalid';
  }
  const { q, c } = (parsed ?? {}) as { q?: unknown; c?: unknown };
  if (q !== queryDigest(query) || typeof c !== 'string' || c === '') return 'invalid';
  return new Uint8Array(Buffer.from(c, 'base64'));
}
