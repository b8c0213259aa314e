import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from './temporal-names';
import { TENANT_PATTERN } from '../rules/api-key';
import { parseConfigKeys } from '../rules/config-keys';
import { DEFAULT_MAX_INSTANCES_PER_AGENT } from '../rules/liveness';

/**
 * How long requests right after a catalogue change may wait for its head when no previous head answers them: long
 * enough for a catalogue of a few dozen capabilities (zh/en, 36: ready in ~4 s on two cores), short enough that a
 * huge one does not hold requests; after it, similarity answers until the head is ready.
 */
export const DEFAULT_HEAD_WAIT_MS = 5_000;

/**
 * Every knob of Agent-Reach, read from the environment by one zod schema at boot.
 * A bad value stops start-up with a message that names the variable (see {@link loadConfig}).
 */

const port = z.coerce.number().int().min(1).max(65535);
const positiveMs = z.coerce.number().int().positive();
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A comma-separated list of CIDR ranges, e.g. `10.1.0.0/16,fd12::/16`. */
const cidrList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every((c) => isValidCidr(c)), 'must be comma-separated CIDR ranges such as 10.0.0.0/8')
  .default([]);

function isValidCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/** Why `issuer` cannot be an OIDC issuer (an https URL, or http on loopback), or undefined. */
function issuerProblem(issuer: string): string | undefined {
  if (!URL.canParse(issuer)) return `${issuer} is not a URL`;
  const url = new URL(issuer);
  if (url.search || url.hash) return `${issuer}: an issuer has no query or fragment`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `${issuer}: an issuer must be https:// (http:// only on loopback)`;
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export const envSchema = z
  .object({
    /** Port the api listens on. @default 3000 */
    API_PORT: port.default(3000),
    /** Interface the api binds to. @default 127.0.0.1 (use 0.0.0.0 in containers) */
    API_HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * Base URL under which agents reach the api (callback URL in deliveries, links in responses).
     * @default http://{API_HOST or 127.0.0.1}:{API_PORT}
     */
    PUBLIC_URL: z.url().optional(),
    /** Temporal frontend, host:port; when set, `npm start` starts no Temporal. @default localhost:7233 */
    TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
    /**
     * A token the api and worker present to Temporal (the SDK's `apiKey`: `Authorization: Bearer …`), for a server that
     * authorizes calls: a JWT granting the gateway's namespace (cluster mode mints one per process, docs/cluster.md;
     * elsewhere from your IdP). A secret. Optional (embedded mode's dev server checks none).
     */
    TEMPORAL_API_KEY: z
      .string()
      .regex(/^[A-Za-z0-9._~+/=-]{16,8192}$/, 'a bearer token: 16–8192 URL-safe or base64 characters, no spaces')
      .optional(),
    /** Temporal namespace. @default default */
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    /**
     * The idempotency window: how long after a message ends its id still answers with that message (200, or 409 for
     * another body) instead of starting a new one. It is the namespace's retention of closed runs: embedded mode sets
     * it on its namespace; elsewhere set the namespace's retention to at least this (the api warns at start when it is
     * shorter). At least 1 day (Temporal's minimum retention), in ms. @default 604800000 (7 days)
     */
    IDEMPOTENCY_WINDOW_MS: z.coerce.number().int().min(86_400_000).default(604_800_000),
    /** Task queue served by the worker. @default agent-reach */
    TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
    /**
     * Temporal-native callers: refuse `sendMessage` starts that carry no `key_id` (an API key of the tenant with the
     * `send` scope, whose scopes and ACL grants are then enforced). Off: such starts act with the `send` scope only.
     * Cluster mode and docker-compose.yml turn it on: any namespace of the cluster may call a Nexus endpoint. @default false
     */
    TEMPORAL_CALLERS_REQUIRE_KEY: flag.default(false),
    /**
     * Keys that seal message runs' inputs (comma-separated base64url, ≥ 32 characters each; the first seals, all are
     * accepted, so a key can be rotated by putting the new one first). Unset: a key generated once and kept in the
     * database (`gateway_secrets`), shared by every api and worker. Namespace clients never see it: a run of the
     * internal message workflow types (`leanMessageWorkflow`, `messageWorkflow`) whose input the gateway did not seal
     * delivers and notifies nothing. Optional.
     */
    MESSAGE_SEAL_KEYS: z
      .string()
      .regex(/^[A-Za-z0-9_-]{32,}(,[A-Za-z0-9_-]{32,})*$/, 'comma-separated base64url keys of at least 32 characters')
      .optional(),
    /**
     * Nexus: tenants with their own Nexus endpoint, comma-separated, e.g. `acme,globex`. The message worker serves each
     * on task queue `<TEMPORAL_TASK_QUEUE>-nexus-<tenant>` (a Nexus-only worker); an endpoint targeting that queue sends
     * for that tenant alone (an input naming another is refused `tenant_mismatch`). At most 200. @default none
     */
    NEXUS_TENANTS: z
      .string()
      .transform((v) => [
        ...new Set(
          v
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        ),
      ])
      .refine((list) => list.every((t) => TENANT_PATTERN.test(t)), 'must be comma-separated tenant names (a–z 0–9 _ -)')
      .refine((list) => list.length <= 200, 'at most 200 tenants')
      .default([]),
    /**
     * Nexus: the one tenant an endpoint targeting TEMPORAL_TASK_QUEUE itself sends for (an input naming another is
     * refused `tenant_mismatch`). @default DEFAULT_TENANT
     */
    NEXUS_DEFAULT_TENANT: z.string().regex(TENANT_PATTERN).optional(),
    /** Temporal UI base URL, used only to build links for operators (`links.temporal_ui`; embedded mode: the local UI). Optional. */
    TEMPORAL_UI_URL: z.url().optional(),
    /** MongoDB (or FerretDB) connection string, database included; when set, `npm start` starts no FerretDB. @default mongodb://127.0.0.1:27017/agent-reach */
    MONGODB_URI: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
      .default('mongodb://127.0.0.1:27017/agent-reach'),
    /** Tenant of the development key embedded mode makes, and of `API_KEYS` entries that name none. @default default */
    DEFAULT_TENANT: z.string().regex(TENANT_PATTERN).default('default'),
    /**
     * API keys accepted from the configuration (bootstrap), comma-separated `tenant:scope+scope:key`, e.g.
     * `acme:admin:rk_…,acme:send+read:rk_…`. `npm run new-key -- acme admin` prints a fresh key and its entry; only the
     * keys' hashes are kept in memory. They cannot be revoked through the api.
     * Optional (embedded mode makes a development admin key once in DATA_DIR and prints it); without any key only health,
     * `/openapi.json`, `/docs` and the dashboard page answer.
     */
    API_KEYS: z.string().optional(),
    /** How long an api replica trusts a looked-up API key (a revocation reaches other replicas that much later), in ms. @default 5000 */
    API_KEY_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
    /** `GET /metrics` without a key (for scrapers that cannot send one); otherwise it needs a key with the `metrics` scope. @default false */
    METRICS_PUBLIC: flag.default(false),
    /** Requests per second a tenant may make to this api replica (token bucket refill rate; 0 = no limit); over it, 429 with `Retry-After`. @default 100 */
    RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(100),
    /** Bucket size: requests a tenant may make at once after being idle. @default 200 */
    RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
    /**
     * Requests per second one client address may make before authenticating: each request to a route open to anyone
     * (the A2A push receiver) and each one answered 401 (a bad API key, agent secret or push token) takes a token; an
     * address out of tokens is answered 429 before any credential is looked up (0 = no limit). @default 20
     */
    UNAUTHENTICATED_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(20),
    /** Bucket size of that limit: such requests an address may make at once. @default 200 */
    UNAUTHENTICATED_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
    /** Capabilities one agent may declare (at most 1000). @default 100 */
    MAX_CAPABILITIES_PER_AGENT: z.coerce.number().int().min(1).max(1000).default(100),
    /**
     * Instances one agent may have (at least 50, the most a registration lists; at most 10000). A heartbeat that would
     * add one more pushes out the agent's longest-silent offline instance, or is refused 422 `too_many_instances` when
     * every one is online. @default 64
     */
    MAX_INSTANCES_PER_AGENT: z.coerce.number().int().min(50).max(10_000).default(DEFAULT_MAX_INSTANCES_PER_AGENT),
    /**
     * Largest stored message `payload` + `intent`, and result (a receipt's, or an agent's answer to a delivery or an A2A
     * task's artifacts: larger fails the message `result_too_large`), in bytes of JSON (kept in Temporal history). @default 262144
     */
    MAX_PAYLOAD_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(256 * 1024),
    /** Steps one chain may have (`POST /v1/chains`, `runChain`; at most 256). @default 32 */
    MAX_CHAIN_STEPS: z.coerce.number().int().min(1).max(256).default(32),
    /** Longest path of `after` in a chain, counted in steps. @default 16 */
    MAX_CHAIN_DEPTH: z.coerce.number().int().min(1).max(256).default(16),
    /** Largest chain body (its input and every step's templates) in bytes of JSON, kept in Temporal history. @default 262144 */
    MAX_CHAIN_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(256 * 1024),
    /**
     * History size, in bytes, past which a chain's run continues as new (with its status, results over 16 KiB by
     * reference) once no step is running; Temporal refuses a history past 50 MB. @default 8388608 (8 MiB)
     */
    CHAIN_HISTORY_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(64 * 1024)
      .max(32 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    /**
     * Most bytes read of any answer from an agent or a card host: an HTTP delivery's answer, an A2A agent's answers
     * (SendMessage, GetTask, CancelTask), a fetched A2A card. The read stops there: a delivery whose answer is longer
     * fails `result_too_large` (not retried), a card import 422 `agent_card_too_large`. A result must also fit
     * MAX_PAYLOAD_BYTES as JSON to be kept. @default 1048576 (1 MiB)
     */
    AGENT_ANSWER_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(1024 * 1024),
    /** Agent endpoints, card URLs and reply_to URLs may be on loopback addresses (127.0.0.0/8, ::1). @default false (embedded mode and tests: true) */
    ENDPOINT_ALLOW_LOOPBACK: flag.default(false),
    /** …on private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). @default false (embedded mode and docker-compose: true) */
    ENDPOINT_ALLOW_PRIVATE: flag.default(false),
    /** Ranges always allowed for endpoints (checked after ENDPOINT_DENY_CIDRS, before the built-in rules). @default none */
    ENDPOINT_ALLOW_CIDRS: cidrList,
    /** Ranges always refused for endpoints. @default none */
    ENDPOINT_DENY_CIDRS: cidrList,
    /** Time allowed for one HTTP delivery attempt, in ms. @default 10000 */
    DELIVERY_TIMEOUT_MS: positiveMs.default(10_000),
    /** Attempts per delivery before the message fails with `delivery_exhausted` (the seeds' policy: at most 5). @default 5 */
    DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
    /** Delay before the first retry of a transient failure, doubled each time, in ms (seeds: 5 s). @default 5000 */
    DELIVERY_INITIAL_BACKOFF_MS: positiveMs.default(5_000),
    /** Upper bound of one backoff delay, in ms. @default 60000 */
    DELIVERY_MAX_BACKOFF_MS: positiveMs.default(60_000),
    /** How long to wait for an agent's processed receipt when its capability sets no ack timeout, in ms. @default 30000 */
    DEFAULT_ACK_TIMEOUT_MS: positiveMs.default(30_000),
    /** Heartbeat period asked of agents, in ms (returned at registration and on each heartbeat). @default 10000 */
    HEARTBEAT_INTERVAL_MS: positiveMs.default(10_000),
    /** Age of the last heartbeat after which one window counts as missed, in ms. @default 60000 */
    HEARTBEAT_TTL_MS: positiveMs.default(60_000),
    /**
     * TTL windows without any heartbeat before an instance is offline: 1 → offline after 60 s;
     * the seeds' tolerance ("any beat within the last 3 windows") is 3. @default 1
     */
    HEARTBEAT_GRACE_WINDOWS: z.coerce.number().int().min(1).max(10).default(1),
    /**
     * Longest time an api replica goes without writing an instance's heartbeat to the database, in ms; beats in
     * between are answered from memory unless state or endpoint change. At most half the TTL. @default 15000
     */
    HEARTBEAT_WRITE_EVERY_MS: positiveMs.default(15_000),
    /** How long an api replica trusts a cached agent record when authenticating heartbeats, in ms. @default 5000 */
    AGENT_AUTH_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
    /**
     * The api process also runs the message worker, and starts message runs eagerly: the first workflow task comes
     * back in the start's answer and runs here, with no task round trip through the server. For one-process setups:
     * embedded mode (`npm start`) sets it unless it is set to false; production runs `npm run worker` separately and
     * leaves this off. @default false
     */
    API_RUNS_WORKER: flag.default(false),
    /** How often each process checks the catalogue's change counter to refresh its in-memory copy, in ms. @default 1000 */
    CATALOGUE_REFRESH_MS: positiveMs.default(1_000),
    /** Oldest the in-memory catalogue may get (load and heartbeat figures change without a counter bump), in ms. @default 10000 */
    CATALOGUE_MAX_STALENESS_MS: positiveMs.default(10_000),
    /** How often each api replica looks for silent instances to mark offline, in ms. @default 5000 */
    SWEEP_INTERVAL_MS: positiveMs.default(5_000),
    /** How long agent events (registered, online, offline, …) are kept; the sweeper deletes older ones, in ms. @default 604800000 (7 days) */
    AGENT_EVENT_RETENTION_MS: positiveMs.default(604_800_000),
    /** How long the previous agent secret keeps working after a rotation, in ms. @default 3600000 (1 h) */
    SECRET_ROTATION_OVERLAP_MS: z.coerce.number().int().min(0).default(3_600_000),
    /** Time allowed to fetch a remote A2A agent card, in ms. @default 5000 */
    A2A_FETCH_TIMEOUT_MS: positiveMs.default(5_000),
    /**
     * A2A face (`/a2a`, docs/a2a.md): longest a blocking `SendMessage` waits for its task to end, and longest a stream
     * (`SendStreamingMessage`, `SubscribeToTask`) stays open, in ms (at most 120000); then the task is answered as it
     * is (submitted or working), to follow with `GetTask` or `SubscribeToTask`. @default 30000
     */
    A2A_SEND_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
    /**
     * A2A agents send no heartbeats: each api replica reads the card of every A2A instance this often, and a card that
     * answers counts as a heartbeat (catalogue/a2a-probe.ts), in ms. @default 10000
     */
    A2A_PROBE_INTERVAL_MS: positiveMs.default(10_000),
    /** A2A face: how often a stream reads its task's state while it waits, in ms. @default 1000 */
    A2A_STREAM_POLL_MS: positiveMs.default(1_000),
    /** Circuit breaker per agent instance: failures in a row that open it. @default 5 */
    CIRCUIT_CONSECUTIVE_FAILURES: z.coerce.number().int().min(1).default(5),
    /** Failure rate (0–1) over the window that opens it, once the window holds CIRCUIT_MIN_REQUESTS outcomes. @default 0.5 */
    CIRCUIT_FAILURE_RATE: z.coerce.number().gt(0).max(1).default(0.5),
    /** Outcomes needed in the window before the failure rate counts. @default 20 */
    CIRCUIT_MIN_REQUESTS: z.coerce.number().int().min(1).default(20),
    /** Length of the failure-rate window, in ms. @default 60000 */
    CIRCUIT_WINDOW_MS: positiveMs.default(60_000),
    /** How long a circuit stays open the first time, in ms; each reopening lasts that much longer. @default 30000 */
    CIRCUIT_OPEN_MS: positiveMs.default(30_000),
    /** Longest a circuit stays open, in ms. @default 300000 */
    CIRCUIT_MAX_OPEN_MS: positiveMs.default(300_000),
    /**
     * How often a worker merges the delivery outcomes it gathered into the shared circuit records and learns which
     * circuits are open elsewhere, in ms (a worker killed between two merges loses that interval's outcomes). @default 500
     */
    CIRCUIT_FLUSH_MS: positiveMs.default(500),
    /**
     * Standard Webhooks secret (`whsec_…`) signing the notifications sent to callers' `reply_to` URLs. Messages with
     * `reply_to` are refused while it is unset (422 `reply_to_unavailable`); embedded mode generates one in DATA_DIR and
     * prints it. Optional.
     */
    CALLER_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]{24,}$/, 'must look like whsec_<base64>')
      .optional(),
    /** First retry delay of a failed `reply_to` notification, in ms; then ×6 each time up to 10 h, 8 tries in all (docs/api.md has the schedule). @default 5000 */
    CALLER_WEBHOOK_RETRY_INITIAL_MS: positiveMs.default(5_000),
    /** Largest accepted request body, in bytes. @default 1048576 (1 MiB) */
    MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    /** Folder of embedded mode's local servers (Temporal's SQLite file, FerretDB's data, logs). @default .agent-reach-data */
    DATA_DIR: z.string().min(1).default('.agent-reach-data'),
    /** Embedded Temporal dev server gRPC port. @default 7233 */
    EMBEDDED_TEMPORAL_PORT: port.default(7233),
    /** Embedded Temporal UI port. @default 8233 */
    EMBEDDED_TEMPORAL_UI_PORT: port.default(8233),
    /**
     * Embedded mode: SQLite pragmas of the Temporal dev server's history file, comma-separated `name=value`
     * (e.g. `journal_mode=wal,synchronous=normal`: many times the message throughput on a small machine; a power loss,
     * not a process crash, may then lose the last transactions; see docs/benchmarks.md). @default none (Temporal's own)
     */
    EMBEDDED_TEMPORAL_SQLITE_PRAGMAS: z
      .string()
      .regex(/^[a-z_]+=[A-Za-z0-9_]+(,[a-z_]+=[A-Za-z0-9_]+)*$/, 'comma-separated name=value pairs')
      .optional(),
    /** Embedded FerretDB port. @default 27027 */
    EMBEDDED_MONGODB_PORT: port.default(27027),
    /** Cluster mode (`npm run cluster`, docs/cluster.md): folder of PostgreSQL's data, the logs and the keys. @default .agent-reach-cluster */
    CLUSTER_DATA_DIR: z.string().min(1).default('.agent-reach-cluster'),
    /** Cluster mode: the balancer's port (the api as callers and agents reach it); the two api replicas take the next two. @default 3300 */
    CLUSTER_PORT: port.max(65533).default(3300),
    /**
     * Cluster mode: the Temporal frontend's gRPC port; history, matching, worker, the internal frontend, the token keys'
     * JWKS and membership take the next 14 (below 32768: Temporal stores membership ports as a smallint). @default 7300
     */
    CLUSTER_TEMPORAL_PORT: port.max(32753).default(7300),
    /** Cluster mode: PostgreSQL's port. @default 5433 */
    CLUSTER_POSTGRES_PORT: port.default(5433),
    /** Cluster mode: FerretDB's port (MongoDB wire protocol, on PostgreSQL). @default 27030 */
    CLUSTER_MONGODB_PORT: port.default(27030),
    /** Cluster mode: worker processes. @default 2 */
    CLUSTER_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
    /** Cluster mode: Temporal history shards, fixed when its database is first set up. @default 4 */
    CLUSTER_HISTORY_SHARDS: z.coerce.number().int().min(1).max(1024).default(4),
    /**
     * OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); only when set, the api's workflow starts, the
     * workflow runs and the activities are exported as spans (Temporal's OpenTelemetry interceptors), in the message's
     * own trace id. Optional.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    /**
     * Port of the worker's Prometheus endpoint (`/metrics`: `reach_delivery_attempts_total{outcome,transport}`,
     * `reach_delivery_latency_seconds`, `reach_delivery_retries_total`); 0 turns it off (docker-compose: 9464). @default 0
     */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /**
     * Similarity provider of the intent router: `auto` (OpenAI-compatible embeddings when EMBEDDINGS_MODEL is set,
     * else the local models when their files are present, else lexical), `local`, `openai` or `lexical`. @default auto
     */
    ROUTER_PROVIDER: z.enum(['auto', 'local', 'openai', 'lexical']).default('auto'),
    /**
     * Local embedding models, comma-separated (see `npm run models`; also known: `bge-small-zh-v1.5-q`,
     * `all-minilm-l6-v2-q`). A model read for one language judges only requests in it.
     * @default multilingual-e5-small,bge-small-en-v1.5-q
     */
    ROUTER_LOCAL_MODELS: z
      .string()
      .regex(/^[a-z0-9.-]+(,[a-z0-9.-]+)*$/, 'comma-separated model ids')
      .default('multilingual-e5-small,bge-small-en-v1.5-q'),
    /**
     * Whether a classifier head is trained on each tenant's catalogue (in a worker thread, whenever its cards change)
     * and decides with calibrated probabilities; `off` keeps plain similarity with ROUTER_THRESHOLD. @default on
     */
    ROUTER_HEAD: z.enum(['on', 'off']).default('on'),
    /**
     * The head's probability from which the best capability is routed to, overriding the threshold each catalogue's
     * head fits for itself (a cross-lingual request is held to this ÷ 1.5). @default fitted per catalogue (see docs/routing.md)
     */
    ROUTER_HEAD_ACCEPT: z.coerce.number().min(0).max(1).optional(),
    /**
     * The lower end of the escalation band, overriding the fitted one: between it and the accept threshold the LLM
     * decides; without an LLM (`LLM_MODEL`) there is no band. @default fitted per catalogue (see docs/routing.md)
     */
    ROUTER_HEAD_ESCALATE: z.coerce.number().min(0).max(1).optional(),
    /**
     * How long a request right after a catalogue change waits for the new head when no previous head can answer
     * (the first catalogue, or a request the previous head refuses), before plain similarity does, in ms. A
     * catalogue of a few dozen capabilities has its head within it (docs/benchmarks.md, "Head ready"). @default 5000
     */
    ROUTER_HEAD_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_HEAD_WAIT_MS),
    /** Share of BM25 in the hybrid match score (0 = embeddings only). @default 0.2 */
    ROUTER_LEXICAL_WEIGHT: z.coerce.number().min(0).max(1).default(0.2),
    /**
     * Refusal threshold on the match score; default: the value fitted for the provider in use (local 0.77,
     * lexical 0.46, openai 0.5 — not fitted; see docs/routing.md). Optional.
     */
    ROUTER_THRESHOLD: z.coerce.number().min(-1).max(2).optional(),
    /** How long a session keeps routing to the same agent and instance, in ms. @default 1800000 (30 min) */
    ROUTER_SESSION_TTL_MS: positiveMs.default(1_800_000),
    /** Threads of the local model per process. @default 1 */
    ROUTER_ONNX_THREADS: z.coerce.number().int().min(1).max(64).default(1),
    /**
     * Worker threads running the local models (each holds every model: ~400 MB of memory per thread with
     * multilingual-e5-small and bge-small-en — weights, onnxruntime's buffers, tokenizers). A catalogue's texts are
     * shared out to all of them; the api's own thread never embeds.
     * @default one per core, at most 2
     */
    ROUTER_EMBEDDING_THREADS: z.coerce.number().int().min(1).max(16).optional(),
    /**
     * The judge, a model that reads whether the head's choice does what the request asks (docs/routing.md, "The
     * judge"): `off`, `llm` (the OpenAI-compatible chat endpoint of LLM_BASE_URL / LLM_API_KEY), `local` (a GGUF
     * model on the CPU; `npm run models -- --judge` installs it) or `auto`: `local` where it is installed, the host
     * has 2 CPU cores and 3 GiB of memory free at start and a judgement timed there takes at most half of
     * ROUTER_JUDGE_TIMEOUT_MS (off until that probe ends), else `off` (logged, and shown in GET /v1/router/status).
     * @default auto
     */
    ROUTER_JUDGE: z.enum(['off', 'llm', 'local', 'auto']).default('auto'),
    /**
     * The judge's model: for `local` a GGUF file path, for `llm` a chat model name.
     * @default local: the cached Qwen2.5-Coder-1.5B-Instruct Q4_K_M; llm: LLM_MODEL
     */
    ROUTER_JUDGE_MODEL: z.string().min(1).optional(),
    /** How long a request waits for the judge (in line and reading), in ms; then the head's verdict stands. @default 3000 */
    ROUTER_JUDGE_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3_000),
    /**
     * How long a request waits, in ms, for the local judge's model to fill required parameters the heuristic
     * extraction left empty (in line and generating; values the request does not state are dropped); then the
     * request is `input_required` as before. 0 (the default): the model never fills parameters — a fill holds the
     * judge's model for seconds (5–20 s on two busy cores), during which judgements wait. Only where the local judge
     * is on (with LLM_MODEL set, the LLM fills them instead).
     * @default 0
     */
    ROUTER_PARAMS_MODEL_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** CPU threads of the local judge. @default 2 */
    ROUTER_JUDGE_THREADS: z.coerce.number().int().min(1).max(64).default(2),
    /** OpenAI-compatible base URL for embeddings (e.g. http://localhost:11434/v1 for Ollama). Optional. */
    EMBEDDINGS_BASE_URL: z.url().optional(),
    /** Embedding model name at that endpoint; setting it turns OpenAI-compatible embeddings on. Optional. */
    EMBEDDINGS_MODEL: z.string().min(1).optional(),
    /** API key for the embeddings endpoint. Optional. */
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    /** OpenAI-compatible base URL of the LLM used as routing fallback and parameter extractor. Optional. */
    LLM_BASE_URL: z.url().optional(),
    /** Chat model name; setting it turns the LLM fallback on. Optional. */
    LLM_MODEL: z.string().min(1).optional(),
    /** API key for the LLM endpoint. Optional. */
    LLM_API_KEY: z.string().min(1).optional(),
    /** Worker tuning: activities run at once by one worker (Temporal's maxConcurrentActivityTaskExecutions). @default the SDK's (100) */
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).optional(),
    /**
     * Worker tuning: workflow tasks run at once (maxConcurrentWorkflowTaskExecutions); lower it when workflow tasks
     * time out on a starved CPU. At least 2. @default the SDK's (40)
     */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).optional(),
    /** Worker tuning: workflows kept in the worker's cache (maxCachedWorkflows). @default the SDK's (from the heap size) */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).optional(),
    /**
     * MCP face (`/mcp`, docs/mcp.md): also publish each capability the key may reach as a tool of its own,
     * `<agent>__<capability>`; a client chooses for its session with `/mcp?capability_tools=true|false`. @default false
     */
    MCP_CAPABILITY_TOOLS: flag.default(false),
    /** MCP face: longest a tool call waits for its message to end before answering with the message id to poll, in ms (at most 120000). @default 30000 */
    MCP_SEND_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
    /** MCP face: how often a waiting tool call reports progress (to clients that asked for it), in ms. @default 5000 */
    MCP_PROGRESS_INTERVAL_MS: positiveMs.default(5_000),
    /**
     * MCP face: a session that makes no request this long is closed, even while it holds its notification stream (its
     * client then starts a new one), in ms. @default 1800000 (30 min)
     */
    MCP_SESSION_IDLE_MS: positiveMs.default(1_800_000),
    /** MCP face: sessions this replica holds at most; past it, `initialize` is answered 429. @default 1000 */
    MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(1_000),
    /** MCP face: sessions one tenant holds at most on one replica; past it, its `initialize` is answered 429. @default 200 */
    MCP_MAX_SESSIONS_PER_TENANT: z.coerce.number().int().min(1).default(200),
    /** MCP face: sessions one API key holds at most on one replica; opening one more closes its least recently used. @default 100 */
    MCP_MAX_SESSIONS_PER_KEY: z.coerce.number().int().min(1).default(100),
    /**
     * MCP face, DNS-rebinding protection: host names (without port, IPv6 in brackets) `/mcp` answers for, comma-separated;
     * a request with another `Host` is refused 403. `*` turns the check off. @default when API_HOST is a loopback
     * address: localhost,127.0.0.1,[::1] and PUBLIC_URL's host; otherwise off
     */
    MCP_ALLOWED_HOSTS: z
      .string()
      .regex(/^(\*|[A-Za-z0-9.:[\]-]+(,[A-Za-z0-9.:[\]-]+)*)$/, 'comma-separated host names, or *')
      .transform((v) => (v === '*' ? '*' : v.split(',')))
      .optional(),
    /**
     * MCP face: origins (`scheme://host[:port]`) allowed to call `/mcp` from a browser, comma-separated; a request with
     * another `Origin` header is refused 403 (one without is not concerned). @default any origin on an allowed host
     */
    MCP_ALLOWED_ORIGINS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .refine(
        (list) => list.every((o) => URL.canParse(o) && new URL(o).origin === o),
        'comma-separated origins such as http://localhost:6274',
      )
      .optional(),
    /**
     * OpenID Connect: issuers whose JWT access tokens are accepted beside API keys on every face (`/v1`, `/mcp`,
     * `/a2a`), comma-separated issuer URLs exactly as their tokens' `iss`, trailing slash and all (discovery at
     * `<issuer without its trailing slash>/.well-known/openid-configuration`).
     * `http://` only on loopback (tests, development). Optional: unset, only API keys are accepted (docs/security.md).
     */
    AUTH_OIDC_ISSUER: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((issuer) => issuer.trim())
          .filter(Boolean),
      )
      .superRefine((issuers, ctx) => {
        for (const problem of issuers.map(issuerProblem).filter(Boolean))
          ctx.addIssue({ code: 'custom', message: problem! });
      })
      .optional(),
    /**
     * OpenID Connect: the audience (`aud`) a token must name: this gateway's resource URL. On `/mcp` a token for
     * `<PUBLIC_URL>/mcp` (the resource of the MCP face's protected-resource metadata) is accepted too. @default PUBLIC_URL
     */
    AUTH_OIDC_AUDIENCE: z.string().min(1).optional(),
    /** OpenID Connect: the claim naming the caller's tenant; a token without one (or with no valid tenant name) is refused 403 `token_unmapped`. @default tenant */
    AUTH_OIDC_TENANT_CLAIM: z.string().min(1).default('tenant'),
    /** OpenID Connect: the claim holding the caller's scopes (space-separated, or an array), the api's scope names (`read`, `send`, …). @default scope */
    AUTH_OIDC_SCOPES_CLAIM: z.string().min(1).default('scope'),
    /** OpenID Connect: the claim holding the caller's groups (an array or space-separated), which capability ACLs can admit (`acl.groups`). @default groups */
    AUTH_OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
    /** OpenID Connect: clock skew tolerated on `exp` and `nbf`, in seconds. @default 60 */
    AUTH_OIDC_CLOCK_SKEW_S: z.coerce.number().int().min(0).max(600).default(60),
    /**
     * OpenID Connect: how long fetched signing keys (JWKS) are used before they are fetched again, in ms; a token whose
     * key id is not among them refetches at most once per AUTH_OIDC_JWKS_COOLDOWN_MS. While the JWKS endpoint is down,
     * keys fetched within this time keep working. @default 600000 (10 minutes)
     */
    AUTH_OIDC_JWKS_CACHE_MS: z.coerce.number().int().min(1_000).default(600_000),
    /** OpenID Connect: least time between two fetches of an issuer's JWKS prompted by an unknown key id, in ms. @default 30000 */
    AUTH_OIDC_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
    /**
     * OpenID Connect: the client id the dashboard signs in with (a public client of the first issuer, authorization
     * code + PKCE, redirect URI `<PUBLIC_URL>/dashboard`). Optional: unset, the dashboard takes a pasted API key only.
     */
    AUTH_OIDC_DASHBOARD_CLIENT_ID: z.string().min(1).max(200).optional(),
    /** Log verbosity of our processes: `debug`, `info`, `warn` or `error` (JSON logs via pino). @default info */
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.API_KEYS) {
      const parsed = parseConfigKeys(env.API_KEYS);
      if ('problem' in parsed) ctx.addIssue({ code: 'custom', path: ['API_KEYS'], message: parsed.problem });
    }
    if (env.ROUTER_JUDGE === 'llm' && !env.ROUTER_JUDGE_MODEL && !env.LLM_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['ROUTER_JUDGE'],
        message: 'llm needs a chat model: set LLM_MODEL or ROUTER_JUDGE_MODEL',
      });
    }
    if (env.HEARTBEAT_WRITE_EVERY_MS > env.HEARTBEAT_TTL_MS / 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['HEARTBEAT_WRITE_EVERY_MS'],
        message: 'must be at most half of HEARTBEAT_TTL_MS',
      });
    }
  });

export type Config = z.infer<typeof envSchema> & { PUBLIC_URL: string };

/** The circuit breaker knobs. */
export function circuitPolicy(config: Config) {
  return {
    consecutiveFailures: config.CIRCUIT_CONSECUTIVE_FAILURES,
    failureRate: config.CIRCUIT_FAILURE_RATE,
    minRequests: config.CIRCUIT_MIN_REQUESTS,
    windowMs: config.CIRCUIT_WINDOW_MS,
    openMs: config.CIRCUIT_OPEN_MS,
    maxOpenMs: config.CIRCUIT_MAX_OPEN_MS,
  };
}

/** How much of an agent's answer the worker reads, and of its result a status keeps. */
export function answerLimits(config: Config) {
  return { maxAnswerBytes: config.AGENT_ANSWER_MAX_BYTES, maxResultBytes: config.MAX_PAYLOAD_BYTES };
}

/** The limits of a chain (chains/check-chain.ts). */
export function chainLimits(
  config: Pick<
    Config,
    'MAX_CHAIN_STEPS' | 'MAX_CHAIN_DEPTH' | 'MAX_CHAIN_BYTES' | 'MAX_PAYLOAD_BYTES' | 'CHAIN_HISTORY_MAX_BYTES'
  >,
) {
  return {
    maxSteps: config.MAX_CHAIN_STEPS,
    maxDepth: config.MAX_CHAIN_DEPTH,
    maxBytes: config.MAX_CHAIN_BYTES,
    maxMessageBytes: config.MAX_PAYLOAD_BYTES,
    maxHistoryBytes: config.CHAIN_HISTORY_MAX_BYTES,
  };
}

/** The router's similarity settings. */
export function matcherSettings(config: Config) {
  return {
    provider: config.ROUTER_PROVIDER,
    localModels: config.ROUTER_LOCAL_MODELS.split(','),
    lexicalWeight: config.ROUTER_LEXICAL_WEIGHT,
    onnxThreads: config.ROUTER_ONNX_THREADS,
    ...(config.ROUTER_EMBEDDING_THREADS ? { embeddingThreads: config.ROUTER_EMBEDDING_THREADS } : {}),
    head: config.ROUTER_HEAD === 'on',
    headWaitMs: config.ROUTER_HEAD_WAIT_MS,
    ...(config.EMBEDDINGS_MODEL
      ? {
          openai: {
            model: config.EMBEDDINGS_MODEL,
            ...(config.EMBEDDINGS_BASE_URL ? { baseURL: config.EMBEDDINGS_BASE_URL } : {}),
            ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
          },
        }
      : {}),
  };
}

/** The worker's tuning knobs that are set (Temporal's defaults apply to the others). */
export function workerTuning(config: Config) {
  return {
    ...(config.WORKER_MAX_CONCURRENT_ACTIVITIES
      ? { maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES }
      : {}),
    ...(config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS
      ? { maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS }
      : {}),
    ...(config.WORKER_MAX_CACHED_WORKFLOWS !== undefined
      ? { maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS }
      : {}),
  };
}

/** Embedded mode's SQLite pragmas for Temporal's history file, as a list. */
export function temporalSqlitePragmas(config: Config): string[] {
  return config.EMBEDDED_TEMPORAL_SQLITE_PRAGMAS?.split(',') ?? [];
}

/** The heartbeat knobs as the catalogue uses them. */
export function heartbeatPolicy(config: Config) {
  return {
    intervalMs: config.HEARTBEAT_INTERVAL_MS,
    ttlMs: config.HEARTBEAT_TTL_MS,
    graceWindows: config.HEARTBEAT_GRACE_WINDOWS,
  };
}

/** Thrown by {@link loadConfig} when a variable is invalid; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** Parses the environment (empty strings count as unset). Throws {@link ConfigError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(environment)'),
        message: issue.message,
      })),
    );
  }
  const config = parsed.data;
  const host = config.API_HOST === '0.0.0.0' ? '127.0.0.1' : config.API_HOST;
  return {
    ...config,
    PUBLIC_URL: (config.PUBLIC_URL ?? `http://${host}:${config.API_PORT}`).replace(/\/$/, ''),
  };
}

/** Loads the config for an entry point, printing the problems and exiting with code 2 when it is invalid. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}
