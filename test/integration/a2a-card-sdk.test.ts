/**
 * Every card we serve or export, checked by the official Python a2a-sdk (test/helpers/a2a_card_check.py): v1.0
 * parsed by its protobuf schema with every REQUIRED field present (skills' tags included), v0.3 validated by its
 * v0.3 model. The gateway's public and keyed cards and the agents' cards, for native and imported agents.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gatewayCard, publicGatewayCard } from '../../api/a2a/cards';
import { agentFacePath, exportA2aCard, importA2aCard, type A2aSpecVersion } from '../../catalogue/a2a';
import { cardFields } from '../../catalogue/card';
import type { AgentDoc } from '../../store/agents';
import { pythonModule, runPythonClient } from '../helpers/python';

const { skip } = pythonModule('a2a.types', 'a2a-sdk');
const PUBLIC_URL = 'https://reach.example.com';
const ADMIN = { tenant: 't', key_id: '000000000001', scopes: ['admin'] };

function agentDoc(id: string, input: Parameters<typeof cardFields>[0], source?: AgentDoc['source']): AgentDoc {
  return {
    _id: id,
    tenant: 't',
    revision: 1,
    secret_hash: 'x',
    created_at: new Date(),
    updated_at: new Date(),
    ...cardFields(input),
    ...(source ? { source } : {}),
  };
}

function importedAgent(id: string, fixture: string): AgentDoc {
  const imported = importA2aCard(JSON.parse(readFileSync(join(__dirname, '../fixtures', fixture), 'utf8')));
  if (imported.kind !== 'ok' || !imported.cardJson) throw new Error(`${fixture} was not imported`);
  return agentDoc(id, imported.input, { kind: 'a2a', version: imported.specVersion, card_json: imported.cardJson });
}

const agents = [
  // No tags anywhere: the spec still wants each skill's.
  agentDoc('agt_plain', {
    name: 'plain',
    capabilities: [{ name: 'echo' }, { name: 'reverse', description: 'Reverses text' }],
  }),
  agentDoc('agt_tagged', {
    name: 'tagged',
    tags: ['billing'],
    capabilities: [
      { name: 'refund', examples: ['refund 42'] },
      { name: 'payout', tags: ['money'] },
    ],
  }),
  importedAgent('agt_v10', 'a2a-card-v1.0.json'),
  importedAgent('agt_v10_full', 'a2a-card-v1.0-full.json'),
  importedAgent('agt_v03', 'a2a-card-v0.3.json'),
];

function allCards(): Record<string, { spec: A2aSpecVersion; card: object }> {
  const cards: Record<string, { spec: A2aSpecVersion; card: object }> = {};
  for (const spec of ['1.0', '0.3'] as const) {
    cards[`public gateway card v${spec}`] = { spec, card: publicGatewayCard(PUBLIC_URL, spec) };
    cards[`keyed gateway card v${spec}`] = { spec, card: gatewayCard(PUBLIC_URL, agents, ADMIN, spec) };
    for (const agent of agents)
      cards[`${agent._id} v${spec}`] = {
        spec,
        card: exportA2aCard(agent, `${PUBLIC_URL}${agentFacePath(agent._id)}`, spec),
      };
  }
  return cards;
}

describe('a2a cards and the a2a-sdk', { skip }, () => {
  it('a2a cards and the a2a-sdk - every card served or exported validates, required fields present', async () => {
    const cards = allCards();
    const { problems } = (await runPythonClient('a2a_card_check.py', { cards })) as {
      problems: Record<string, string[]>;
    };
    assert.deepEqual(Object.keys(problems).sort(), Object.keys(cards).sort(), 'every card was checked');
    for (const [name, found] of Object.entries(problems)) assert.deepEqual(found, [], name);
  });

  it('a2a cards and the a2a-sdk - the check sees a skill without tags (it is not a check that passes anything)', async () => {
    const card = exportA2aCard(agents[0]!, `${PUBLIC_URL}${agentFacePath('agt_plain')}`, '1.0');
    const untagged = { ...card, skills: (card.skills as object[]).map((skill) => ({ ...skill, tags: [] })) };
    const { problems } = (await runPythonClient('a2a_card_check.py', {
      cards: { untagged: { spec: '1.0', card: untagged } },
    })) as { problems: Record<string, string[]> };
    assert.deepEqual(problems.untagged, ['skills[0].tags', 'skills[1].tags']);
  });
});
