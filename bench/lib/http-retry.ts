/**
 * The typical direct-HTTP client: a few tries with exponential backoff, a timeout per try, no idempotency key.
 * It reports how the call ended as the caller can know it.
 */
import type { ForwardOutcome } from './ledger';

export interface RetryPolicy {
  /** Tries in all (first one included). */
  tries: number;
  /** Delay before the second try; doubled each time. */
  backoffMs: number;
  /** Time allowed to one try. */
  timeoutMs: number;
}

export const TYPICAL_CLIENT: RetryPolicy = { tries: 3, backoffMs: 500, timeoutMs: 2_000 };

/** Whether a status is worth another try (5xx, 408, 429), as most HTTP clients decide. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * The outcome after the last try: `ok` (2xx), `failed` (a definite error answer: the agent said it did not do it),
 * or `unknown` (no answer: a timeout or a lost connection; the work may or may not have happened).
 */
export function outcomeOfTry(status: number | undefined): ForwardOutcome {
  if (status === undefined) return 'unknown';
  return status >= 200 && status < 300 ? 'ok' : 'failed';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function postWithRetry(
  url: string,
  body: unknown,
  policy: RetryPolicy = TYPICAL_CLIENT,
): Promise<ForwardOutcome> {
  let status: number | undefined;
  for (let attempt = 1; attempt <= policy.tries; attempt++) {
    status = await postOnce(url, body, policy.timeoutMs);
    if (status !== undefined && !retryableStatus(status)) break;
    if (attempt < policy.tries) await sleep(policy.backoffMs * 2 ** (attempt - 1));
  }
  return outcomeOfTry(status);
}

async function postOnce(url: string, body: unknown, timeoutMs: number): Promise<number | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}
