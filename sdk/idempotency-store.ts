/**
 * Remembers which message ids an agent already handled, so a redelivery (same Idempotency-Key) is answered from
 * memory instead of redoing the work. The default store is a file of JSON lines that survives a restart.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentOutcome } from '../protocol/receipt';

/** What handling a message came to: the outcome its receipt reports (protocol/receipt.ts). */
export type HandledMessage = AgentOutcome;

export interface IdempotencyStore {
  get(messageId: string): HandledMessage | undefined;
  set(messageId: string, outcome: HandledMessage): void;
}

export class MemoryStore implements IdempotencyStore {
  private readonly handled = new Map<string, HandledMessage>();
  get(messageId: string) {
    return this.handled.get(messageId);
  }
  set(messageId: string, outcome: HandledMessage) {
    this.handled.set(messageId, outcome);
  }
}

/** Appends one line per handled message (written synchronously, before the receipt is sent). */
export class FileStore extends MemoryStore {
  constructor(private readonly path: string) {
    super();
    if (!existsSync(path)) return;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { id, ...outcome } = JSON.parse(line) as HandledMessage & { id: string };
        super.set(id, outcome);
      } catch {
        // a torn last line after a crash: ignore it
      }
    }
  }
  override set(messageId: string, outcome: HandledMessage) {
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, `${JSON.stringify({ id: messageId, ...outcome })}\n`);
    super.set(messageId, outcome);
  }
}
