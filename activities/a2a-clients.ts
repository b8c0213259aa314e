/**
 * The official A2A client (`@a2a-js/sdk/client`) for delivery, task reads and cancelling. Each client is built from
 * the agent's kept card narrowed to the instance's interface (`clientCardOf`, catalogue/a2a.ts), so the SDK picks
 * the binding (JSON-RPC or HTTP+JSON) and the protocol version (1.0, or 0.3 through its compatibility layer) the
 * card declares. Every request goes through our fetch (the endpoint policy) with a time limit, and every answer is
 * read up to AGENT_ANSWER_MAX_BYTES.
 */
import { a2aProfileOf, clientCardOf, type AgentProfile } from '../catalogue/a2a';
import { answerTooLargeMessage, isTransientStatus, RESULT_TOO_LARGE } from '../protocol/verdicts';
import { cappedResponse } from '../platform/capped-body';
import { LruCache } from '../util/lru';
import type { AgentDoc } from '../store/agents';
import {
  AgentCard,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type A2aClient,
} from '../protocol/a2a-sdk';

/** Agents whose profile (parsed kept card), and instances whose client card, a worker keeps. */
const CARD_CAPACITY = 1_000;

/** What a failed A2A call means for the delivery. */
export interface CallFailure {
  /** true: worth another try (the network, a timeout, HTTP 5xx/408/425/429, the agent's internal error). */
  transient: boolean;
  error: string;
  /** Set when the answer was longer than the gateway reads (AGENT_ANSWER_MAX_BYTES): not retried. */
  code?: typeof RESULT_TOO_LARGE;
}

/** JSON-RPC's "internal error": the agent failed, not the message. */
const INTERNAL_ERROR = -32603;

export function classifyCallError(error: unknown, httpStatus: number | undefined, timeoutMs: number): CallFailure {
  const err = error as { name?: string; message?: string; code?: unknown; cause?: { code?: string; message?: string } };
  if (err?.cause?.code === 'ENDPOINT_NOT_ALLOWED')
    return { transient: false, error: err.cause.message ?? 'endpoint not allowed' };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError')
    return { transient: true, error: `timeout after ${timeoutMs} ms` };
  if (httpStatus !== undefined && httpStatus >= 300) {
    return {
      transient: isTransientStatus(httpStatus),
      error: `HTTP ${httpStatus}: ${(err?.message ?? '').slice(0, 300)}`,
    };
  }
  if (typeof err?.code === 'number') {
    // The agent answered with an A2A (JSON-RPC) error: it does not take this message, except when it broke.
    return {
      transient: err.code === INTERNAL_ERROR,
      error: `${err.name ?? 'A2AError'} (${err.code}): ${err.message ?? ''}`.slice(0, 500),
    };
  }
  if (httpStatus !== undefined)
    return { transient: false, error: `the agent's answer is not A2A: ${err?.message ?? String(error)}`.slice(0, 500) };
  return { transient: true, error: err?.cause?.code ?? err?.cause?.message ?? err?.message ?? 'network error' };
}

/** A call's value or why it failed, and the HTTP status of its answer when one came. */
export type A2aCall<T> = ({ ok: true; value: T } | { ok: false; failure: CallFailure }) & { http_status?: number };

/**
 * Makes the calls. A client's transports hold their fetch, so a client is made per call around that call's own
 * fetch (which notes the HTTP status of the answer, to classify a failure like an HTTP delivery's); the card each
 * client is made from is parsed once per agent revision and endpoint.
 */
export class A2aClients {
  private readonly profiles = new LruCache<string, AgentProfile>(CARD_CAPACITY);
  private readonly cards = new LruCache<string, ReturnType<typeof AgentCard.fromJSON>>(CARD_CAPACITY);

  /** `maxAnswerBytes`: the most read of any answer (the SDK reads bodies through our fetch, which stops there). */
  constructor(
    private readonly fetchFn: typeof fetch,
    private readonly maxAnswerBytes: number,
  ) {}

  /** The agent's profile, its kept card parsed once per revision (every delivery and task read needs it). */
  profileOf(agent: AgentDoc): AgentProfile {
    const key = `${agent._id}:${agent.revision}`;
    let profile = this.profiles.get(key);
    if (!profile) {
      profile = a2aProfileOf(agent);
      this.profiles.set(key, profile);
    }
    return profile;
  }

  /** One call with a client of the instance at `endpoint`, bounded by `timeoutMs`; never throws. */
  async call<T>(
    profile: AgentProfile,
    endpoint: string,
    timeoutMs: number,
    run: (client: A2aClient, options: { signal: AbortSignal }) => Promise<T>,
  ): Promise<A2aCall<T>> {
    let httpStatus: number | undefined;
    let tooLarge = false;
    const fetchImpl: typeof fetch = async (input, init) => {
      const response = await this.fetchFn(input, { ...init, redirect: 'manual' });
      httpStatus = response.status;
      return cappedResponse(response, this.maxAnswerBytes, () => (tooLarge = true));
    };
    const status = () => (httpStatus === undefined ? {} : { http_status: httpStatus });
    try {
      const value = await run(await this.clientFor(profile, endpoint, fetchImpl), {
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { ok: true, value, ...status() };
    } catch (error) {
      // However the SDK wraps the read's error, an answer cut at the cap is refused, not retried.
      if (tooLarge)
        return {
          ok: false,
          failure: { transient: false, code: RESULT_TOO_LARGE, error: answerTooLargeMessage(this.maxAnswerBytes) },
          ...status(),
        };
      return { ok: false, failure: classifyCallError(error, httpStatus, timeoutMs), ...status() };
    }
  }

  private async clientFor(profile: AgentProfile, endpoint: string, fetchImpl: typeof fetch): Promise<A2aClient> {
    const key = `${profile.agent_id}:${profile.revision}:${endpoint}`;
    let card = this.cards.get(key);
    if (!card) {
      card = AgentCard.fromJSON(clientCardOf(profile.card, endpoint, profile.name));
      this.cards.set(key, card);
    }
    const transports = [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })];
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports }),
    ).createFromAgentCard(card);
  }
}
