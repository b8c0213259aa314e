/**
 * The cluster's token-signing key (cluster mode's Temporal authorization, docs/cluster.md): an ECDSA P-256 key made
 * once and kept in the data folder, as kept-secret.ts keeps secrets. Its public half is what Temporal's authorizer
 * trusts (jwks-server.ts publishes it); tokens are signed with its private half (temporal-tokens.ts).
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, importPKCS8, type JWK, type KeyLike } from 'jose';
import { keptSecret } from './kept-secret';

/** Temporal v1.29's default key provider accepts RS256 and ES256 only. */
export const TOKEN_ALGORITHM = 'ES256';
export const TOKEN_KEY_FILE = 'temporal-token-key.pem';

export interface TokenKey {
  privateKey: KeyLike;
  /** The public key as a JWK, with its `kid` (the RFC 7638 thumbprint) — what Temporal matches a token's header to. */
  publicJwk: JWK & { kid: string };
}

function newPrivateKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}

/** The key of the cluster whose data folder is `dataDir`; made there on first use when `create` is set. */
export async function clusterTokenKey(dataDir: string, { create }: { create: boolean }): Promise<TokenKey> {
  if (!create && !existsSync(join(dataDir, TOKEN_KEY_FILE))) {
    throw new Error(
      `no token key in ${dataDir} (${TOKEN_KEY_FILE}): start the cluster once (npm run cluster), or name its data folder`,
    );
  }
  const pem = keptSecret(dataDir, TOKEN_KEY_FILE, newPrivateKeyPem);
  const privateKey = await importPKCS8(pem, TOKEN_ALGORITHM);
  const jwk = await exportJWK(createPublicKey(pem));
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, publicJwk: { ...jwk, kid, alg: TOKEN_ALGORITHM, use: 'sig' } };
}
