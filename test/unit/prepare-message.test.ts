/** `prepareMessage`: a direct `sendMessage` start becomes the same run input the api would build, or a refusal. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { createPrepareMessage, type NeedsRouting, type PreparedMessage } from '../../activities/prepare-message';
import { namespaceCaller } from '../../rules/api-key';
import type { ReachCheck } from '../../catalogue/agent-queries';
import { bodyHashOf, buildMessageInput } from '../../messages/message-input';
import { checkSeal } from '../../messages/seal';
import { loadConfig } from '../../platform/config';
import { legacyKeyProof, parseApiKey, type Caller } from '../../rules/api-key';
import { proofMatches, proofPublicKey, provenBody, signProof, type ProofSubject } from '../../rules/key-proof';
import type { RouteRequest } from '../../router/route-request';
import type { RouteDecision, RouteExplanation, Router } from '../../router/router';

const config = loadConfig({ PUBLIC_URL: 'https://reach.example', CALLER_WEBHOOK_SECRET: '' });
const NOW = Date.parse('2026-01-01T00:00:00Z');
const AGENT = 'agt_0123456789abcdef01234567';

const KEYS: Record<string, Caller> = {
  aaaaaaaaaaaa: { tenant: 'acme', key_id: 'aaaaaaaaaaaa', scopes: ['send', 'billing'] },
  bbbbbbbbbbbb: { tenant: 'acme', key_id: 'bbbbbbbbbbbb', scopes: ['read'] },
  cccccccccccc: { tenant: 'other', key_id: 'cccccccccccc', scopes: ['admin'] },
};
/** The API key of `aaaaaaaaaaaa`, of which the store knows only the hash of its secret and its proof public key. */
const BILLING_KEY = `rk_aaaaaaaaaaaa_${'s'.repeat(43)}`;
const BILLING_PUBLIC_KEY = proofPublicKey(parseApiKey(BILLING_KEY)!.secret);
const keys = {
  callerById: async (keyId: string) => KEYS[keyId],
  callerByProof: async (keyId: string, proof: string, subject: ProofSubject) =>
    keyId === 'aaaaaaaaaaaa' && proofMatches(BILLING_PUBLIC_KEY, proof, subject)
      ? { caller: KEYS[keyId]!, legacy: false }
      : undefined,
};
/** A direct start's proof, as `sentAsKey` makes it. */
const proofOf = (apiKey: string, input: Record<string, unknown>) =>
  signProof(apiKey, {
    kind: 'message',
    tenant: input.tenant as string,
    id: input.message_id as string,
    body: provenBody('message', input),
  })!;
/** Run as a local activity of the gateway's own sendMessage, with no parent. */
const provenance = {
  isLocal: () => true,
  schedulingRun: async () => assert.fail('a local call reads no run'),
  run: async () => assert.fail('no parent'),
  isGatewayRun: () => false,
  currentRun: async () => assert.fail('no sealed caller here'),
};
const sealKeys = { keys: ['prepare-message-test-seal-key-0123456789abcdef'], since: '2025-01-01T00:00:00.000Z' };

function prepare(reach: ReachCheck = { kind: 'ok' }, requireKey = false, router?: Pick<Router, 'route'>) {
  const checks: { tenant: string; agentId: string; capability: string; caller: Caller }[] = [];
  const queries = {
    async checkReach(tenant: string, agentId: string, capability: string, caller: Caller): Promise<ReachCheck> {
      checks.push({ tenant, agentId, capability, caller });
      return reach;
    },
  };
  return {
    prepareMessage: createPrepareMessage({
      queries,
      config: { ...config, TEMPORAL_CALLERS_REQUIRE_KEY: requireKey },
      keys,
      sealKeys,
      now: () => NOW,
      provenance,
      ...(router ? { router } : {}),
    }),
    checks,
  };
}

/** The prepared message (not `needs_routing`). */
async function preparedOf(run: Promise<PreparedMessage | NeedsRouting>): Promise<PreparedMessage> {
  const result = await run;
  assert.equal(result.kind, 'prepared');
  return result as PreparedMessage;
}

/** A router that answers `decision` and keeps what it was asked. */
function routerAnswering(decision: RouteDecision) {
  const requests: RouteRequest[] = [];
  return { requests, router: { route: async (request: RouteRequest) => (requests.push(request), decision) } };
}

const explanation = { decided_by: 'semantic', provider: 'local' } as unknown as RouteExplanation;

async function refusal(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(
    () => assert.fail('should refuse'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApplicationFailure);
  assert.equal(error.nonRetryable, true);
  return error;
}

describe('prepare message', () => {
  it('prepare message - builds the input the api builds, as a caller with the send scope only', async () => {
    const { prepareMessage, checks } = prepare();
    const body = {
      message_id: 'm-1',
      target: { agent_id: AGENT, capability: 'echo' },
      payload: { a: 1 },
      params: { x: 'y' },
    };
    const prepared = await preparedOf(prepareMessage({ tenant: 'acme', ...body }));
    const expected = buildMessageInput({
      tenant: 'acme',
      messageId: 'm-1',
      traceId: prepared.input.trace_id,
      body,
      chosen: { target: body.target, params: body.params },
      caller: namespaceCaller('acme'),
      acceptedAt: new Date(NOW).toISOString(),
      config,
    });
    const { seal, ...unsealed } = prepared.input;
    assert.deepEqual(unsealed, expected);
    assert.deepEqual(
      checkSeal(prepared.input, sealKeys, { workflowId: 'msg:acme:m-1', startedAt: new Date(NOW).toISOString() }),
      { ok: true },
      'sealed as the api seals',
    );
    assert.equal(seal?.at, new Date(NOW).toISOString());
    assert.equal(prepared.input.callback_url, 'https://reach.example/v1/callback');
    assert.match(prepared.input.trace_id, /^[0-9a-f]{32}$/);
    assert.equal(prepared.memo.body_hash, bodyHashOf(body));
    assert.deepEqual(checks, [
      {
        tenant: 'acme',
        agentId: AGENT,
        capability: 'echo',
        caller: { tenant: 'acme', key_id: 'temporal-namespace', scopes: ['send'] },
      },
    ]);
  });

  it('prepare message - bad input is refused naming every field, before the catalogue is read', async () => {
    const { prepareMessage, checks } = prepare();
    const failure = await refusal(
      prepareMessage({
        tenant: 'Not A Tenant',
        message_id: 'm-2',
        target: { agent_id: AGENT, capability: 'echo' },
        deadline: 'soon',
        extra: 1,
      }),
    );
    assert.equal(failure.type, 'invalid_request');
    for (const field of ['tenant', 'deadline', 'extra']) assert.match(failure.message, new RegExp(field));
    assert.equal(checks.length, 0);
    assert.equal((await refusal(prepareMessage('nope'))).type, 'invalid_request');
  });

  it('prepare message - intent-only input, validated, needs routing where there is no router (the worker)', async () => {
    const { prepareMessage, checks } = prepare();
    assert.deepEqual(await prepareMessage({ tenant: 'acme', message_id: 'm-3', intent: 'refund order 42' }), {
      kind: 'needs_routing',
    });
    assert.equal(checks.length, 0);
    // Bad input and the caller's own refusals are answered here, before any routing.
    assert.equal(
      (await refusal(prepareMessage({ tenant: 'acme', message_id: 'm-3', intent: 7 }))).type,
      'invalid_request',
    );
    assert.equal(
      (
        await refusal(
          prepare({ kind: 'ok' }, true).prepareMessage({ tenant: 'acme', message_id: 'm-3', intent: 'refund' }),
        )
      ).type,
      'key_required',
    );
  });

  it('prepare message - with the router (the api), an intent is routed as the api routes it', async () => {
    const routed = routerAnswering({
      kind: 'routed',
      target: { agent_id: AGENT, capability: 'refund', instance_id: 'ins_1' },
      params: { order: '42' },
      explanation,
    });
    const { prepareMessage } = prepare({ kind: 'ok' }, false, routed.router);
    const body = { message_id: 'm-4', intent: 'refund order 42', session_id: 's-1' };
    const result = await preparedOf(prepareMessage({ tenant: 'acme', ...body }));
    assert.deepEqual(result.input.target, { agent_id: AGENT, capability: 'refund' });
    assert.deepEqual(result.input.params, { order: '42' });
    assert.equal(result.input.routing?.decided_by, 'semantic');
    assert.equal(result.input.rejection, undefined);
    assert.deepEqual(routed.requests, [
      { tenant: 'acme', caller: namespaceCaller('acme'), intent: 'refund order 42', session_id: 's-1' },
    ]);
    assert.equal(result.memo.body_hash, bodyHashOf(body));
  });

  it('prepare message - a router refusal is a rejection to record; an unknown agent is a refusal', async () => {
    const noRoute = routerAnswering({ kind: 'refused', code: 'no_match', message: 'nothing fits', explanation });
    const rejected = await preparedOf(
      prepare({ kind: 'ok' }, false, noRoute.router).prepareMessage({
        tenant: 'acme',
        message_id: 'm-5',
        intent: 'fly me to the moon',
      }),
    );
    assert.equal(rejected.input.rejection?.code, 'no_route');
    assert.equal(rejected.input.target.capability, '');
    const unknown = routerAnswering({ kind: 'refused', code: 'unknown_agent', message: 'no such agent', explanation });
    const failure = await refusal(
      prepare({ kind: 'ok' }, false, unknown.router).prepareMessage({
        tenant: 'acme',
        message_id: 'm-6',
        target: { agent_id: AGENT },
        intent: 'x',
      }),
    );
    assert.equal(failure.type, 'agent_not_found');
  });

  it('prepare message - catalogue and early refusals carry their kind', async () => {
    const target = { agent_id: AGENT, capability: 'echo' };
    assert.equal(
      (await refusal(prepare({ kind: 'unknown_agent' }).prepareMessage({ tenant: 'acme', message_id: 'm', target })))
        .type,
      'agent_not_found',
    );
    assert.equal(
      (
        await refusal(
          prepare({ kind: 'forbidden', reason: 'x' }).prepareMessage({ tenant: 'acme', message_id: 'm', target }),
        )
      ).type,
      'capability_forbidden',
    );
    const past = new Date(NOW - 1000).toISOString();
    assert.equal(
      (await refusal(prepare().prepareMessage({ tenant: 'acme', message_id: 'm', target, deadline: past }))).type,
      'deadline_passed',
    );
    assert.equal(
      (
        await refusal(
          prepare().prepareMessage({
            tenant: 'acme',
            message_id: 'm',
            target,
            reply_to: { url: 'https://93.184.216.34/hook' },
          }),
        )
      ).type,
      'reply_to_unavailable',
    );
  });

  it('prepare message - a worker without intake dependencies refuses direct starts', async () => {
    const failure = await refusal(createPrepareMessage({})({ tenant: 'acme' }));
    assert.equal(failure.type, 'not_configured');
  });

  it('prepare message - a key_id sends as that key: its tenant, scopes and ACL grants; required when configured', async () => {
    const target = { agent_id: AGENT, capability: 'echo' };
    const { prepareMessage, checks } = prepare();
    const prepared = await preparedOf(
      prepareMessage({ tenant: 'acme', key_id: 'aaaaaaaaaaaa', message_id: 'k-1', target }),
    );
    assert.deepEqual(prepared.input.caller, KEYS.aaaaaaaaaaaa);
    assert.deepEqual(checks[0]!.caller, KEYS.aaaaaaaaaaaa);
    assert.equal(
      prepared.memo.body_hash,
      bodyHashOf({ message_id: 'k-1', target }),
      'the key id is not part of the body',
    );
    assert.equal(
      (await refusal(prepareMessage({ tenant: 'acme', key_id: 'bbbbbbbbbbbb', message_id: 'k', target }))).type,
      'insufficient_scope',
    );
    assert.equal(
      (await refusal(prepareMessage({ tenant: 'acme', key_id: 'cccccccccccc', message_id: 'k', target }))).type,
      'unknown_key',
    );
    assert.equal(
      (await refusal(prepareMessage({ tenant: 'acme', key_id: 'dddddddddddd', message_id: 'k', target }))).type,
      'unknown_key',
    );
    assert.match(
      (await refusal(prepareMessage({ tenant: 'acme', key_id: 'rk_secret', message_id: 'k', target }))).message,
      /key_id/,
    );
    const required = prepare({ kind: 'ok' }, true).prepareMessage;
    assert.equal((await refusal(required({ tenant: 'acme', message_id: 'k', target }))).type, 'key_required');
    assert.equal(
      (await refusal(required({ tenant: 'acme', key_id: 'aaaaaaaaaaaa', message_id: 'k', target }))).type,
      'key_required',
      'a key id alone proves nothing',
    );
    const sent = { tenant: 'acme', key_id: 'aaaaaaaaaaaa', message_id: 'k', target };
    assert.equal(
      (await preparedOf(required({ ...sent, key_proof: proofOf(BILLING_KEY, sent) }))).input.caller?.key_id,
      'aaaaaaaaaaaa',
    );
  });

  it('prepare message - a key proof holds for its key, tenant, message id and body only; the stored hash cannot make one', async () => {
    const target = { agent_id: AGENT, capability: 'echo' };
    const required = prepare({ kind: 'ok' }, true).prepareMessage;
    const sent = { tenant: 'acme', key_id: 'aaaaaaaaaaaa', target, message_id: 'k', payload: { amount: 10 } };
    const proof = proofOf(BILLING_KEY, sent);
    assert.equal(
      (await preparedOf(required({ ...sent, key_proof: proof }))).input.caller?.key_id,
      'aaaaaaaaaaaa',
      'the body it proves',
    );
    const refusedWith = async (input: Record<string, unknown>) =>
      (await refusal(required({ ...sent, key_proof: proof, ...input }))).type;
    assert.equal(await refusedWith({ message_id: 'k2' }), 'invalid_key_proof', 'another message id');
    assert.equal(await refusedWith({ payload: { amount: 10_000 } }), 'invalid_key_proof', 'another payload');
    assert.equal(
      await refusedWith({ target: { agent_id: AGENT, capability: 'refund' } }),
      'invalid_key_proof',
      'another target',
    );
    assert.equal(await refusedWith({ params: { order_id: 1 } }), 'invalid_key_proof', 'params added');
    assert.equal(await refusedWith({ key_id: 'bbbbbbbbbbbb' }), 'invalid_key_proof', 'another key');
    assert.equal(
      await refusedWith({ key_proof: proofOf(`rk_aaaaaaaaaaaa_${'t'.repeat(43)}`, sent) }),
      'invalid_key_proof',
      'a made-up key',
    );
    assert.equal(
      await refusedWith({ key_proof: legacyKeyProof(BILLING_KEY, 'acme', 'k') }),
      'invalid_key_proof',
      'the id-only proof that the stored hash could make',
    );
    assert.equal(await refusedWith({ key_proof: 'short' }), 'invalid_request');
  });
});
