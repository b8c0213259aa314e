/** Limits on what is stored per message (Temporal history keeps payloads, intents and results), as HTTP errors. */
import { storedSizeExcess } from '../messages/send-limits';
import { ApiError } from './errors';

/** 413 `payload_too_large` when the named fields together are larger than `maxBytes` as JSON. */
export function requireStoredSize(fields: Record<string, unknown>, maxBytes: number): void {
  const excess = storedSizeExcess(fields, maxBytes);
  if (excess)
    throw new ApiError(
      413,
      'payload_too_large',
      `${excess.fields.join(' and ')} take ${excess.bytes} bytes; at most ${excess.max_bytes} are stored`,
      excess,
    );
}
