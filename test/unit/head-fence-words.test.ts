/** Words only a card's exclusions use (router/head/fence-words.ts), and the border they draw (card-borders.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityCandidate } from '../../router/candidates';
import { CardBorders } from '../../router/head/card-borders';
import { fenceWordsOf, namedFence, contentWords } from '../../router/head/fence-words';

function card(key: string, description: string, examples: string[], agentDescription = ''): CapabilityCandidate {
  const [agent_id, name] = key.split('/') as [string, string];
  return {
    key,
    agent_id,
    agent_name: agent_id,
    agent_description: agentDescription,
    agent_tags: [],
    capability: { name, description, tags: [], examples } as unknown as CapabilityCandidate['capability'],
    instances: [],
  };
}

const catalogue = [
  card(
    'hr/reset_password',
    'Resets the password of the HR portal account only. Does not reset corporate email, VPN or OA accounts.',
    ['I forgot my HR portal password', 'locked out of the HR system'],
  ),
  card('it/mail_help', 'Helps with corporate email: quota, forwarding and spam.', ['my mailbox is full']),
  card(
    'after/repair',
    '为已签收的订单申请维修。不处理赔偿，不关闭工单，不针对具体订单判定能否退款。',
    ['东西坏了想修一下'],
    '售后服务：维修与退换。',
  ),
];

describe('fence words', () => {
  const fences = fenceWordsOf(catalogue);

  it("fenceWordsOf - a word of a card's exclusions that no card's own texts claim", () => {
    const hr = fences.get('hr/reset_password')!;
    assert.ok(hr.has('vpn'), 'no card offers anything about a VPN');
    assert.ok(!hr.has('email'), 'another card claims corporate email: never a fence');
    assert.ok(!hr.has('password') && !hr.has('reset'), "the card's own words are never fences");
    assert.ok(fences.get('after/repair')!.has('赔偿'), 'Chinese words too');
    assert.equal(fences.has('it/mail_help'), false, 'a card without exclusions has none');
    const repair = fences.get('after/repair')!;
    assert.ok(repair.has('判定'), 'a rarer word of that clause is');
    assert.ok(!repair.has('具体') && !repair.has('能否'), "general Chinese's most common words are none");
  });

  it('namedFence - the first fence word the request names, with its clause', () => {
    const hr = fences.get('hr/reset_password');
    assert.deepEqual(namedFence(contentWords('reset my VPN password please'), hr), {
      word: 'vpn',
      clause: 'reset corporate email, VPN or OA accounts',
    });
    assert.equal(namedFence(contentWords('VPN密码忘了，帮我重置一下'), hr)?.word, 'vpn', 'in a Chinese request too');
    assert.equal(namedFence(contentWords('I forgot my HR portal password'), hr), undefined);
    assert.equal(
      namedFence(contentWords('reset my corporate email password'), hr),
      undefined,
      'what another card offers',
    );
    assert.equal(namedFence(contentWords('投诉太慢了，直接给我赔偿200元'), fences.get('after/repair'))?.word, '赔偿');
    assert.equal(namedFence(contentWords('anything'), undefined), undefined);
    assert.equal(namedFence(contentWords('能否帮我申请维修，东西坏了'), fences.get('after/repair')), undefined);
  });

  it('CardBorders.crossed - a request that names a fence word crosses the border, however near its own texts', () => {
    const own = Float32Array.from([1, 0]);
    const borders = CardBorders.of(
      {
        classes: [
          { key: 'hr/reset_password', vectors: [own], chinese: [false], excluded: [Float32Array.from([0, 1])] },
        ],
        none: [],
      },
      [['reset corporate email, VPN or OA accounts']],
      [],
      [],
      fences,
    );
    assert.deepEqual(
      [...borders.crossed(own, ['hr/reset_password'], 'reset my VPN password please')],
      [['hr/reset_password', { clause: 'reset corporate email, VPN or OA accounts', learned: false, word: 'vpn' }]],
    );
    assert.deepEqual([...borders.crossed(own, ['hr/reset_password'], 'reset my HR portal password')], []);
    assert.deepEqual([...borders.crossed(own, ['hr/reset_password'])], [], 'without the request, by vectors alone');
  });
});
