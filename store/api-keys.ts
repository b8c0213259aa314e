/**
 * API keys in MongoDB (`api_keys`), plus the bootstrap keys of the configuration (memory only). A key is found by
 * its id and checked against the hash of its secret in constant time; the secret itself is never stored.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';
import { apiKeySecretMatches, legacyProofMatches, newApiKey, parseApiKey, type Caller } from '../rules/api-key';
import { proofMatches, proofPublicKey, type ProofSubject } from '../rules/key-proof';
import type { Config } from '../platform/config';
import { parseConfigKeys, type ConfigKey } from '../rules/config-keys';
import { LruCache } from '../util/lru';

export interface ApiKeyDoc {
  /** The key id (the `<id>` of `rk_<id>_<secret>`). */
  _id: string;
  tenant: string;
  name: string;
  scopes: string[];
  secret_hash: string;
  /** The public half of its proof key (rules/key-proof.ts); absent on keys created before proofs bound bodies. */
  proof_public_key?: string;
  created_at: Date;
  /** The key id that created it. */
  created_by: string;
  revoked_at?: Date;
}

/** What the api shows of a key: never its hash. */
export interface ApiKeyView {
  key_id: string;
  tenant: string;
  name: string;
  scopes: string[];
  source: 'api' | 'config';
  /** `bound`: its key proofs bind the body sent; `legacy`: a key from before, whose proofs bind only the message id — rotate it. */
  proofs: 'bound' | 'legacy';
  created_at?: Date;
  revoked_at?: Date;
}

export type RevokeResult = 'revoked' | 'not_found' | 'config_key';

const apiKeySchema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    name: { type: String, default: '' },
    scopes: { type: [String], required: true },
    secret_hash: { type: String, required: true },
    proof_public_key: String,
    created_at: { type: Date, required: true },
    created_by: { type: String, required: true },
    revoked_at: Date,
  },
  { versionKey: false, collection: 'api_keys' },
);
apiKeySchema.index({ tenant: 1, created_at: 1 });

export function apiKeyModel(connection: Connection): Model<ApiKeyDoc> {
  return model(connection, 'ApiKey', apiKeySchema);
}

function view(doc: ApiKeyDoc): ApiKeyView {
  return {
    key_id: doc._id,
    tenant: doc.tenant,
    name: doc.name,
    scopes: doc.scopes,
    source: 'api',
    proofs: doc.proof_public_key ? 'bound' : 'legacy',
    created_at: doc.created_at,
    ...(doc.revoked_at ? { revoked_at: doc.revoked_at } : {}),
  };
}

export interface ApiKeyStoreOptions {
  /** Keys from `API_KEYS`. */
  configKeys: ConfigKey[];
  /** How long a looked-up key record is reused, in ms. */
  cacheMs: number;
  /** Most key records kept (found or not: unknown key ids are cached too, so they are bounded). @default 10000 */
  cacheEntries?: number;
  now?: () => Date;
}

export class ApiKeyStore {
  private readonly configKeys: Map<string, ConfigKey>;
  /** Looked-up records by key id, least recently used forgotten first: a stream of made-up key ids cannot grow it. */
  private readonly cache: LruCache<string, { doc: ApiKeyDoc | null; until: number }>;
  private readonly now: () => Date;

  constructor(
    private readonly model: Model<ApiKeyDoc>,
    private readonly options: ApiKeyStoreOptions,
  ) {
    this.configKeys = new Map(options.configKeys.map((k) => [k.key_id, k]));
    this.now = options.now ?? (() => new Date());
    this.cache = new LruCache(options.cacheEntries ?? 10_000);
  }

  /** How many key records this replica keeps (bounded by `cacheEntries`). */
  get cachedKeys(): number {
    return this.cache.size;
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** The caller a key stands for, or undefined when it is malformed, unknown, revoked or wrong. */
  async authenticate(key: string): Promise<Caller | undefined> {
    const parsed = parseApiKey(key);
    if (!parsed) return undefined;
    const fromConfig = this.configKeys.get(parsed.keyId);
    if (fromConfig) {
      return apiKeySecretMatches(parsed.secret, fromConfig.secret_hash)
        ? { tenant: fromConfig.tenant, key_id: fromConfig.key_id, scopes: fromConfig.scopes }
        : undefined;
    }
    const doc = await this.lookup(parsed.keyId);
    if (!doc || doc.revoked_at || !apiKeySecretMatches(parsed.secret, doc.secret_hash)) return undefined;
    return { tenant: doc.tenant, key_id: doc._id, scopes: doc.scopes };
  }

  /**
   * The caller a key id stands for, without its secret: for `sendMessage` starts (Temporal-native callers), whose
   * starter the Temporal namespace has authenticated. Undefined when unknown or revoked.
   */
  async callerById(keyId: string): Promise<Caller | undefined> {
    const fromConfig = this.configKeys.get(keyId);
    if (fromConfig) return { tenant: fromConfig.tenant, key_id: fromConfig.key_id, scopes: fromConfig.scopes };
    const doc = await this.lookup(keyId);
    if (!doc || doc.revoked_at) return undefined;
    return { tenant: doc.tenant, key_id: doc._id, scopes: doc.scopes };
  }

  /**
   * The caller of `keyId` when `proof` is its key proof for `subject` (rules/key-proof.ts), and whether that was an
   * earlier, id-only proof (a key without a proof public key: accepted for a message until the key is rotated).
   */
  async callerByProof(
    keyId: string,
    proof: string,
    subject: ProofSubject,
  ): Promise<{ caller: Caller; legacy: boolean } | undefined> {
    const fromConfig = this.configKeys.get(keyId);
    const doc = fromConfig ? undefined : await this.lookup(keyId);
    const stored = fromConfig ?? (doc && !doc.revoked_at ? doc : undefined);
    if (!stored) return undefined;
    const legacy = !stored.proof_public_key;
    const proven = stored.proof_public_key
      ? proofMatches(stored.proof_public_key, proof, subject)
      : subject.kind === 'message' && legacyProofMatches(proof, stored.secret_hash, subject.tenant, subject.id);
    const caller = proven ? await this.callerById(keyId) : undefined;
    return caller && { caller, legacy };
  }

  private async lookup(keyId: string): Promise<ApiKeyDoc | null> {
    const at = this.now().getTime();
    const hit = this.cache.get(keyId);
    if (hit && hit.until > at) return hit.doc;
    const doc = await this.model.findById(keyId).lean<ApiKeyDoc>();
    if (this.options.cacheMs > 0) this.cache.set(keyId, { doc, until: at + this.options.cacheMs });
    return doc;
  }

  /** A new key of `tenant`; the key itself is returned only here. */
  async create(
    tenant: string,
    input: { name?: string; scopes: string[] },
    createdBy: string,
  ): Promise<{ key: string; view: ApiKeyView }> {
    const made = newApiKey();
    const doc: ApiKeyDoc = {
      _id: made.keyId,
      tenant,
      name: input.name ?? '',
      scopes: [...new Set(input.scopes)],
      secret_hash: made.secretHash,
      proof_public_key: proofPublicKey(made.secret),
      created_at: this.now(),
      created_by: createdBy,
    };
    await this.model.create(doc);
    return { key: made.key, view: view(doc) };
  }

  /** The tenant's keys, configured ones first, then by creation. */
  async list(tenant: string): Promise<ApiKeyView[]> {
    const configured = [...this.configKeys.values()]
      .filter((k) => k.tenant === tenant)
      .map((k): ApiKeyView => ({
        key_id: k.key_id,
        tenant,
        name: 'API_KEYS',
        scopes: k.scopes,
        source: 'config',
        proofs: 'bound',
      }));
    const stored = await this.model.find({ tenant }).sort({ created_at: 1, _id: 1 }).lean<ApiKeyDoc[]>();
    return [...configured, ...stored.map(view)];
  }

  /** Revokes a key of `tenant` (at once on this replica; within the cache time on others). */
  async revoke(tenant: string, keyId: string): Promise<RevokeResult> {
    if (this.configKeys.get(keyId)?.tenant === tenant) return 'config_key';
    const result = await this.model.updateOne(
      { _id: keyId, tenant, revoked_at: { $exists: false } },
      { $set: { revoked_at: this.now() } },
    );
    this.cache.delete(keyId);
    if (result.matchedCount === 1) return 'revoked';
    return (await this.model.exists({ _id: keyId, tenant })) ? 'revoked' : 'not_found';
  }
}

/** The store for a process: MongoDB keys plus the bootstrap keys of `API_KEYS` (validated at config load). */
export function createApiKeyStore(
  connection: Connection,
  config: Pick<Config, 'API_KEYS' | 'API_KEY_CACHE_MS'>,
  now?: () => Date,
): ApiKeyStore {
  const parsed = config.API_KEYS ? parseConfigKeys(config.API_KEYS) : { keys: [] };
  if ('problem' in parsed) throw new Error(`API_KEYS: ${parsed.problem}`);
  return new ApiKeyStore(apiKeyModel(connection), {
    configKeys: parsed.keys,
    cacheMs: config.API_KEY_CACHE_MS,
    ...(now ? { now } : {}),
  });
}
