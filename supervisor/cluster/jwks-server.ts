/**
 * The JWKS Temporal's authorizer fetches the cluster's public key from (`jwtKeyProvider.keySourceURIs`: HTTP only in
 * Temporal v1.29, no file://), served by the supervisor on loopback. Temporal reads it at start and every minute.
 */
import { createServer } from 'node:http';
import type { JWK } from 'jose';

export const JWKS_PATH = '/.well-known/jwks.json';

export interface JwksServer {
  url: string;
  stop(): Promise<void>;
}

/** Serves `keys` on `host` (loopback unless a container must reach it: compose). */
export async function startJwksServer(port: number, keys: JWK[], host = '127.0.0.1'): Promise<JwksServer> {
  const body = JSON.stringify({ keys });
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== JWKS_PATH) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://${host}:${port}${JWKS_PATH}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
