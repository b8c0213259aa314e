/**
 * The rate limit of what comes before authentication, per client address (the socket's: `trust proxy` is off).
 * A key's tenant has its limit (caller-auth.ts) once the key is known; before that, anyone may knock. Two things
 * spend a client address's tokens (UNAUTHENTICATED_RATE_LIMIT_PER_SECOND, burst UNAUTHENTICATED_RATE_LIMIT_BURST):
 * - every request to a route open to anyone (the A2A push receiver), before its token is checked;
 * - every request answered 401 (an unknown API key, a wrong agent secret or push token);
 * - every WebSocket upgrade refused (a malformed path, no or a wrong agent secret, an unknown agent: api/ws/socket-hub.ts).
 * An address whose tokens are spent is answered 429 with Retry-After before any credential is looked up, so a flood of
 * guesses costs neither database reads nor run history; an address whose requests authenticate spends nothing.
 */
import type { RequestHandler, Response } from 'express';
import type { Config } from '../platform/config';
import { RateLimiter, type RateDecision, type RateLimit } from '../util/rate-limiter';
import { ApiError } from './errors';

export class ClientLimit {
  private readonly limiter: RateLimiter;

  constructor(limit: RateLimit, now?: () => number) {
    this.limiter = new RateLimiter(limit, now);
  }

  /** What a request from `address` would be told now (nothing is spent). */
  check(address: string | undefined): RateDecision {
    return this.limiter.peek(addressOf(address));
  }

  /** Spends one of `address`'s tokens for a failed attempt. */
  chargeFailure(address: string | undefined): void {
    this.limiter.take(addressOf(address));
  }

  /** Refuses an address out of tokens; spends one for each of its requests answered 401. Mount before authentication. */
  chargeFailures(): RequestHandler {
    return (req, res, next) => {
      const address = addressOf(req.socket.remoteAddress);
      refuseWhenSpent(res, this.limiter.peek(address));
      res.once('finish', () => {
        if (res.statusCode === 401) this.limiter.take(address);
      });
      next();
    };
  }

  /** Spends one token per request (routes open to anyone). */
  chargeEvery(): RequestHandler {
    return (req, res, next) => {
      refuseWhenSpent(res, this.limiter.take(addressOf(req.socket.remoteAddress)));
      next();
    };
  }
}

/** The limit as configured (UNAUTHENTICATED_RATE_LIMIT_*). */
export function clientLimitOf(
  config: Pick<Config, 'UNAUTHENTICATED_RATE_LIMIT_PER_SECOND' | 'UNAUTHENTICATED_RATE_LIMIT_BURST'>,
): ClientLimit {
  return new ClientLimit({
    perSecond: config.UNAUTHENTICATED_RATE_LIMIT_PER_SECOND,
    burst: config.UNAUTHENTICATED_RATE_LIMIT_BURST,
  });
}

function addressOf(remote: string | undefined): string {
  return remote ?? 'unknown';
}

/** 429 `rate_limited` with Retry-After when `decision` refuses. */
export function refuseWhenSpent(
  res: Response,
  decision: RateDecision,
  what = 'from this address before authentication',
): void {
  if (decision.allowed) return;
  res.set('retry-after', String(decision.retryAfterSeconds));
  throw new ApiError(429, 'rate_limited', `Too many requests ${what}; retry in ${decision.retryAfterSeconds} s`, {
    retry_after_seconds: decision.retryAfterSeconds,
  });
}
