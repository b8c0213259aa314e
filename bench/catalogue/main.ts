/**
 * `npm run bench:catalogue [-- --agents 10000 --seconds 10 --concurrency 32]`
 *
 * Starts embedded mode (one api process, FerretDB on SQLite) and measures, over HTTP like agents and operators:
 * 1. registration throughput over HTTP for the first `--register` agents (3 capabilities each); the rest, up to
 *    `--agents`, are written straight to the database in batches (same documents) to save time;
 * 2. heartbeat intake over HTTP with `--concurrency` clients and `--beaters` instances: first beats (written),
 *    then `--seconds` of steady state (repeat beats within the write window, answered from memory);
 * 3. heartbeat writes as direct calls on the catalogue (no HTTP, no coalescing), to show where the time goes;
 * 4. list/search latency with N agents: first page, tag, capability, free text, state, full pagination.
 * The load generator runs on the same 2-core machine as the api, FerretDB and Temporal: figures are conservative.
 * Writes bench/results/catalogue-<timestamp>.json.
 */
import mongoose from 'mongoose';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { newInstanceDoc } from '../../catalogue/agent-store';
import { cardFields } from '../../catalogue/card';
import { createCatalogue } from '../../catalogue/catalogue';
import { bumpVersion } from '../../store/catalogue-meta';
import { catalogueModels, type CatalogueModels } from '../../store/models';
import { type AgentDoc } from '../../store/agents';
import { loadConfig } from '../../platform/config';
import { hashSecret, newAgentId, newAgentSecret } from '../../rules/ids';
import { writeResultFile } from '../lib/result-file';
import { startEmbeddedProcess, type EmbeddedProcess } from '../../supervisor/embedded-process';
import { summary } from '../lib/stats';

const ROOT = resolve(__dirname, '../..');
const WORDS = [
  'refund',
  'invoice',
  'ticket',
  'weather',
  'translate',
  'summarise',
  'schedule',
  'search',
  'quality',
  'shipping',
];
const ZH = ['退款', '发票', '工单', '天气', '翻译', '摘要', '日程', '搜索', '质检', '物流'];

interface Registered {
  agent_id: string;
  secret: string;
}

async function post(url: string, body: unknown, secret?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

function card(i: number) {
  const w = WORDS[i % WORDS.length]!;
  const z = ZH[i % ZH.length]!;
  return {
    name: `bench-agent-${i}`,
    description: `Agent ${i} handles ${w} requests (${z})`,
    tags: [`team-${i % 50}`, w],
    endpoint: `http://127.0.0.1:9/agents/${i}`,
    capabilities: [0, 1, 2].map((k) => ({
      name: `${WORDS[(i + k) % WORDS.length]}-${k}`,
      description: `${WORDS[(i + k) % WORDS.length]} capability ${k} of agent ${i}`,
      tags: [ZH[(i + k) % ZH.length]!],
      examples: [`please ${WORDS[(i + k) % WORDS.length]} item ${i}`],
    })),
  };
}

/** The documents registration would write for agent i, for bulk loading. */
function bulkAgent(i: number) {
  const now = new Date();
  const secret = newAgentSecret();
  const agent: AgentDoc = {
    _id: newAgentId(),
    tenant: 'default',
    ...cardFields(card(i)),
    revision: 1,
    secret_hash: hashSecret(secret),
    created_at: now,
    updated_at: now,
  };
  return {
    agent,
    secret,
    instance: newInstanceDoc(agent, { instance_id: 'i1', transport: 'http', endpoint: card(i).endpoint }, now),
  };
}

async function timeQuery(
  url: string,
  repeats: number,
  apiKey: string,
): Promise<ReturnType<typeof summary> & { items: number }> {
  const times: number[] = [];
  let items = 0;
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await response.json()) as { items: unknown[] };
    times.push(performance.now() - started);
    items = body.items.length;
  }
  return { ...summary(times), items };
}

type Results = Record<string, unknown>;

/** Registers the first `registerCount` agents over HTTP, measured. */
async function registerOverHttp(
  system: EmbeddedProcess,
  registerCount: number,
  results: Results,
): Promise<Registered[]> {
  const registered: Registered[] = [];
  const started = performance.now();
  await pool(registerCount, 8, async (i) => {
    const response = await post(`${system.url}/v1/agents`, card(i), system.apiKey);
    if (response.status !== 201) throw new Error(`register ${i}: ${response.status} ${await response.text()}`);
    registered[i] = (await response.json()) as Registered;
  });
  const registerSeconds = (performance.now() - started) / 1000;
  results.registration_http = {
    agents: registerCount,
    seconds: Math.round(registerSeconds * 10) / 10,
    per_second: Math.round(registerCount / registerSeconds),
  };
  console.log(`  registration over HTTP: ${registerCount} agents in ${registerSeconds.toFixed(1)} s`);
  return registered;
}

/** The agents after the registered ones, up to `agentCount`, written straight to the database (same documents) and added to `registered`. */
async function bulkLoad(models: CatalogueModels, registered: Registered[], agentCount: number): Promise<void> {
  for (let from = registered.length; from < agentCount; from += 500) {
    const batch = Array.from({ length: Math.min(500, agentCount - from) }, (_, k) => bulkAgent(from + k));
    await models.agents.insertMany(
      batch.map((b) => b.agent),
      { lean: true },
    );
    await models.instances.insertMany(
      batch.map((b) => b.instance),
      { lean: true },
    );
    batch.forEach((b, k) => (registered[from + k] = { agent_id: b.agent._id, secret: b.secret }));
    process.stdout.write(`\r  bulk-inserted ${from + batch.length}/${agentCount}`);
  }
  await bumpVersion(models.meta);
  console.log('');
}

/** List and search latency, and a full pagination. */
async function searchPhase(system: EmbeddedProcess, repeats: number, results: Results): Promise<void> {
  const q = (query: string) => `${system.url}/v1/agents?${query}`;
  const searches = {
    first_page_50: await timeQuery(q('limit=50'), repeats, system.apiKey),
    by_tag: await timeQuery(q('tag=team-7&limit=500'), repeats, system.apiKey),
    by_capability: await timeQuery(q('capability=refund-0&limit=500'), repeats, system.apiKey),
    free_text_en: await timeQuery(q('q=agent%20123&limit=50'), repeats, system.apiKey),
    free_text_zh: await timeQuery(q(`q=${encodeURIComponent('退款')}&limit=50`), repeats, system.apiKey),
    state_online: await timeQuery(q('state=online&limit=50'), repeats, system.apiKey),
  };
  let pages = 0;
  const started = performance.now();
  for (let cursor: string | undefined; ; pages++) {
    const body = (await (
      await fetch(q(`limit=500${cursor ? `&cursor=${cursor}` : ''}`), {
        headers: { authorization: `Bearer ${system.apiKey}` },
      })
    ).json()) as { next_cursor?: string };
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
  }
  results.search = {
    ...searches,
    full_scan_500_per_page: { pages: pages + 1, seconds: Math.round((performance.now() - started) / 100) / 10 },
  };
  console.table(
    Object.fromEntries(
      Object.entries(searches).map(([k, v]) => [k, { median_ms: v.median_ms, p95_ms: v.p95_ms, items: v.items }]),
    ),
  );
}

/**
 * Heartbeats over HTTP. First beat of each instance: written (cache miss). Then steady state, as agents beating
 * every 10 s would: a replica writes an instance at most every HEARTBEAT_WRITE_EVERY_MS (15 s), so within this window
 * the repeat beats are answered from memory.
 */
async function heartbeatsOverHttp(
  system: EmbeddedProcess,
  beaters: Registered[],
  { concurrency, seconds }: { concurrency: number; seconds: number },
  results: Results,
): Promise<void> {
  const beat = async (agent: Registered, k: number) => {
    const t = performance.now();
    const response = await post(
      `${system.url}/v1/agents/${agent.agent_id}/heartbeat`,
      { instance_id: 'i1', load: { in_flight: k % 7 } },
      agent.secret,
    );
    await response.arrayBuffer();
    return { ok: response.status === 200, ms: performance.now() - t };
  };
  const firstBeats: number[] = [];
  let started = performance.now();
  await pool(beaters.length, concurrency, async (i) => {
    firstBeats.push((await beat(beaters[i]!, i)).ms);
  });
  const firstSeconds = (performance.now() - started) / 1000;
  results.heartbeats_http_written = {
    count: firstBeats.length,
    per_second: Math.round(firstBeats.length / firstSeconds),
    latency: summary(firstBeats),
  };
  console.log(`  heartbeats that write (first beat per instance): ${Math.round(firstBeats.length / firstSeconds)}/s`);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let k = worker; performance.now() < deadline; k += concurrency) {
        const result = await beat(beaters[k % beaters.length]!, k);
        if (!result.ok) errors += 1;
        latencies.push(result.ms);
      }
    }),
  );
  const httpSeconds = (performance.now() - started) / 1000;
  results.heartbeats_http_steady = {
    count: latencies.length,
    errors,
    per_second: Math.round(latencies.length / httpSeconds),
    latency: summary(latencies),
  };
  console.log(
    `  heartbeats in steady state over HTTP: ${Math.round(latencies.length / httpSeconds)}/s, p95 ${summary(latencies).p95_ms} ms, ${errors} errors`,
  );
}

/** Writes straight on FerretDB, no HTTP and no coalescing: what one heartbeat write costs. */
async function heartbeatDbWrites(
  models: CatalogueModels,
  beaters: Registered[],
  seconds: number,
  results: Results,
): Promise<void> {
  const catalogue = createCatalogue(models, loadConfig({ HEARTBEAT_WRITE_EVERY_MS: '1', AGENT_AUTH_CACHE_MS: '0' }));
  const direct: number[] = [];
  let directErrors = 0;
  const directDeadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async (_, worker) => {
      for (let k = worker; performance.now() < directDeadline; k += 4) {
        const agent = beaters[k % beaters.length]!;
        const t = performance.now();
        try {
          const auth = await catalogue.store.authenticate(agent.agent_id, agent.secret);
          if (auth.kind === 'ok')
            await catalogue.heartbeats.beat(auth.agent, { instance_id: 'i1', load: { in_flight: k % 7 } });
        } catch {
          directErrors += 1; // e.g. SQLITE_BUSY when writes queue past FerretDB's 10 s busy timeout
        }
        direct.push(performance.now() - t);
      }
    }),
  );
  const directSeconds = (performance.now() - started) / 1000;
  results.heartbeats_db_writes = {
    count: direct.length,
    errors: directErrors,
    per_second: Math.round(direct.length / directSeconds),
    latency: summary(direct),
  };
  console.log(
    `  heartbeat writes without HTTP (authenticate + write on FerretDB): ${Math.round(direct.length / directSeconds)}/s`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      agents: { type: 'string', default: '10000' },
      register: { type: 'string', default: '300' },
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '32' },
      beaters: { type: 'string', default: '40' },
      repeats: { type: 'string', default: '20' },
    },
  });
  const agentCount = Number(values.agents);
  const registerCount = Math.min(agentCount, Number(values.register));
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const repeats = Number(values.repeats);
  // A one-hour TTL keeps the sweeper from marking the bulk-loaded agents offline mid-run (on FerretDB each mark is a
  // slow update and a catalogue change, which would make every search reload); the write window is at its
  // maximum (TTL/2 allowed, 30 s used) so the steady-state phase stays within it after the first beats.
  const system = await startEmbeddedProcess({ HEARTBEAT_TTL_MS: '3600000', HEARTBEAT_WRITE_EVERY_MS: '30000' });
  const results: Results = {
    benchmark: 'catalogue: registration, heartbeat intake, list/search',
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    parameters: { agents: agentCount, seconds, concurrency, repeats },
  };
  try {
    // 1. Fill the catalogue: some over HTTP (measured), the rest in bulk.
    const registered = await registerOverHttp(system, registerCount, results);
    const connection = await mongoose.createConnection(system.mongoUri).asPromise();
    const models = catalogueModels(connection);
    await bulkLoad(models, registered, agentCount);
    await searchPhase(system, repeats, results);
    const beaters = registered.slice(0, Math.min(registered.length, Number(values.beaters)));
    await heartbeatsOverHttp(system, beaters, { concurrency, seconds }, results);
    await heartbeatDbWrites(models, beaters, seconds, results);
    await connection.close();
  } finally {
    await system.stop();
  }
  const file = writeResultFile(
    join(ROOT, 'bench/results'),
    `catalogue-${String(results.when).replaceAll(':', '-').slice(0, 19)}`,
    results,
  );
  console.log(`written ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
