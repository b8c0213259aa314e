/**
 * The gateway's seal on message inputs (messages/seal.ts): what it proves, and every way a forged or replayed
 * input fails it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageInput } from '../../messages/message';
import { checkSeal, SEAL_MAX_SKEW_MS, sealInput, type SealKeys } from '../../messages/seal';

const keys: SealKeys = {
  keys: ['current-key-0123456789abcdefghijklmnopqrstuv', 'previous-key-0123456789abcdefghijklmnopqrst'],
  since: '2026-12-01T00:00:00.000Z',
};
const sealedAt = new Date('2026-12-02T10:00:00.000Z');
const input: MessageInput = {
  tenant: 'acme',
  message_id: 'm-1',
  trace_id: 'a'.repeat(32),
  target: { agent_id: 'agt_1', capability: 'refund' },
  payload: { order: 42, lines: [{ sku: 'x', qty: 1 }] },
  callback_url: 'http://gw/v1/callback',
  accepted_at: sealedAt.toISOString(),
  policy: { maxAttempts: 5, initialBackoffMs: 10, maxBackoffMs: 20, attemptTimeoutMs: 1000, defaultAckTimeoutMs: 1000 },
  caller: { tenant: 'acme', key_id: 'a1b2c3d4e5f6', scopes: ['send'] },
};
const run = { workflowId: 'msg:acme:m-1', startedAt: '2026-12-02T10:00:00.050Z' };
const sealed = sealInput(input, keys.keys[0]!, sealedAt);

describe('message seal', () => {
  it('message seal - an input the gateway sealed passes for its own run, whatever the key order after a JSON round trip', () => {
    assert.deepEqual(checkSeal(sealed, keys, run), { ok: true });
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(sealed).reverse()))) as MessageInput;
    assert.deepEqual(checkSeal(reordered, keys, run), { ok: true });
  });

  it('message seal - a key being rotated out still opens seals it made', () => {
    assert.deepEqual(checkSeal(sealInput(input, keys.keys[1]!, sealedAt), keys, run), { ok: true });
  });

  it('message seal - any change to a sealed input breaks it: caller dropped, target, tenant, payload, reply_to', () => {
    const { caller: _dropped, ...withoutCaller } = sealed;
    const changes: MessageInput[] = [
      withoutCaller as MessageInput,
      { ...sealed, target: { agent_id: 'agt_1', capability: 'refund_all' } },
      { ...sealed, payload: { order: 43, lines: [{ sku: 'x', qty: 1 }] } },
      { ...sealed, reply_to: { url: 'http://attacker.example/', retry_initial_ms: 5000 } },
      { ...sealed, caller: { tenant: 'acme', key_id: 'a1b2c3d4e5f6', scopes: ['send', 'refunds'] } },
      { ...sealed, seal: { ...sealed.seal!, at: '2026-12-02T10:00:01.000Z' } },
    ];
    for (const changed of changes)
      assert.deepEqual(checkSeal(changed, keys, run), {
        ok: false,
        reason: 'the gateway seal does not match the input',
      });
  });

  it('message seal - a seal made with a key this deployment does not hold is refused', () => {
    assert.equal(
      checkSeal(sealInput(input, 'someone-elses-key-0123456789abcdefghijklmn', sealedAt), keys, run).ok,
      false,
    );
  });

  it('message seal - an unsealed input is refused for a run started since the deployment seals, accepted before', () => {
    assert.deepEqual(checkSeal(input, keys, run), { ok: false, reason: 'the input carries no gateway seal' });
    assert.deepEqual(checkSeal(input, keys, { ...run, startedAt: '2026-11-30T00:00:00.000Z' }), { ok: true });
  });

  it('message seal - a sealed input started under another workflow id (another tenant’s, or any) is refused', () => {
    assert.match(
      (checkSeal(sealed, keys, { ...run, workflowId: 'msg:globex:m-1' }) as { reason: string }).reason,
      /sealed for msg:acme:m-1, not msg:globex:m-1/,
    );
    assert.equal(checkSeal(sealed, keys, { ...run, workflowId: 'copy-1' }).ok, false);
  });

  it('message seal - a copy started again long after it was sealed is refused', () => {
    const late = new Date(sealedAt.getTime() + SEAL_MAX_SKEW_MS + 1_000).toISOString();
    assert.match(
      (checkSeal(sealed, keys, { ...run, startedAt: late }) as { reason: string }).reason,
      /started 301 s away from its seal/,
    );
    const justInTime = new Date(sealedAt.getTime() + SEAL_MAX_SKEW_MS).toISOString();
    assert.deepEqual(checkSeal(sealed, keys, { ...run, startedAt: justInTime }), { ok: true });
  });
});
