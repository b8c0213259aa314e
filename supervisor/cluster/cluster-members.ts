/**
 * The cluster's supervised processes: each member's current incarnation, which exits were expected (a stop or kill
 * through this handle), the listeners told of the others, and our own processes from their spawn on (so that a stop
 * during start-up reaches those not yet ready).
 */
import { join } from 'node:path';
import { waitUntil, type LocalServer } from '../dev-servers';
import { spawnNodeProcess } from './node-process';

/** One supervised process: its current incarnation, and how to start another one. */
export interface Member {
  name: string;
  current: LocalServer;
  /** Starts it again (same data, same ports) and waits until it is ready. */
  restart(): Promise<void>;
}

export type ExitListener = (member: Member, code: number | string) => void;

export class ClusterMembers {
  readonly members = new Map<string, Member>();
  private readonly expected = new Set<LocalServer>();
  private readonly spawned = new Set<LocalServer>();
  private readonly listeners: ExitListener[] = [];

  constructor(
    private readonly logs: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** Spawns one of our own Node processes (an api replica or a worker), logging to its file. */
  spawnOwn(name: string, entry: string, env: NodeJS.ProcessEnv): LocalServer {
    const server = spawnNodeProcess(name, entry, env, join(this.logs, `${name}.log`));
    this.spawned.add(server);
    void server.exited.then(() => this.spawned.delete(server));
    return server;
  }

  /** Waits until `server` is ready; stops it when it does not get there. */
  async ready(server: LocalServer, what: string, check: () => Promise<boolean>): Promise<LocalServer> {
    try {
      await waitUntil(what, check, 180_000, server);
      return server;
    } catch (error) {
      this.expected.add(server);
      await server.stop();
      throw error;
    }
  }

  /** A member whose `start` makes a ready incarnation; restart replaces it. */
  async add(name: string, start: () => Promise<LocalServer>): Promise<Member> {
    this.signal?.throwIfAborted();
    const member: Member = {
      name,
      current: await start(),
      restart: async () => {
        this.expected.add(member.current);
        await member.current.stop();
        member.current = await start();
        this.watch(member);
      },
    };
    this.watch(member);
    return member;
  }

  onUnexpectedExit(listener: ExitListener): void {
    this.listeners.push(listener);
  }

  /** Sends `signal` to a member and waits until it is gone. */
  async kill(name: string, signal: NodeJS.Signals): Promise<void> {
    const member = this.members.get(name);
    if (!member) throw new Error(`no cluster member ${name}`);
    this.expected.add(member.current);
    member.current.child?.kill(signal);
    await member.current.exited;
  }

  /** Stops what is still starting, then the members front to back: balancer, apps, FerretDB and Temporal, PostgreSQL. */
  async stopAll(): Promise<void> {
    const order = [
      ['balancer'],
      [...this.members.keys()].filter((n) => /^(api|worker)-/.test(n)),
      ['ferretdb', 'temporal'],
      ['postgresql'],
    ];
    const starting = [...this.spawned].filter(
      (server) => ![...this.members.values()].some((m) => m.current === server),
    );
    starting.forEach((server) => this.expected.add(server));
    await Promise.allSettled(starting.map((server) => server.stop()));
    for (const names of order) {
      await Promise.allSettled(
        names.map((name) => {
          const member = this.members.get(name);
          if (!member) return undefined;
          this.expected.add(member.current);
          return member.current.stop();
        }),
      );
    }
  }

  private watch(member: Member): void {
    this.members.set(member.name, member);
    const server = member.current;
    void server.exited.then((code) => {
      if (this.expected.has(server) || member.current !== server) return;
      for (const listener of this.listeners) listener(member, code);
    });
  }
}
