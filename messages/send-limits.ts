/**
 * The limits every way in applies to a message before it starts, beyond its schema (`sendMessageBody`): what is
 * stored per message (Temporal history keeps payloads, intents and params) and where `reply_to` may point. One
 * function for the api and its MCP face (`acceptMessage`) and for direct `sendMessage` starts (`prepareMessage`),
 * so a message refused on one way is refused on every way, with the same code.
 */
import { checkEndpoint, type EndpointPolicy, type Lookup } from '../rules/endpoint-policy';
import { storedBytes, storedFields } from '../rules/stored-size';
import type { SendRequest } from './message-input';

export interface StoredSizeExcess {
  fields: string[];
  bytes: number;
  max_bytes: number;
}

/** The named fields' size as JSON when together they are larger than `maxBytes`, else undefined. */
export function storedSizeExcess(fields: Record<string, unknown>, maxBytes: number): StoredSizeExcess | undefined {
  const bytes = storedBytes(fields);
  return bytes > maxBytes ? { fields: Object.keys(fields), bytes, max_bytes: maxBytes } : undefined;
}

export type SendLimitRefusal =
  | { code: 'payload_too_large'; message: string; details: StoredSizeExcess }
  | { code: 'endpoint_not_allowed'; message: string; details: { location: string; message: string }[] };

export interface SendLimits {
  maxPayloadBytes: number;
  endpointPolicy: EndpointPolicy;
  /** Resolves host names; the system resolver unless a test gives another. */
  lookup?: Lookup;
}

/** Why a message may not start under these limits, or undefined when it may. */
export async function sendLimitRefusal(
  body: Pick<SendRequest, 'payload' | 'intent' | 'params' | 'reply_to'>,
  limits: SendLimits,
): Promise<SendLimitRefusal | undefined> {
  const excess = storedSizeExcess(storedFields(body), limits.maxPayloadBytes);
  if (excess)
    return {
      code: 'payload_too_large',
      message: `${excess.fields.join(' and ')} take ${excess.bytes} bytes; at most ${excess.max_bytes} are stored`,
      details: excess,
    };
  if (body.reply_to) {
    const verdict = await checkEndpoint(body.reply_to.url, limits.endpointPolicy, limits.lookup);
    if (!verdict.allowed) {
      return {
        code: 'endpoint_not_allowed',
        message: 'An endpoint points where Agent-Reach may not connect (see ENDPOINT_* settings)',
        details: [{ location: 'body.reply_to.url', message: verdict.reason }],
      };
    }
  }
  return undefined;
}
