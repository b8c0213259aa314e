/**
 * Key proofs (rules/key-proof.ts): a proof proves one body under one id of one tenant, by the holder of the key's
 * secret; what the gateway stores of a key (the secret's hash, the proof public key) cannot make one.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { legacyKeyProof, newApiKey, parseApiKey } from '../../rules/api-key';
import { parseConfigKeys } from '../../rules/config-keys';
import { hashSecret } from '../../rules/ids';
import {
  KEY_PROOF_PATTERN,
  proofMatches,
  proofPublicKey,
  provenBody,
  signProof,
  type ProofSubject,
} from '../../rules/key-proof';

const made = newApiKey();
const publicKey = proofPublicKey(made.secret);
const subject: ProofSubject = {
  kind: 'message',
  tenant: 'acme',
  id: 'order-42',
  body: { target: { agent_id: 'agt_1', capability: 'refund' }, payload: { amount: 25 } },
};

describe('key proof', () => {
  it('key proof - made by the key, checked against its stored public key; deterministic', () => {
    const proof = signProof(made.key, subject)!;
    assert.match(proof, KEY_PROOF_PATTERN);
    assert.equal(signProof(made.key, subject), proof, 'the same input gives the same proof');
    assert.equal(proofMatches(publicKey, proof, subject), true);
    assert.equal(proofPublicKey(made.secret), publicKey, 'the public key follows from the secret alone');
  });

  it('key proof - proves that body under that id, kind and tenant only', () => {
    const proof = signProof(made.key, subject)!;
    const others: [string, ProofSubject][] = [
      ['another id', { ...subject, id: 'order-43' }],
      ['another tenant', { ...subject, tenant: 'other' }],
      ['a chain of the same id', { ...subject, kind: 'chain' }],
      ['another payload', { ...subject, body: { ...(subject.body as object), payload: { amount: 25_000 } } }],
      [
        'another target',
        { ...subject, body: { ...(subject.body as object), target: { agent_id: 'agt_1', capability: 'transfer' } } },
      ],
      [
        'a field added',
        { ...subject, body: { ...(subject.body as object), reply_to: { url: 'https://attacker.example/' } } },
      ],
    ];
    for (const [what, other] of others) assert.equal(proofMatches(publicKey, proof, other), false, what);
  });

  it('key proof - the body is compared as canonical JSON: key order does not matter', () => {
    const proof = signProof(made.key, {
      ...subject,
      body: { payload: { amount: 25 }, target: { capability: 'refund', agent_id: 'agt_1' } },
    })!;
    assert.equal(proofMatches(publicKey, proof, subject), true);
  });

  it('key proof - another key, the stored hash, or the stored public key cannot make one', () => {
    const proof = signProof(made.key, subject)!;
    const other = newApiKey();
    assert.equal(proofMatches(publicKey, signProof(other.key, subject)!, subject), false, 'another key');
    // What a database read yields: the secret's hash and the public key. Neither is the signing key.
    const fromHash = signProof(`rk_${made.keyId}_${hashSecret(made.secret).slice(0, 43)}`, subject)!;
    assert.equal(proofMatches(publicKey, fromHash, subject), false, 'a key made from the stored hash');
    const hmacOfHash = createHmac('sha512', made.secretHash)
      .update(JSON.stringify(subject))
      .digest('base64url')
      .slice(0, 86);
    assert.equal(proofMatches(publicKey, hmacOfHash, subject), false, 'an HMAC under the stored hash');
    assert.equal(
      proofMatches(publicKey, legacyKeyProof(made.key, 'acme', 'order-42')!, subject),
      false,
      'the earlier id-only proof',
    );
    const flipped = `${proof.slice(0, 10)}${proof[10] === 'A' ? 'B' : 'A'}${proof.slice(11)}`; // a byte of R changed
    assert.equal(proofMatches(publicKey, flipped, subject), false, 'a changed signature');
    assert.equal(proofMatches('not-a-key', proof, subject), false, 'a malformed public key is no match, not a throw');
  });

  it('key proof - the proven body leaves out what the statement names and the credential itself', () => {
    const input = {
      tenant: 'acme',
      message_id: 'm',
      key_id: 'aaaaaaaaaaaa',
      key_proof: 'x',
      target: { agent_id: 'a', capability: 'c' },
    };
    assert.deepEqual(provenBody('message', input), { target: { agent_id: 'a', capability: 'c' } });
    const chain = {
      tenant: 'acme',
      chain_id: 'c',
      key_id: 'k',
      key_proof: 'p',
      key_proofs: {},
      caller: {},
      seal: {},
      steps: [],
    };
    assert.deepEqual(provenBody('chain', chain), { steps: [] });
  });

  it('key proof - keys of API_KEYS carry their proof public key', () => {
    const parsed = parseConfigKeys(`acme:send:${made.key}`);
    assert.ok('keys' in parsed);
    assert.equal(parsed.keys[0]!.proof_public_key, proofPublicKey(parseApiKey(made.key)!.secret));
  });
});
