/** An applied receipt credits the circuit of the instance the message went to: the success "accepted" did not count. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReceiptOutcome } from '../../messages/message';
import { recordReceipt } from '../../messages/receipts';
import type { MessageRuns } from '../../messages/runs';
import type { AgentDoc } from '../../store/agents';

const agent = { _id: 'billing', tenant: 't1' } as AgentDoc;

function fakeRuns(outcome: ReceiptOutcome, deliveredTo = { agent_id: 'billing', capability: 'pay', instance_id: 'i-2' }): MessageRuns {
  return {
    handle: () => ({ executeUpdate: async () => outcome }),
    get: async () => ({ agent: deliveredTo }),
  } as unknown as MessageRuns;
}

function fakeCircuits() {
  const recorded: [string, string, boolean][] = [];
  return { recorded, record: async (a: string, i: string, ok: boolean) => void recorded.push([a, i, ok]) as never };
}

describe('receipt circuit', () => {
  it('receipt circuit - an applied receipt is a success of the instance it was delivered to', async () => {
    const circuits = fakeCircuits();
    const result = await recordReceipt(fakeRuns({ applied: true, state: 'processed' }), agent, { message_id: 'm-1', status: 'processed' }, circuits);
    assert.equal(result.kind, 'recorded');
    assert.deepEqual(circuits.recorded, [['billing', 'i-2', true]]);
  });

  it('receipt circuit - a repeated receipt credits nothing more', async () => {
    const circuits = fakeCircuits();
    await recordReceipt(fakeRuns({ applied: false, state: 'processed' }), agent, { message_id: 'm-1', status: 'processed' }, circuits);
    assert.deepEqual(circuits.recorded, []);
  });

  it('receipt circuit - a failing circuit store does not fail the receipt', async () => {
    const circuits = { record: async () => Promise.reject(new Error('database down')) };
    const result = await recordReceipt(fakeRuns({ applied: true, state: 'processed' }), agent, { message_id: 'm-1', status: 'processed' }, circuits);
    assert.deepEqual(result, { kind: 'recorded', outcome: { applied: true, state: 'processed' } });
  });
});
