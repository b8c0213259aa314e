/**
 * Key proofs: how a Temporal-native caller (a `sendMessage` start, a Nexus operation, a `runChain` start) shows that
 * it holds an API key without sending the key, for one message or one chain and one body only.
 *
 * A key's secret deterministically yields an Ed25519 key pair (its seed: an HMAC of the secret). The gateway stores
 * the public half when it creates the key (`proof_public_key`), never the private half: what the database holds (the
 * secret's hash, the public key) cannot make a proof. A proof is the signature of a statement naming the kind
 * (message or chain), the tenant, the id and the SHA-256 of the canonical JSON of the body sent: it proves that one
 * body under that one id, and nothing else. Signatures are deterministic (the same input gives the same proof).
 *
 * Keys created before this scheme have no public key: they keep the earlier, id-only HMAC proofs (rules/api-key.ts
 * `legacyKeyProof`) until rotated; `GET /v1/keys` flags them (docs/security.md). Uses node:crypto: never import from
 * workflows.
 */
import { createHmac, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from './ids';
import { parseApiKey } from './api-key';

/** DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS#8) or public key (SPKI). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** A proof: an Ed25519 signature, 64 bytes in base64url. */
export const KEY_PROOF_PATTERN = /^[A-Za-z0-9_-]{86}$/;

/** What a proof is for: one message (or one chain) of a tenant, with exactly this body. */
export interface ProofSubject {
  kind: 'message' | 'chain';
  tenant: string;
  /** The message id, or the chain id. */
  id: string;
  /** What is sent, without the fields named in the statement or the proof itself (see `provenBody`). */
  body: unknown;
}

/** The fields of an input that the statement names on its own, or that carry the credential: left out of the hash. */
const OUTSIDE_THE_BODY = {
  message: ['tenant', 'message_id', 'key_id', 'key_proof'],
  chain: ['tenant', 'chain_id', 'key_id', 'key_proof', 'key_proofs', 'caller', 'seal'],
} as const;

/** The part of an input (a `sendMessage` input, a `runChain` input) that a proof covers. */
export function provenBody(kind: ProofSubject['kind'], input: Record<string, unknown>): Record<string, unknown> {
  const body = { ...input };
  for (const field of OUTSIDE_THE_BODY[kind]) delete body[field];
  return body;
}

function statement(subject: ProofSubject): Buffer {
  return Buffer.from(
    `agent-reach key proof v2\n${subject.kind}\n${subject.tenant}\n${subject.id}\n${sha256Hex(canonicalJson(subject.body))}`,
    'utf8',
  );
}

function privateKeyOf(secret: string): KeyObject {
  const seed = createHmac('sha256', secret).update('agent-reach proof key v2').digest();
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
}

/** The public half of the proof key of a key's secret, as stored (base64url of the raw 32 bytes). */
export function proofPublicKey(secret: string): string {
  const spki = createPublicKey(privateKeyOf(secret)).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_ED25519.length).toString('base64url');
}

/** The proof that the holder of `apiKey` sends this body under this id; undefined when `apiKey` is not an API key. */
export function signProof(apiKey: string, subject: ProofSubject): string | undefined {
  const parsed = parseApiKey(apiKey);
  return parsed && sign(null, statement(subject), privateKeyOf(parsed.secret)).toString('base64url');
}

/** Whether `proof` is the proof of this subject by the key whose stored public key is `publicKey`. */
export function proofMatches(publicKey: string, proof: string, subject: ProofSubject): boolean {
  if (!KEY_PROOF_PATTERN.test(proof)) return false;
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519, Buffer.from(publicKey, 'base64url')]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, statement(subject), key, Buffer.from(proof, 'base64url'));
  } catch {
    return false;
  }
}
