/** Limits on what is stored per message (Temporal history keeps payloads, intents and results). */
import { storedBytes } from '../rules/stored-size';
import { ApiError } from './errors';

/** 413 `payload_too_large` when the named fields together are larger than `maxBytes` as JSON. */
export function requireStoredSize(fields: Record<string, unknown>, maxBytes: number): void {
  const bytes = storedBytes(fields);
  if (bytes > maxBytes) {
    throw new ApiError(413, 'payload_too_large', `${Object.keys(fields).join(' and ')} take ${bytes} bytes; at most ${maxBytes} are stored`, {
      fields: Object.keys(fields),
      bytes,
      max_bytes: maxBytes,
    });
  }
}
