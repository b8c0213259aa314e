/** Registers our custom search attributes in the namespace, once; harmless when they already exist. */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from './temporal';

export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !(key.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } catch (error) {
    // Another replica added them at the same moment.
    if (!/already exists/i.test((error as Error).message)) throw error;
  }
}

/** The same attributes as `name=Type` pairs for `temporal server start-dev --search-attribute`. */
export function devServerSearchAttributes(): Record<string, string> {
  return Object.fromEntries(SEARCH_ATTRIBUTES.map((key) => [key.name, 'Keyword']));
}
