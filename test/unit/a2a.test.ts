import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentCardUrl, capabilityNameOf, capabilityOfSkill, exportA2aCard, importA2aCard } from '../../catalogue/a2a';
import type { AgentDoc } from '../../store/agents';
import { cardFields } from '../../catalogue/card';

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, '../fixtures', name), 'utf8')) as Record<string, unknown>;

describe('a2a', () => {
  it('a2a - imports a v1.0 card: first HTTP-capable interface, skills as capabilities', () => {
    const imported = importA2aCard(fixture('a2a-card-v1.0.json'));
    assert.equal(imported.kind, 'ok');
    if (imported.kind !== 'ok') return;
    assert.equal(imported.specVersion, '1.0');
    assert.equal(imported.input.name, 'Travel Planner');
    assert.equal(imported.input.version, '2.3.0');
    assert.equal(
      imported.input.instances?.[0]?.endpoint,
      'https://travel.example.com/a2a/v1',
      'the gRPC interface is skipped',
    );
    assert.deepEqual(
      imported.input.capabilities.map((c) => c.name),
      ['book-flight', 'hotel-search-v2'],
    );
    assert.deepEqual(imported.input.capabilities[0]?.tags, ['travel', 'flights', '机票']);
    assert.equal(imported.input.capabilities[0]?.examples?.length, 2);
  });

  it('a2a - imports a v0.3 card: url and preferredTransport', () => {
    const imported = importA2aCard(fixture('a2a-card-v0.3.json'));
    assert.equal(imported.kind, 'ok');
    if (imported.kind !== 'ok') return;
    assert.equal(imported.specVersion, '0.3');
    assert.equal(imported.input.instances?.[0]?.endpoint, 'http://127.0.0.1:10000/');
    assert.deepEqual(imported.input.capabilities, [
      {
        name: 'convert_currency',
        description: 'Helps with exchange values between various currencies',
        tags: ['currency conversion', 'currency exchange'],
        examples: ['What is exchange rate between USD and GBP?'],
      },
    ]);
  });

  it('a2a - a v0.3 card whose only interface is gRPC is refused', () => {
    const card = { ...fixture('a2a-card-v0.3.json'), preferredTransport: 'GRPC', additionalInterfaces: [] };
    const imported = importA2aCard(card);
    assert.equal(imported.kind, 'invalid');
    if (imported.kind === 'invalid') assert.match(imported.problems[0]!.message, /no interface with an http\(s\) URL/);
  });

  it('a2a - cards without skills or interfaces are refused with locations', () => {
    const noSkills = importA2aCard({ ...fixture('a2a-card-v1.0.json'), skills: [] });
    assert.equal(noSkills.kind, 'invalid');
    if (noSkills.kind === 'invalid') assert.equal(noSkills.problems[0]!.location, 'card.skills');
    const { supportedInterfaces: _, ...bare } = fixture('a2a-card-v1.0.json');
    const noInterfaces = importA2aCard(bare);
    assert.equal(noInterfaces.kind, 'invalid');
    assert.equal(importA2aCard('not a card').kind, 'invalid');
  });

  it('a2a - duplicate skill ids get distinct capability names', () => {
    const card = fixture('a2a-card-v0.3.json');
    const skill = (card.skills as object[])[0]!;
    const imported = importA2aCard({ ...card, skills: [skill, skill] });
    assert.equal(imported.kind, 'ok');
    if (imported.kind === 'ok')
      assert.deepEqual(
        imported.input.capabilities.map((c) => c.name),
        ['convert_currency', 'convert_currency-2'],
      );
  });

  it('a2a - capability names are cleaned from skill ids', () => {
    assert.equal(capabilityNameOf('book flight!'), 'book-flight-');
    assert.equal(capabilityNameOf('--x'), 'x');
    assert.equal(capabilityNameOf('日本語'), 'skill');
    assert.equal(capabilityNameOf('a'.repeat(100)).length, 64);
  });

  it('a2a - the well-known card URL is derived from a base URL', () => {
    assert.equal(agentCardUrl('http://127.0.0.1:9000'), 'http://127.0.0.1:9000/.well-known/agent-card.json');
    assert.equal(agentCardUrl('http://h/agents/'), 'http://h/agents/.well-known/agent-card.json');
    assert.equal(agentCardUrl('http://h/card.json'), 'http://h/card.json');
  });

  it('a2a - a native agent exports a card SDK clients can use: its face over JSON-RPC and HTTP+JSON, our bearer scheme, its capabilities as skills', () => {
    const agent = agentDoc(
      cardFields({
        name: 'refunds',
        description: 'Refunds orders',
        capabilities: [{ name: 'refund', tags: ['money'], examples: ['refund 42'] }],
      }),
    );
    const v1 = exportA2aCard(agent, FACE, '1.0');
    assert.deepEqual(v1.supportedInterfaces, [
      { url: FACE, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: FACE, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${FACE}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${FACE}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    assert.deepEqual(v1.securitySchemes, {
      reach_api_key: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description: 'An Agent-Reach API key, sent as "Authorization: Bearer rk_…"',
        },
      },
    });
    assert.deepEqual(v1.securityRequirements, [{ schemes: { reach_api_key: { list: [] } } }]);
    assert.deepEqual(v1.skills, [
      { id: 'refund', name: 'refund', description: 'refund', tags: ['money'], examples: ['refund 42'] },
    ]);
    const v03 = exportA2aCard(agent, FACE, '0.3');
    assert.equal(v03.url, FACE);
    assert.equal(v03.preferredTransport, 'JSONRPC');
    assert.deepEqual(v03.additionalInterfaces, [
      { url: FACE, transport: 'JSONRPC' },
      { url: `${FACE}/rest`, transport: 'HTTP+JSON' },
    ]);
    assert.equal(v03.protocolVersion, '0.3.0');
    assert.deepEqual(v03.security, [{ reach_api_key: [] }]);
    assert.ok(!('supportedInterfaces' in v03));
    const again = importA2aCard(v1);
    assert.equal(again.kind, 'ok', 'the exported card is one an A2A client (and our own import) can use');
    if (again.kind === 'ok') assert.equal(again.input.instances?.[0]?.endpoint, FACE);
  });

  it("a2a - an export lists only the skills the predicate admits (the key's ACLs)", () => {
    const agent = agentDoc(
      cardFields({ name: 'pay', capabilities: [{ name: 'refund' }, { name: 'payout', acl: { scopes: ['payouts'] } }] }),
    );
    const card = exportA2aCard(agent, FACE, '1.0', (c) => !c.acl);
    assert.deepEqual(
      (card.skills as { id: string }[]).map((s) => s.id),
      ['refund'],
    );
  });

  for (const name of ['a2a-card-v1.0-full.json', 'a2a-card-v1.0.json', 'a2a-card-v0.3.json']) {
    it(`a2a - import then export keeps what the card said (${name}): names, modes, provider, extensions, skills`, () => {
      const raw = fixture(name);
      const exported = roundTrip(raw);
      for (const key of [
        'name',
        'description',
        'version',
        'provider',
        'documentationUrl',
        'iconUrl',
        'defaultInputModes',
        'defaultOutputModes',
      ]) {
        if (key in raw) assert.deepEqual(exported[key], raw[key], key);
      }
      assert.deepEqual(
        (exported.capabilities as { extensions?: unknown }).extensions,
        (raw.capabilities as { extensions?: unknown }).extensions,
      );
      const skills = (raw.skills as Record<string, unknown>[]).map(({ securityRequirements: _, ...skill }) => skill);
      assert.deepEqual(exported.skills, skills, 'every skill with its id, name, description, tags, examples and modes');
      // Where and how to reach it: the gateway's face and key, not the agent's own URL, schemes or signatures.
      assert.deepEqual(Object.keys(exported.securitySchemes as object), ['reach_api_key']);
      assert.equal((exported.supportedInterfaces as { url: string }[])[0]!.url, FACE);
      for (const gone of [
        'signatures',
        'url',
        'preferredTransport',
        'additionalInterfaces',
        'security',
        'supportsAuthenticatedExtendedCard',
      ])
        assert.ok(!(gone in exported), gone);
      // Imported again, the exported card gives the same capabilities.
      const first = importA2aCard(raw);
      const second = importA2aCard(exported);
      assert.ok(first.kind === 'ok' && second.kind === 'ok');
      assert.deepEqual(second.input.capabilities, first.input.capabilities);
    });
  }

  it("a2a - skill ids name capabilities on the agent's face; a card too large is not kept", () => {
    const raw = fixture('a2a-card-v1.0.json');
    const imported = importA2aCard(raw);
    assert.ok(imported.kind === 'ok' && imported.cardJson);
    const agent = agentDoc(cardFields(imported.input), { kind: 'a2a', version: '1.0', card_json: imported.cardJson });
    assert.equal(capabilityOfSkill(agent, 'hotel search/v2'), 'hotel-search-v2');
    assert.equal(capabilityOfSkill(agent, 'book-flight'), 'book-flight');
    assert.equal(capabilityOfSkill(agent, 'nope'), undefined);
    const huge = importA2aCard({
      ...raw,
      description: 'x'.repeat(4000),
      skills: Array.from({ length: 100 }, (_, i) => ({
        id: `s${i}`,
        name: 'n'.repeat(256),
        description: 'd'.repeat(600),
      })),
    });
    assert.ok(huge.kind === 'ok' && !huge.cardJson, 'larger than MAX_KEPT_CARD_CHARS: not kept');
  });
});

const FACE = 'https://reach.example.com/a2a/agents/agt_1';

function agentDoc(fields: ReturnType<typeof cardFields>, source?: AgentDoc['source']): AgentDoc {
  return {
    _id: 'agt_1',
    tenant: 't',
    revision: 1,
    secret_hash: 'x',
    created_at: new Date(),
    updated_at: new Date(),
    ...fields,
    ...(source ? { source } : {}),
  };
}

/** Imports a card as the import route does (keeping the card) and exports it again, v1.0. */
function roundTrip(raw: Record<string, unknown>): Record<string, unknown> {
  const imported = importA2aCard(raw);
  assert.equal(imported.kind, 'ok');
  if (imported.kind !== 'ok') throw new Error('not imported');
  assert.ok(imported.cardJson, 'the card is kept');
  return exportA2aCard(
    agentDoc(cardFields(imported.input), { kind: 'a2a', version: imported.specVersion, card_json: imported.cardJson }),
    FACE,
    '1.0',
  );
}
