/**
 * Writes to the catalogue: register (or re-register), update, deregister, rotate the secret, authenticate.
 * Returns tagged results, never HTTP concepts. Nothing half-written: a failed step undoes the earlier ones.
 */
import { LruCache } from '../util/lru';
import { hashSecret, instanceKey, newAgentId, newAgentSecret, secretMatches } from '../rules/ids';
import { newSigningSecret } from '../rules/signing';
import { cardFields, instanceInputs, type AgentCardInput, type ResolvedInstanceInput } from './card';
import { recordChange } from './changes';
import type { AgentDoc } from '../store/agents';
import type { AgentEventType } from '../store/agent-events';
import type { CatalogueModels } from '../store/models';
import type { InstanceDoc } from '../store/agent-instances';

export type RegisterResult =
  | { kind: 'registered'; agent: AgentDoc; secret: string; signingSecret: string }
  | { kind: 'reregistered'; agent: AgentDoc }
  | { kind: 'name_taken' };

export type AuthResult =
  { kind: 'ok'; agent: AgentDoc } | { kind: 'unknown_agent' } | { kind: 'invalid_secret'; tenant: string };

export interface AgentStoreOptions {
  /** How long the previous secret keeps working after a rotation, in ms. */
  secretOverlapMs: number;
  /** How long `authenticate(…, { cached: true })` may reuse an agent record read earlier, in ms. */
  authCacheMs?: number;
  /** Told of every agent this store is about to change (the process's catalogue copy reads it afresh). */
  onChange?: (agentId: string) => void;
  now?: () => Date;
}

/** Secrets whose agent record a replica keeps for receipts. */
const BY_SECRET_CACHE_CAPACITY = 10_000;

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

export function newInstanceDoc(
  agent: Pick<AgentDoc, '_id' | 'tenant'>,
  input: ResolvedInstanceInput,
  now: Date,
): InstanceDoc {
  return {
    _id: instanceKey(agent._id, input.instance_id),
    agent_id: agent._id,
    tenant: agent.tenant,
    instance_id: input.instance_id,
    transport: input.transport,
    ...(input.endpoint ? { endpoint: input.endpoint } : {}),
    ...(input.ws_task_queue ? { ws_task_queue: input.ws_task_queue } : {}),
    state: input.state ?? 'healthy',
    load: { in_flight: 0, qps: 0 },
    // Registering counts as the first heartbeat, unless nobody has seen the instance alive yet ("never": 1970).
    last_heartbeat_at: input.unconfirmed ? new Date(0) : now,
    liveness: input.unconfirmed ? 'offline' : 'online',
    liveness_changed_at: now,
    created_at: now,
  };
}

/** The secret is valid when it is the current one, or the previous one within its overlap window. */
export function secretIsValid(agent: AgentDoc, secret: string, now: Date): boolean {
  if (secretMatches(secret, agent.secret_hash)) return true;
  return Boolean(
    agent.previous_secret_hash &&
    agent.previous_secret_expires_at &&
    agent.previous_secret_expires_at > now &&
    secretMatches(secret, agent.previous_secret_hash),
  );
}

export class AgentStore {
  private readonly now: () => Date;
  /** Agent records read for authentication, per agent id; this replica drops an entry when it changes the agent. */
  private readonly authCache = new Map<string, { agent: AgentDoc; until: number }>();
  /** Agent records found by secret (receipts), per secret hash; bounded, and dropped like `authCache`. */
  private readonly bySecretCache = new LruCache<string, { agent: AgentDoc; until: number }>(BY_SECRET_CACHE_CAPACITY);

  constructor(
    private readonly models: CatalogueModels,
    private readonly options: AgentStoreOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Registers a new agent; with the secret of an agent of the same tenant and name, re-registers that one. */
  async register(
    tenant: string,
    input: AgentCardInput,
    presentedSecret?: string,
    source?: AgentDoc['source'],
  ): Promise<RegisterResult> {
    const existing = await this.models.agents.findOne({ tenant, name: input.name }).lean<AgentDoc>();
    if (existing) {
      if (!presentedSecret || !secretIsValid(existing, presentedSecret, this.now())) return { kind: 'name_taken' };
      return { kind: 'reregistered', agent: await this.replaceCard(existing, input, 'reregistered') };
    }
    const now = this.now();
    const secret = newAgentSecret();
    const signingSecret = newSigningSecret();
    const agent: AgentDoc = {
      _id: newAgentId(),
      tenant,
      ...cardFields(input),
      revision: 1,
      secret_hash: hashSecret(secret),
      signing_secret: signingSecret,
      ...(source ? { source } : {}),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.models.agents.create(agent);
    } catch (error) {
      if (isDuplicateKey(error)) return { kind: 'name_taken' };
      throw error;
    }
    try {
      const instances = instanceInputs(input).map((i) => newInstanceDoc(agent, i, now));
      if (instances.length > 0) await this.models.instances.insertMany(instances);
      await recordChange(this.models, { tenant, agent_id: agent._id, type: 'registered', at: now });
    } catch (error) {
      await this.models.instances.deleteMany({ agent_id: agent._id });
      await this.models.agents.deleteOne({ _id: agent._id });
      throw error;
    }
    return { kind: 'registered', agent, secret, signingSecret };
  }

  /** Replaces the card (a new revision). Instances are replaced only when the input names some. */
  async update(agent: AgentDoc, input: AgentCardInput): Promise<AgentDoc | 'name_taken'> {
    if (input.name !== agent.name) {
      const clash = await this.models.agents.exists({
        tenant: agent.tenant,
        name: input.name,
        _id: { $ne: agent._id },
      });
      if (clash) return 'name_taken';
    }
    try {
      return await this.replaceCard(agent, input, 'updated');
    } catch (error) {
      if (isDuplicateKey(error)) return 'name_taken';
      throw error;
    }
  }

  private async replaceCard(agent: AgentDoc, input: AgentCardInput, event: AgentEventType): Promise<AgentDoc> {
    this.forget(agent._id);
    const now = this.now();
    const fields = cardFields(input);
    const updated = await this.models.agents
      .findOneAndUpdate(
        { _id: agent._id },
        { $set: { ...fields, updated_at: now }, $inc: { revision: 1 } },
        { new: true },
      )
      .lean<AgentDoc>();
    if (!updated) throw new Error(`agent ${agent._id} vanished during update`);
    if (input.instances || input.endpoint) await this.replaceInstances(updated, instanceInputs(input), now);
    await recordChange(this.models, {
      tenant: agent.tenant,
      agent_id: agent._id,
      type: event,
      at: now,
      details: { revision: updated.revision, version: updated.version },
    });
    return updated;
  }

  /** Keeps the liveness of instances that stay, updates their endpoint, adds new ones, removes the others. */
  private async replaceInstances(agent: AgentDoc, inputs: ResolvedInstanceInput[], now: Date): Promise<void> {
    const keep = inputs.map((i) => instanceKey(agent._id, i.instance_id));
    await this.models.instances.deleteMany({ agent_id: agent._id, _id: { $nin: keep } });
    for (const input of inputs) {
      const fresh = newInstanceDoc(agent, input, now);
      const {
        _id,
        agent_id,
        tenant,
        instance_id,
        created_at,
        last_heartbeat_at,
        liveness,
        liveness_changed_at,
        load,
        ...changeable
      } = fresh;
      await this.models.instances.updateOne(
        { _id },
        {
          $set: changeable,
          ...(input.endpoint ? {} : { $unset: { endpoint: 1 } }),
          $setOnInsert: {
            agent_id,
            tenant,
            instance_id,
            created_at,
            last_heartbeat_at,
            liveness,
            liveness_changed_at,
            load,
          },
        },
        { upsert: true },
      );
    }
  }

  async deregister(agent: AgentDoc): Promise<void> {
    this.forget(agent._id);
    await this.models.instances.deleteMany({ agent_id: agent._id });
    await this.models.agents.deleteOne({ _id: agent._id });
    await recordChange(this.models, {
      tenant: agent.tenant,
      agent_id: agent._id,
      type: 'deregistered',
      at: this.now(),
    });
  }

  /**
   * A new secret and signing secret; the old ones keep working (deliveries carry both signatures) for the overlap
   * window, so running instances can switch over.
   */
  async rotateSecret(agent: AgentDoc): Promise<{ secret: string; signingSecret: string; previousValidUntil: Date }> {
    this.forget(agent._id);
    const now = this.now();
    const secret = newAgentSecret();
    const signingSecret = newSigningSecret();
    const previousValidUntil = new Date(now.getTime() + this.options.secretOverlapMs);
    await this.models.agents.updateOne(
      { _id: agent._id },
      {
        $set: {
          secret_hash: hashSecret(secret),
          previous_secret_hash: agent.secret_hash,
          previous_secret_expires_at: previousValidUntil,
          signing_secret: signingSecret,
          ...(agent.signing_secret ? { previous_signing_secret: agent.signing_secret } : {}),
          updated_at: now,
        },
      },
    );
    await recordChange(this.models, {
      tenant: agent.tenant,
      agent_id: agent._id,
      type: 'secret_rotated',
      at: now,
      details: { previous_valid_until: previousValidUntil.toISOString() },
    });
    return { secret, signingSecret, previousValidUntil };
  }

  /**
   * The agent `agentId`, if `secret` is its secret. With `cached`, a record read within `authCacheMs` is reused
   * (heartbeats): another replica's rotation or deregistration is then seen up to that much later.
   */
  async authenticate(agentId: string, secret: string, { cached = false } = {}): Promise<AuthResult> {
    const now = this.now();
    const hit = cached ? this.authCache.get(agentId) : undefined;
    let agent = hit && hit.until > now.getTime() ? hit.agent : undefined;
    if (!agent) {
      agent = (await this.models.agents.findById(agentId).lean<AgentDoc>()) ?? undefined;
      if (!agent) return { kind: 'unknown_agent' };
      if (this.options.authCacheMs)
        this.authCache.set(agentId, { agent, until: now.getTime() + this.options.authCacheMs });
    }
    return secretIsValid(agent, secret, now) ? { kind: 'ok', agent } : { kind: 'invalid_secret', tenant: agent.tenant };
  }

  private forget(agentId: string): void {
    this.options.onChange?.(agentId);
    this.authCache.delete(agentId);
    for (const [hash, entry] of [...this.bySecretCache.items()])
      if (entry.agent._id === agentId) this.bySecretCache.delete(hash);
  }

  /**
   * The agent owning this secret (current, or previous within its overlap), in any tenant. With `cached`, a record
   * found within `authCacheMs` is reused (receipts): another replica's rotation or deregistration is then seen up
   * to that much later. While the database is unreachable, a record found earlier is reused however old (a receipt
   * that cannot be taken would cost the message a redelivery, and an outage must cost time, not the message).
   */
  async findBySecret(secret: string, { cached = false } = {}): Promise<AgentDoc | null> {
    const hash = hashSecret(secret);
    const now = this.now();
    const hit = cached ? this.bySecretCache.get(hash) : undefined;
    const valid = hit && hit.until > now.getTime() ? hit.agent : undefined;
    const agent = valid ?? (await this.readBySecret(hash, hit?.agent));
    if (agent && cached && !valid && agent !== hit?.agent && this.options.authCacheMs)
      this.bySecretCache.set(hash, { agent, until: now.getTime() + this.options.authCacheMs });
    return agent && secretIsValid(agent, secret, now) ? agent : null;
  }

  /** The agent of a secret hash from the database, or `stale` (an earlier read) while the database is unreachable. */
  private async readBySecret(hash: string, stale: AgentDoc | undefined): Promise<AgentDoc | null> {
    try {
      return await this.models.agents
        .findOne({ $or: [{ secret_hash: hash }, { previous_secret_hash: hash }] })
        .lean<AgentDoc>();
    } catch (error) {
      if (stale) return stale;
      throw error;
    }
  }
}
