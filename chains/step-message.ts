/**
 * The message a step (or its compensation) sends: its `params` and `payload` built from its templates in the
 * chain's document, checked against the message size cap (MAX_PAYLOAD_BYTES, as any message: `payload`, `intent`
 * and `params` together) before anything is built. Pure: used by `runChain` and by the activity that maps a step
 * whose templates read results kept by reference.
 */
import type { StepAddress } from './chain';
import { mappedSize, jsonSize } from './mapped-size';
import { buildFromTemplate } from './pointer';

/** What the pointers of a chain read: `{"input": …, "steps": {"<id>": {"result": …}}}`. */
export interface ChainDocument {
  input: unknown;
  steps: Record<string, { result?: unknown }>;
}

export interface BuiltMessage {
  params?: Record<string, unknown>;
  payload?: unknown;
}

export type StepMessage =
  | { ok: true; message: BuiltMessage }
  | { ok: false; code: 'mapping_failed'; message: string }
  | { ok: false; code: 'payload_too_large'; message: string };

const unmapped = (message: string): StepMessage => ({ ok: false, code: 'mapping_failed', message });

/** The step's message, or why it cannot be sent: a pointer that names nothing, params that are no object, too many bytes. */
export function stepMessage(address: StepAddress, document: ChainDocument, maxBytes: number | undefined): StepMessage {
  if (maxBytes !== undefined) {
    let left = maxBytes - jsonSize(address.intent);
    for (const template of [address.input, address.payload]) {
      if (template === undefined) continue;
      const size = mappedSize(template, document, Math.max(0, left));
      if (!size.ok && 'pointer' in size) return unmapped(`${size.pointer} names nothing`);
      if (!size.ok) {
        return {
          ok: false,
          code: 'payload_too_large',
          message: `the step's params, payload and intent, mapped, take more than ${maxBytes} bytes of JSON (MAX_PAYLOAD_BYTES): nothing was sent`,
        };
      }
      left -= size.bytes;
    }
  }
  const params = address.input === undefined ? undefined : buildFromTemplate(address.input, document);
  if (params && !params.ok) return unmapped(`${params.pointer} names nothing`);
  if (params && (params.value === null || typeof params.value !== 'object' || Array.isArray(params.value)))
    return unmapped('input does not come to an object (the message params)');
  const payload = address.payload === undefined ? undefined : buildFromTemplate(address.payload, document);
  if (payload && !payload.ok) return unmapped(`${payload.pointer} names nothing`);
  return {
    ok: true,
    message: {
      ...(params ? { params: params.value as Record<string, unknown> } : {}),
      ...(payload ? { payload: payload.value } : {}),
    },
  };
}
