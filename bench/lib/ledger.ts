/**
 * What each simulated agent writes down, one JSON line per event, appended synchronously so that a SIGKILL loses
 * nothing already written. The harness reads these files to count effects, deliveries and duplicates.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Role } from './pipeline';

export type AgentEvent =
  /** The hop's side effect was executed (once per execution, duplicates included). */
  | { type: 'effect'; role: Role; key: string; at: number }
  /** A request reached the agent's handler (after the fault layer let it through). */
  | { type: 'delivery'; role: Role; key: string; id: string; at: number }
  /** Direct HTTP only: how the agent's call to the next hop ended (ok, a definite error answer, or unknown). */
  | { type: 'forward'; role: Role; key: string; outcome: ForwardOutcome; at: number };

export type ForwardOutcome = 'ok' | 'failed' | 'unknown';

export function ledgerFile(dir: string, role: Role): string {
  return join(dir, `${role}.events.jsonl`);
}

export function appendEvent(file: string, event: AgentEvent): void {
  appendFileSync(file, `${JSON.stringify(event)}\n`);
}

/** Every event of one ledger file; a torn last line (killed mid-write) is skipped. */
export function readLedger(file: string): AgentEvent[] {
  if (!existsSync(file)) return [];
  const events: AgentEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as AgentEvent);
    } catch {
      // torn line
    }
  }
  return events;
}

export function readLedgers(dir: string, roles: readonly Role[]): AgentEvent[] {
  return roles.flatMap((role) => readLedger(ledgerFile(dir, role)));
}
