/** The HTTP delivery activity with fake collaborators: envelope, headers, classification, circuit, metrics, logs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createDeliver } from '../../activities/deliver';
import { createSocketActivities } from '../../activities/deliver-socket';
import { loadConfig } from '../../platform/config';
import { endpointPolicy } from '../../rules/endpoint-policy';
import type { MessageInput } from '../../messages/message';
import { newSigningSecret } from '../../rules/signing';

const message: MessageInput = {
  tenant: 'default',
  message_id: 'm-1',
  trace_id: 'a'.repeat(32),
  target: { agent_id: 'agt_1', capability: 'refund' },
  intent: 'refund order 7',
  payload: { order: 7 },
  callback_url: 'http://gw/v1/callback',
  accepted_at: '2026-11-30T10:00:00.000Z',
  policy: { maxAttempts: 5, initialBackoffMs: 10, maxBackoffMs: 20, attemptTimeoutMs: 1000, defaultAckTimeoutMs: 1000 },
};
const LIMITS = { maxAnswerBytes: 4096, maxResultBytes: 1024 };
const target = {
  agent_id: 'agt_1',
  capability: 'refund',
  instance_id: 'i1',
  transport: 'http' as const,
  endpoint: 'http://agent/deliveries',
};

function harness(answer: () => Promise<Response>) {
  const secret = newSigningSecret();
  const requests: { url: string; init: RequestInit }[] = [];
  const circuit: boolean[] = [];
  const logs: Record<string, unknown>[] = [];
  const deliver = createDeliver({
    fetch: (async (url: string, init: RequestInit) => {
      requests.push({ url, init });
      return answer();
    }) as typeof fetch,
    now: Date.now, // signatures carry this time, and verifying checks it against the real clock
    queries: { signingSecrets: async () => [secret] },
    circuits: { record: async (_a, _i, ok) => void circuit.push(ok) as never },
    logger: { info: ((fields: Record<string, unknown>) => void logs.push(fields)) as never },
    answerLimits: LIMITS,
  });
  return { deliver, secret, requests, circuit, logs };
}

describe('deliver activity', () => {
  it('deliver activity - posts the signed envelope and classifies a 202 as accepted', async () => {
    const h = harness(async () => new Response(null, { status: 202 }));
    const result = await h.deliver({ message, target, attempt: 2 });
    assert.deepEqual(result.verdict, { kind: 'accepted' });
    assert.equal(result.http_status, 202);
    const [{ url, init }] = h.requests as [{ url: string; init: RequestInit }];
    assert.equal(url, 'http://agent/deliveries');
    const headers = init.headers as Record<string, string>;
    assert.equal(headers['idempotency-key'], 'm-1');
    assert.match(headers.traceparent!, new RegExp(`^00-${'a'.repeat(32)}-[0-9a-f]{16}-01$`));
    const body = JSON.parse(String(init.body));
    assert.equal(body.attempt, 2);
    assert.deepEqual(body.payload, { order: 7 });
    assert.ok(new Webhook(h.secret).verify(String(init.body), headers));
    assert.deepEqual(h.circuit, [], 'accepted is not yet a success: the receipt (or its absence) decides');
    assert.equal(h.logs[0]!.message_id, 'm-1');
    assert.equal(h.logs[0]!.trace_id, 'a'.repeat(32));
    assert.equal(h.logs[0]!.outcome, 'accepted');
  });

  it('deliver activity - a processed answer is a success of the circuit', async () => {
    const h = harness(async () => Response.json({ status: 'processed', result: { ok: true } }));
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.deepEqual(result.verdict, { kind: 'processed', result: { ok: true } });
    assert.deepEqual(h.circuit, [true]);
  });

  it('deliver activity - a network error is transient and counts against the circuit', async () => {
    const h = harness(async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    });
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.deepEqual(result.verdict, { kind: 'transient', error: 'ECONNREFUSED' });
    assert.deepEqual(h.circuit, [false]);
  });

  it('deliver activity - a refusal is not a circuit failure', async () => {
    const h = harness(async () => new Response(JSON.stringify({ error: { message: 'bad order' } }), { status: 422 }));
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.deepEqual(result.verdict, { kind: 'refused', error: 'HTTP 422: bad order' });
    assert.deepEqual(h.circuit, [true]);
  });

  it('deliver activity - sends nothing once the deadline has passed', async () => {
    const h = harness(async () => new Response(null, { status: 202 }));
    const late = { ...message, deadline: new Date(Date.now() - 1).toISOString() };
    const result = await h.deliver({ message: late, target, attempt: 1 });
    assert.deepEqual(result.verdict, { kind: 'too_late' });
    assert.equal(h.requests.length, 0);
    assert.deepEqual(h.circuit, []);
    const inTime = await h.deliver({
      message: { ...message, deadline: new Date(Date.now() + 60_000).toISOString() },
      target,
      attempt: 1,
    });
    assert.deepEqual(inTime.verdict, { kind: 'accepted' });
  });

  it('deliver activity - an endpoint the policy refuses is not called (the address may have changed since registration)', async () => {
    const requests: string[] = [];
    const deliver = createDeliver({
      fetch: (async (url: string) => {
        requests.push(url);
        return new Response(null, { status: 202 });
      }) as typeof fetch,
      now: Date.now,
      queries: { signingSecrets: async () => [newSigningSecret()] },
      circuits: { record: async () => undefined as never },
      endpointPolicy: endpointPolicy(loadConfig({})),
      answerLimits: LIMITS,
    });
    const result = await deliver({
      message,
      target: { ...target, endpoint: 'http://169.254.169.254/latest/meta-data/' },
      attempt: 1,
    });
    assert.deepEqual(result.verdict, {
      kind: 'refused',
      error: 'endpoint not allowed: 169.254.169.254 is a cloud metadata address',
    });
    assert.deepEqual(requests, []);
  });

  it('deliver activity - an answer longer than the read cap is refused as result_too_large, read no further than the cap', async () => {
    let pulled = 0;
    // An endless body: the read must stop at the cap, not wait for an end that never comes.
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024).fill(32));
      },
    });
    const h = harness(
      async () => new Response(endless, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.equal(result.verdict.kind, 'refused');
    assert.equal((result.verdict as { code?: string }).code, 'result_too_large');
    assert.match((result.verdict as { error: string }).error, /larger than 4096 bytes \(AGENT_ANSWER_MAX_BYTES\)/);
    assert.ok(pulled <= 4096 + 3 * 1024, `read ${pulled} bytes`);
  });

  it('deliver activity - a declared Content-Length over the cap is refused before the body is read', async () => {
    const h = harness(
      async () =>
        new Response(JSON.stringify({ status: 'processed', result: 'x' }), {
          status: 200,
          headers: { 'content-length': '99999999' },
        }),
    );
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.equal((result.verdict as { code?: string }).code, 'result_too_large');
  });

  it('deliver activity - a result within the read cap but larger than a status keeps is refused as result_too_large', async () => {
    const h = harness(async () => Response.json({ status: 'processed', result: 'x'.repeat(2000) }));
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.deepEqual(result.verdict, {
      kind: 'refused',
      code: 'result_too_large',
      error: "the agent's result takes 2002 bytes of JSON; at most 1024 are kept (MAX_PAYLOAD_BYTES)",
    });
    const fits = harness(async () => Response.json({ status: 'processed', result: 'x'.repeat(500) }));
    assert.equal((await fits.deliver({ message, target, attempt: 1 })).verdict.kind, 'processed');
  });

  it("deliver activity - an agent's long error message is clipped before it is kept", async () => {
    const h = harness(async () =>
      Response.json({ status: 'failed', error: { message: 'e'.repeat(3000), code: 'c'.repeat(300) } }),
    );
    const result = await h.deliver({ message, target, attempt: 1 });
    assert.ok(result.verdict.kind === 'agent_failed');
    assert.equal(result.verdict.error.message.length, 1001);
    assert.equal(result.verdict.error.code!.length, 100);
  });

  it('deliver activity - a WebSocket ack whose result is larger than a status keeps is refused as result_too_large', async () => {
    const ackWith = (result: unknown) =>
      createSocketActivities({
        sockets: {
          send: async () => ({ ack: { type: 'ack', message_id: 'm-1', status: 'processed', result } as never }),
        },
        circuits: { record: async () => undefined as never },
        now: Date.now,
        maxResultBytes: 1024,
      });
    const large = await ackWith('x'.repeat(2000)).deliverOverSocket({ message, target, attempt: 1 });
    assert.equal((large.verdict as { code?: string }).code, 'result_too_large');
    const fits = await ackWith('ok').deliverOverSocket({ message, target, attempt: 1 });
    assert.deepEqual(fits.verdict, { kind: 'processed', result: 'ok' });
  });
});
