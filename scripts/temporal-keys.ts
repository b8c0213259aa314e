/**
 * `node dist/scripts/temporal-keys.js` (docker-compose.yml's `temporal-keys`): compose's stand-in for what
 * `npm run cluster`'s supervisor does for Temporal's authorization. Keeps the token key in `--data-dir` (made once),
 * writes the gateway's token (`<namespace>:admin`, for the api and worker) and the operator's
 * (`temporal-system:admin`, for the namespace job) into `--tokens-dir`, then serves the JWKS until stopped.
 * In production the JWKS and the tokens come from the operator's IdP instead.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startJwksServer } from '../supervisor/cluster/jwks-server';
import { mintTemporalToken, permission, SYSTEM_ADMIN } from '../supervisor/cluster/temporal-tokens';
import { clusterTokenKey } from '../supervisor/cluster/token-key';

const GATEWAY_TOKEN_TTL_SECONDS = 365 * 86_400;
const OPERATOR_TOKEN_TTL_SECONDS = 86_400;

function port(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) throw new InvalidArgumentError('a port, 1–65535');
  return value;
}

function ip(text: string): string {
  if (!isIP(text)) throw new InvalidArgumentError('an IP address, e.g. 0.0.0.0 or 127.0.0.1');
  return text;
}

const program = new Command('temporal-keys')
  .description("Keeps the token key, writes the gateway's and the operator's tokens, serves the JWKS")
  .requiredOption('--data-dir <folder>', 'where the key is kept')
  .requiredOption('--tokens-dir <folder>', 'where gateway.token and operator.token are written')
  .option('--namespace <name>', "the gateway's namespace", 'default')
  .option('--host <ip>', 'the interface the JWKS is served on', ip, '0.0.0.0')
  .option('--port <port>', 'the JWKS port', port, 7280)
  .action(async (options: { dataDir: string; tokensDir: string; namespace: string; host: string; port: number }) => {
    const key = await clusterTokenKey(options.dataDir, { create: true });
    const gateway = await mintTemporalToken(key, {
      subject: 'agent-reach-gateway',
      permissions: [permission(options.namespace, 'admin')],
      ttlSeconds: GATEWAY_TOKEN_TTL_SECONDS,
    });
    const operator = await mintTemporalToken(key, {
      subject: 'operator',
      permissions: [SYSTEM_ADMIN],
      ttlSeconds: OPERATOR_TOKEN_TTL_SECONDS,
    });
    mkdirSync(options.tokensDir, { recursive: true });
    writeFileSync(join(options.tokensDir, 'gateway.token'), `${gateway}\n`, { mode: 0o600 });
    writeFileSync(join(options.tokensDir, 'operator.token'), `${operator}\n`, { mode: 0o600 });
    const jwks = await startJwksServer(options.port, [key.publicJwk], options.host);
    console.log(`temporal-keys: JWKS on ${jwks.url}; tokens in ${options.tokensDir}`);
    process.on('SIGTERM', () => void jwks.stop().then(() => process.exit(0)));
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`temporal-keys: ${(error as Error).message}`);
  process.exit(1);
});
