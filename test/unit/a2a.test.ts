import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentCardUrl, capabilityNameOf, exportA2aCard, importA2aCard } from '../../catalogue/a2a';
import { cardFields } from '../../catalogue/card';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures', name), 'utf8')) as Record<string, unknown>;

describe('a2a', () => {
  it('a2a - imports a v1.0 card: first HTTP-capable interface, skills as capabilities', () => {
    const imported = importA2aCard(fixture('a2a-card-v1.0.json'));
    assert.equal(imported.kind, 'ok');
    if (imported.kind !== 'ok') return;
    assert.equal(imported.specVersion, '1.0');
    assert.equal(imported.input.name, 'Travel Planner');
    assert.equal(imported.input.version, '2.3.0');
    assert.equal(imported.input.endpoint, 'https://travel.example.com/a2a/v1', 'the gRPC interface is skipped');
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
    assert.equal(imported.input.endpoint, 'http://127.0.0.1:10000/');
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
    if (imported.kind === 'ok') assert.deepEqual(imported.input.capabilities.map((c) => c.name), ['convert_currency', 'convert_currency-2']);
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

  it('a2a - export in both spec versions carries skills and the gateway interface', () => {
    const fields = cardFields({ name: 'refunds', description: 'Refunds orders', capabilities: [{ name: 'refund', tags: ['money'], examples: ['refund 42'] }] });
    const agent = { _id: 'agt_1', tenant: 't', revision: 1, secret_hash: 'x', created_at: new Date(), updated_at: new Date(), ...fields };
    const v1 = exportA2aCard({ agent, instances: [] }, 'https://reach.example.com', '1.0') as Record<string, unknown>;
    assert.deepEqual(v1.supportedInterfaces, [{ url: 'https://reach.example.com/v1/messages', protocolBinding: 'AGENT-REACH+JSON', protocolVersion: '1.0' }]);
    assert.deepEqual(v1.skills, [{ id: 'refund', name: 'refund', description: 'refund', tags: ['money'], examples: ['refund 42'] }]);
    const v03 = exportA2aCard({ agent, instances: [] }, 'https://reach.example.com', '0.3') as Record<string, unknown>;
    assert.equal(v03.url, 'https://reach.example.com/v1/messages');
    assert.equal(v03.protocolVersion, '0.3.0');
    assert.ok(!('supportedInterfaces' in v03));
    assert.equal(importA2aCard(v1).kind, 'invalid', 'our own binding is not an HTTP JSON binding A2A clients speak');
  });
});
