/**
 * `npm run bench:oidc`: what validating an OIDC access token adds to a request, with the issuer's keys cached.
 *
 * A real `oidc-provider` runs in this process (test/helpers/oidc-provider.ts) and the gateway as separate processes
 * (Temporal dev server, FerretDB, api, worker; bench/lib/system.ts) with AUTH_OIDC_ISSUER naming it. One agent with
 * a few capabilities is registered. Then `POST /v1/route` (an intent routed over the tenant) is sent one at a time,
 * alternating an API key (cached by the api after its first use) and an access token of the same tenant and scopes
 * (its issuer's JWKS fetched by the first token and cached), after a warm-up of each. Reported: each one's latency
 * percentiles and their difference at p50 and p99 — the cost of a token over a key on the same route. Beside it, the
 * validation alone in this process (TokenVerifier.verify, the same code the api runs, keys cached), per call.
 *
 *   --count 1000 (requests of each kind)  --warmup 50  --name oidc-route
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../platform/config';
import { tokenVerifierOf } from '../../identity/token-verifier';
import { startTestIdp } from '../../test/helpers/oidc-provider';
import { machine } from '../lib/report';
import { writeResultFile } from '../lib/result-file';
import { latencyPercentiles } from '../lib/stats';
import { startBenchSystem, type BenchSystem } from '../lib/system';

const RESULTS = resolve(__dirname, '../results');

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '50' },
    name: { type: 'string', default: 'oidc-route' },
  },
});
const count = Number(values.count);
const warmup = Number(values.warmup);

const INTENTS = [
  'refund order 1042',
  'where is my parcel 77',
  'cancel my subscription',
  'change the delivery address of order 9',
];

async function timed(url: string, credential: string, intent: string): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
    body: JSON.stringify({ intent }),
  });
  await response.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200) throw new Error(`POST /v1/route answered ${response.status}`);
  return ms;
}

async function registerShop(system: BenchSystem): Promise<void> {
  const register = await fetch(`${system.apiUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
    body: JSON.stringify({
      name: 'bench-oidc-shop',
      endpoint: 'http://127.0.0.1:9/',
      capabilities: [
        { name: 'refund', description: 'Refunds an order', examples: ['refund order 1042', 'I want my money back'] },
        { name: 'track', description: 'Tracks a parcel', examples: ['where is my parcel', 'track shipment 77'] },
        {
          name: 'cancel',
          description: 'Cancels a subscription',
          examples: ['cancel my subscription', 'stop my plan'],
        },
        {
          name: 'address',
          description: 'Changes a delivery address',
          examples: ['change my delivery address', 'ship to another address'],
        },
      ],
    }),
  });
  if (register.status !== 201 && register.status !== 200)
    throw new Error(`registration answered ${register.status}: ${await register.text()}`);
}

/** The route's latencies with the API key and with the token, after a warm-up of each. */
async function measureRoute(url: string, apiKey: string, token: string): Promise<{ key: number[]; tok: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await timed(url, apiKey, INTENTS[i % INTENTS.length]!);
    await timed(url, token, INTENTS[i % INTENTS.length]!);
  }
  const key: number[] = [];
  const tok: number[] = [];
  for (let i = 0; i < count; i++) {
    const intent = INTENTS[i % INTENTS.length]!;
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      key.push(await timed(url, apiKey, intent));
      tok.push(await timed(url, token, intent));
    } else {
      tok.push(await timed(url, token, intent));
      key.push(await timed(url, apiKey, intent));
    }
  }
  return { key, tok };
}

/** The validation alone, in this process, as the api runs it (keys cached after the first call). */
async function verifyInProcess(issuer: string, apiUrl: string, token: string) {
  const verifier = tokenVerifierOf(loadConfig({ AUTH_OIDC_ISSUER: issuer, PUBLIC_URL: apiUrl }))!;
  await verifier.verify(token, { forMcp: false });
  const verifyMs: number[] = [];
  for (let i = 0; i < count * 5; i++) {
    const started = process.hrtime.bigint();
    await verifier.verify(token, { forMcp: false });
    verifyMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const sortedVerify = [...verifyMs].sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(
      sortedVerify[Math.min(sortedVerify.length - 1, Math.ceil((p / 100) * sortedVerify.length) - 1)]! * 1000,
    ) / 1000;
  return { n: verifyMs.length, p50: at(50), p99: at(99) };
}

function precise(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! * 100) / 100;
  return { p50_ms: pick(50), p99_ms: pick(99) };
}

async function main() {
  const idp = await startTestIdp({ clients: { 'bench-svc': { tenant: 'default', groups: ['bench'] } } });
  const system = await startBenchSystem({
    env: { AUTH_OIDC_ISSUER: idp.issuer, RATE_LIMIT_PER_SECOND: '0' },
    log: (line) => console.error(line),
  });
  try {
    await registerShop(system);
    const token = await idp.serviceToken('bench-svc', system.apiUrl, 'read send');
    const { key, tok } = await measureRoute(`${system.apiUrl}/v1/route`, system.apiKey, token);
    const verify = await verifyInProcess(idp.issuer, system.apiUrl, token);
    const keyP = precise(key);
    const tokP = precise(tok);
    const result = {
      benchmark: 'oidc-route',
      measured_from: 'npm run bench:oidc',
      machine: machine(),
      requests_each: count,
      warmup_each: warmup,
      route: 'POST /v1/route (intent routed over one agent of 4 capabilities)',
      token: { alg: 'RS256', issuer: 'oidc-provider (in the bench process, loopback)', jwks: 'cached' },
      api_key: { ...latencyPercentiles(key), ...keyP },
      access_token: { ...latencyPercentiles(tok), ...tokP },
      added_by_token_ms: {
        p50: Math.round((tokP.p50_ms - keyP.p50_ms) * 100) / 100,
        p99: Math.round((tokP.p99_ms - keyP.p99_ms) * 100) / 100,
      },
      verify_in_process_ms: verify,
    };
    const file = writeResultFile(RESULTS, values.name!, result);
    console.log(JSON.stringify(result, null, 2));
    console.error(`written ${file}`);
  } finally {
    await system.stop();
    await idp.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
