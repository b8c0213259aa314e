import { z } from 'zod';

/**
 * Chains: how many steps a chain may have, how deep and large it may be, and how long its run's history grows before
 * it continues as new.
 */
export const chainsShape = {
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
};

type ChainsEnv = z.infer<z.ZodObject<typeof chainsShape>>;

/** The limits of a chain (chains/check-chain.ts); a step's message is bounded by MAX_PAYLOAD_BYTES. */
export function chainLimits(config: ChainsEnv & { MAX_PAYLOAD_BYTES: number }) {
  return {
    maxSteps: config.MAX_CHAIN_STEPS,
    maxDepth: config.MAX_CHAIN_DEPTH,
    maxBytes: config.MAX_CHAIN_BYTES,
    maxMessageBytes: config.MAX_PAYLOAD_BYTES,
    maxHistoryBytes: config.CHAIN_HISTORY_MAX_BYTES,
  };
}
