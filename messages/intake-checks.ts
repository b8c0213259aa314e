/**
 * The checks a message passes before its target is looked up, in one order, for every way in: the api's intake
 * (`POST /v1/messages`, the MCP and A2A faces), `prepareMessage` (a Temporal client or child start, a chain's step)
 * and the Nexus handler. The whole order on every way in is
 *
 *   1. the schema (`sendMessageBody`, by the way in's parser) and who sends (an API key, a key proof, a chain's
 *      caller: before the body is trusted for anything else);
 *   2. here: the stored size → `reply_to`'s endpoint policy (a DNS lookup) → `reply_to` needs the caller secret →
 *      the deadline;
 *   3. the target and its ACL, or the router (`choose-target.ts`);
 *   4. idempotency: the workflow id `msg:<tenant>:<message_id>` (a repeat of an accepted message is answered with
 *      it, even when a check above would refuse it now).
 *
 * Each refusal has one code (intake-refusals.ts).
 */
import type { Config } from '../platform/config';
import type { EndpointPolicy, Lookup } from '../rules/endpoint-policy';
import { intakeRefusal, type IntakeRefusal } from './intake-refusals';
import { refusalBeforeRouting, type SendRequest } from './message-input';
import { sendLimitRefusal } from './send-limits';

export interface BeforeTargetDeps {
  config: Pick<Config, 'CALLER_WEBHOOK_SECRET' | 'MAX_PAYLOAD_BYTES'>;
  endpointPolicy: EndpointPolicy;
  /** Resolves host names; the system resolver unless a test gives another. */
  lookup?: Lookup;
  now: Date;
}

/** Why the message may not go anywhere, before its target is looked up; undefined when it may. */
export async function refusalBeforeTarget(
  body: SendRequest,
  deps: BeforeTargetDeps,
): Promise<IntakeRefusal | undefined> {
  const limited = await sendLimitRefusal(body, {
    maxPayloadBytes: deps.config.MAX_PAYLOAD_BYTES,
    endpointPolicy: deps.endpointPolicy,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  });
  if (limited) return limited;
  const early = refusalBeforeRouting(body, deps.config, deps.now);
  return early && intakeRefusal(early);
}
