/** Longest wait an agent's Retry-After can impose: 10 minutes. */
export const MAX_RETRY_AFTER_MS = 600_000;

/**
 * Delay before retry number `retry` (1 = first retry): exponential from the policy's initial delay, capped,
 * with "equal jitter" (half fixed, half random) so that many messages failing together do not retry in lockstep.
 * An agent's Retry-After is honoured as a floor, up to {@link MAX_RETRY_AFTER_MS} (it may exceed the backoff cap:
 * the agent knows when it will be ready; a deadline still bounds every wait).
 *
 * @param random a number in [0, 1); workflows pass Temporal's deterministic Math.random.
 */
export function retryDelayMs(
  retry: number,
  policy: { initialBackoffMs: number; maxBackoffMs: number },
  random: number,
  retryAfterMs?: number,
): number {
  const exponential = policy.initialBackoffMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(policy.maxBackoffMs, exponential);
  const jittered = capped / 2 + (capped / 2) * random;
  const floor = retryAfterMs === undefined ? 0 : Math.min(MAX_RETRY_AFTER_MS, retryAfterMs);
  return Math.round(Math.max(jittered, floor));
}
