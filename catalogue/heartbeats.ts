/**
 * Heartbeats keep instances alive; the sweeper marks the silent ones offline. Any number of api replicas may run
 * them at once: each liveness transition is recorded once, keyed by the period it ends (see changes.ts).
 *
 * Writes are coalesced: a replica writes an instance's heartbeat when something changed (state, endpoint, coming
 * back online) or when its stored heartbeat is older than `writeEveryMs`; other beats are answered from memory.
 * The stored heartbeat age can thus lag by up to `writeEveryMs`, which config keeps below half the TTL.
 * Why: one heartbeat write costs ~15 ms on FerretDB/SQLite, which would cap intake at a few dozen per second.
 */
import { instanceKey } from '../rules/ids';
import { newInstanceDoc } from './agent-store';
import { recordChange } from './changes';
import {
  DEFAULT_MAX_INSTANCES_PER_AGENT,
  instancesToPrune,
  offlineCutoff,
  type HeartbeatPolicy,
} from '../rules/liveness';
import type { AgentDoc } from '../store/agents';
import type { CatalogueModels } from '../store/models';
import type { InstanceDoc, InstanceState, Transport } from '../store/agent-instances';

export interface HeartbeatInput {
  instance_id: string;
  state?: InstanceState;
  load?: { in_flight?: number; qps?: number };
  /** An instance may announce a new address (it moved) or join with one (scale-out). */
  endpoint?: string;
  transport?: Transport;
  /** Set by the api replica that holds the instance's WebSocket. */
  ws_task_queue?: string;
}

export type HeartbeatResult =
  | { kind: 'ok'; instance: InstanceDoc; transitions: string[]; written: boolean }
  | { kind: 'unknown_instance' }
  | { kind: 'too_many_instances'; limit: number };

/** The refusal of an instance past its agent's limit, as the api and the WebSocket hub answer it (422). */
export function tooManyInstances(agentId: string, instanceId: string, limit: number) {
  return {
    code: 'too_many_instances' as const,
    message: `Agent ${agentId} is at its limit of ${limit} instances and none is offline: instance ${instanceId} cannot be added`,
    details: {
      limit,
      hint: 'an instance offline for longer than offline_after_ms makes room for a new one; MAX_INSTANCES_PER_AGENT sets the limit',
    },
  };
}

export interface HeartbeatsOptions {
  /** Longest time a replica goes without writing an instance's heartbeat, in ms. */
  writeEveryMs: number;
  /** Instances one agent may have (MAX_INSTANCES_PER_AGENT); a new one past it pushes out an offline one, or is refused. */
  maxInstances?: number;
  now?: () => Date;
  /** Told of every agent whose instance changed here (came online, changed state, moved, joined). */
  onChange?: (agentId: string) => void;
}

export class Heartbeats {
  private readonly now: () => Date;
  /** The last instance document this replica wrote, per instance key. */
  private readonly written = new Map<string, InstanceDoc>();

  constructor(
    private readonly models: CatalogueModels,
    private readonly policy: HeartbeatPolicy,
    private readonly options: HeartbeatsOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async beat(agent: AgentDoc, input: HeartbeatInput): Promise<HeartbeatResult> {
    const now = this.now();
    const key = instanceKey(agent._id, input.instance_id);
    const last = this.written.get(key);
    if (last && this.canSkipWrite(last, input, now)) {
      const load = { in_flight: input.load?.in_flight ?? last.load.in_flight, qps: input.load?.qps ?? last.load.qps };
      return { kind: 'ok', instance: { ...last, last_heartbeat_at: now, load }, transitions: [], written: false };
    }
    const result = await this.write(agent, key, input, now);
    if (result.kind === 'ok') this.written.set(key, result.instance);
    return result;
  }

  private canSkipWrite(last: InstanceDoc, input: HeartbeatInput, now: Date): boolean {
    return (
      now.getTime() - last.last_heartbeat_at.getTime() < this.options.writeEveryMs &&
      (!input.state || input.state === last.state) &&
      (!input.endpoint || input.endpoint === last.endpoint) &&
      (!input.transport || input.transport === last.transport) &&
      (!input.ws_task_queue || input.ws_task_queue === last.ws_task_queue)
    );
  }

  /** How many instances this replica remembers writing; `sweep` keeps it to those beating now. */
  get remembered(): number {
    return this.written.size;
  }

  /** Forgets writes too old to spare another one (the next beat writes anyway), so gone instances leave no trace. */
  private pruneWritten(now: Date): void {
    for (const [key, last] of this.written) {
      if (now.getTime() - last.last_heartbeat_at.getTime() >= this.options.writeEveryMs) this.written.delete(key);
    }
  }

  /** Forgets what this replica wrote for an agent's instances (after an update or deregistration). */
  forget(agentId: string): void {
    for (const key of this.written.keys()) if (key.startsWith(`${agentId}/`)) this.written.delete(key);
  }

  private async write(agent: AgentDoc, key: string, input: HeartbeatInput, now: Date): Promise<HeartbeatResult> {
    const set: Record<string, unknown> = { last_heartbeat_at: now, liveness: 'online' };
    if (input.state) set.state = input.state;
    if (input.load?.in_flight !== undefined) set['load.in_flight'] = input.load.in_flight;
    if (input.load?.qps !== undefined) set['load.qps'] = input.load.qps;
    if (input.endpoint) set.endpoint = input.endpoint;
    if (input.transport) set.transport = input.transport;
    if (input.ws_task_queue) set.ws_task_queue = input.ws_task_queue;
    const previous = await this.models.instances
      .findOneAndUpdate({ _id: key }, { $set: set }, { new: false })
      .lean<InstanceDoc>();
    if (!previous) return this.join(agent, input, now);

    const transitions: string[] = [];
    const change = async (
      type: 'online' | 'state_changed' | 'instance_moved',
      details?: Record<string, unknown>,
      transitionId?: string,
    ) => {
      const event = {
        tenant: agent.tenant,
        agent_id: agent._id,
        instance_id: input.instance_id,
        type,
        at: now,
        ...(details ? { details } : {}),
      };
      this.options.onChange?.(agent._id);
      if (await recordChange(this.models, event, transitionId)) transitions.push(type);
    };
    if (previous.liveness === 'offline') {
      await this.models.instances.updateOne({ _id: key }, { $set: { liveness_changed_at: now } });
      const offlineSince = previous.liveness_changed_at;
      await change('online', { offline_since: offlineSince.toISOString() }, `online:${key}:${offlineSince.getTime()}`);
    }
    if (input.state && input.state !== previous.state)
      await change('state_changed', { from: previous.state, to: input.state });
    if (input.endpoint && input.endpoint !== previous.endpoint)
      await change('instance_moved', { from: previous.endpoint, to: input.endpoint });
    // A WebSocket instance that reconnected to another replica moved too (the copies that route its deliveries must see it).
    else if (input.ws_task_queue && input.ws_task_queue !== previous.ws_task_queue) {
      await change('instance_moved', { from_replica: previous.ws_task_queue ?? null, to_replica: input.ws_task_queue });
    }
    // The document as now stored, derived rather than read back.
    const instance: InstanceDoc = {
      ...previous,
      ...(input.state ? { state: input.state } : {}),
      ...(input.endpoint ? { endpoint: input.endpoint } : {}),
      ...(input.transport ? { transport: input.transport } : {}),
      ...(input.ws_task_queue ? { ws_task_queue: input.ws_task_queue } : {}),
      load: { in_flight: input.load?.in_flight ?? previous.load.in_flight, qps: input.load?.qps ?? previous.load.qps },
      last_heartbeat_at: now,
      liveness: 'online',
      liveness_changed_at: previous.liveness === 'offline' ? now : previous.liveness_changed_at,
    };
    return { kind: 'ok', instance, transitions, written: true };
  }

  /** A heartbeat from an instance we do not know: it joins if it says how to reach it. */
  private async join(agent: AgentDoc, input: HeartbeatInput, now: Date): Promise<HeartbeatResult> {
    const transport = input.transport ?? 'http';
    if (transport === 'http' && !input.endpoint) return { kind: 'unknown_instance' };
    // The agent may have been deregistered through another replica since it was authenticated from cache.
    if (!(await this.models.agents.exists({ _id: agent._id }))) return { kind: 'unknown_instance' };
    const limit = this.options.maxInstances ?? DEFAULT_MAX_INSTANCES_PER_AGENT;
    if (!(await this.makeRoom(agent, input.instance_id, now, limit))) return { kind: 'too_many_instances', limit };
    const instance = newInstanceDoc(agent, { ...input, transport }, now);
    if (input.load) instance.load = { in_flight: input.load.in_flight ?? 0, qps: input.load.qps ?? 0 };
    try {
      await this.models.instances.create(instance);
    } catch (error) {
      // Two first heartbeats raced; the other one created it.
      if ((error as { code?: number }).code === 11000)
        return this.write(agent, instanceKey(agent._id, input.instance_id), input, now);
      throw error;
    }
    // Replicas that found room for the same last place at once: each gives its new instance back (it beats again).
    if ((await this.models.instances.countDocuments({ agent_id: agent._id })) > limit) {
      await this.models.instances.deleteOne({ _id: instance._id });
      return { kind: 'too_many_instances', limit };
    }
    this.options.onChange?.(agent._id);
    await recordChange(this.models, {
      tenant: agent.tenant,
      agent_id: agent._id,
      instance_id: input.instance_id,
      type: 'instance_added',
      at: now,
      details: { endpoint: input.endpoint },
    });
    return { kind: 'ok', instance, transitions: ['instance_added'], written: true };
  }

  /**
   * Whether the agent has room for one more instance within `limit`, after deleting the offline instances a newcomer
   * may push out (rules/liveness.ts: instancesToPrune). Each pushed-out instance leaves an `instance_pruned` event.
   */
  private async makeRoom(agent: AgentDoc, newcomer: string, now: Date, limit: number): Promise<boolean> {
    if ((await this.models.instances.countDocuments({ agent_id: agent._id })) < limit) return true;
    const instances = await this.models.instances
      .find({ agent_id: agent._id }, { instance_id: 1, last_heartbeat_at: 1 })
      .lean<Pick<InstanceDoc, '_id' | 'instance_id' | 'last_heartbeat_at'>[]>();
    const pruned = instancesToPrune(instances, now, this.policy, limit);
    if (!pruned) return false;
    // Only if still silent: a heartbeat that came in meanwhile keeps its instance.
    for (const instance of instances.filter((i) => pruned.includes(i._id))) {
      const deleted = await this.models.instances.deleteOne({
        _id: instance._id,
        last_heartbeat_at: { $lt: offlineCutoff(now, this.policy) },
      });
      if (deleted.deletedCount !== 1) return false;
      this.written.delete(instance._id);
      this.options.onChange?.(agent._id);
      const details = { last_heartbeat_at: instance.last_heartbeat_at.toISOString(), replaced_by: newcomer };
      await recordChange(this.models, {
        tenant: agent.tenant,
        agent_id: agent._id,
        instance_id: instance.instance_id,
        type: 'instance_pruned',
        at: now,
        details,
      });
    }
    return true;
  }

  /** Marks offline every instance silent for longer than the policy allows; returns how many this call marked. */
  async sweep(): Promise<number> {
    const now = this.now();
    this.pruneWritten(now);
    const cutoff = offlineCutoff(now, this.policy);
    const stale = await this.models.instances
      .find(
        { liveness: 'online', last_heartbeat_at: { $lt: cutoff } },
        { agent_id: 1, tenant: 1, instance_id: 1, last_heartbeat_at: 1 },
      )
      .lean<Pick<InstanceDoc, '_id' | 'agent_id' | 'tenant' | 'instance_id' | 'last_heartbeat_at'>[]>();
    let marked = 0;
    for (const instance of stale) {
      // The condition keeps a heartbeat that came in meanwhile from being overwritten.
      const result = await this.models.instances.updateOne(
        { _id: instance._id, liveness: 'online', last_heartbeat_at: { $lt: cutoff } },
        { $set: { liveness: 'offline', liveness_changed_at: now } },
      );
      if (result.modifiedCount !== 1) continue;
      const recorded = await recordChange(
        this.models,
        {
          tenant: instance.tenant,
          agent_id: instance.agent_id,
          instance_id: instance.instance_id,
          type: 'offline',
          at: now,
          details: { last_heartbeat_at: instance.last_heartbeat_at.toISOString() },
        },
        `offline:${instance._id}:${instance.last_heartbeat_at.getTime()}`,
      );
      if (recorded) marked += 1;
    }
    return marked;
  }
}
