/** What a message stores in Temporal's history (payload, intent, params), measured as JSON: one rule for every way in. */

import { jsonBytes } from '../util/json-bytes';

/** The fields of a message body that are stored with it. */
export function storedFields(body: {
  payload?: unknown;
  intent?: string | undefined;
  params?: unknown;
}): Record<string, unknown> {
  return { payload: body.payload, intent: body.intent, params: body.params };
}

/** Bytes the named fields take together, as JSON. */
export function storedBytes(fields: Record<string, unknown>): number {
  return Object.values(fields).reduce<number>((sum, value) => sum + jsonBytes(value), 0);
}
