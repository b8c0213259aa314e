import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canTransition, isTerminal, MESSAGE_STATES } from '../../messages/message';

describe('message state', () => {
  it('message state - the happy path is allowed', () => {
    const path = ['accepted', 'routing', 'delivering', 'delivered', 'processed'] as const;
    for (let i = 1; i < path.length; i++)
      assert.ok(canTransition(path[i - 1]!, path[i]!), `${path[i - 1]} → ${path[i]}`);
  });

  it('message state - terminal states lead nowhere', () => {
    for (const from of MESSAGE_STATES.filter(isTerminal)) {
      for (const to of MESSAGE_STATES) assert.equal(canTransition(from, to), false, `${from} → ${to}`);
    }
  });

  it('message state - no skipping routing, no going back to accepted', () => {
    assert.equal(canTransition('accepted', 'delivering'), false);
    assert.equal(canTransition('delivered', 'accepted'), false);
    assert.equal(canTransition('routing', 'processed'), false);
  });

  it('message state - redelivery re-enters delivering', () => {
    assert.ok(canTransition('delivered', 'delivering'));
  });
});

describe('message state - multi-turn', () => {
  it('message state - input_required is not terminal: the agent asks after delivery, the reply delivers again, or the message is cancelled or expires', () => {
    assert.equal(isTerminal('input_required'), false);
    for (const from of ['delivering', 'delivered'] as const)
      assert.equal(canTransition(from, 'input_required'), true, from);
    for (const to of ['delivering', 'cancelled', 'expired', 'failed'] as const)
      assert.equal(canTransition('input_required', to), true, to);
    assert.equal(
      canTransition('input_required', 'processed'),
      false,
      'a waiting message is processed only after the next delivery',
    );
    assert.equal(canTransition('routing', 'input_required'), false);
  });
});
