/** The error table of docs/api.md, from the one table of codes (rules/error-codes.ts). */
import { ERROR_CODES, type ErrorCodeEntry } from '../../rules/error-codes';
import { cell } from './markers';

export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES as Record<string, ErrorCodeEntry>).map(
    ([code, entry]) =>
      `| \`${code}\` | ${entry.status ?? ''} | ${entry.jsonRpc ?? ''} | ${(entry.temporal ?? []).join(', ')} | ${cell(entry.meaning)} |`,
  );
  return ['| Code | HTTP | JSON-RPC | Temporal failure of | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
