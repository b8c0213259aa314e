/**
 * `ROUTER_JUDGE=auto` (the default): the local judge is on where it fits, off elsewhere. It fits when its model and
 * runtime are installed (`npm run models -- --judge`) and the host has the cores and the memory it needs: at least
 * MIN_CORES CPU cores and MIN_FREE_BYTES of memory free at start (the 1.5B model in Q4_K_M holds about 2.3 GB
 * resident with its contexts, and its card slots 14 MiB each, 16 to 160 as the catalogue has cards: up to ~4.5 GB;
 * docs/routing.md) — and then a judgement timed on the host answers well within the timeout
 * (judge-probe.ts; the judge is off until then). Logged and shown in `GET /v1/router/status`.
 * Pure: the host is passed in.
 */

export const MIN_CORES = 2;
export const MIN_FREE_BYTES = 5 * 1024 ** 3;

export interface JudgeHost {
  /** The model and the runtime are installed. */
  installed: boolean;
  cores: number;
  freeBytes: number;
}

/** What the judge setting came to, for the log and the router's status. */
export interface JudgeStatus {
  setting: 'off' | 'llm' | 'local' | 'auto';
  /** The judge in use. */
  active: 'off' | 'llm' | 'local';
  why: string;
  /** `auto`: the timed probe's fastest held-card judgement (judge-probe.ts), once measured. */
  probe_ms?: number;
  /** `auto`: the probe is still timing the judge (it is off meanwhile). */
  probing?: boolean;
}

const GIB = 1024 ** 3;

/** Whether the local judge fits this host, and why (or why not). */
export function judgeFits(host: JudgeHost): { fits: boolean; why: string } {
  if (!host.installed) return { fits: false, why: 'its model or runtime is not installed (npm run models -- --judge)' };
  if (host.cores < MIN_CORES) return { fits: false, why: `${host.cores} CPU core(s); it needs ${MIN_CORES}` };
  if (host.freeBytes < MIN_FREE_BYTES)
    return { fits: false, why: `${(host.freeBytes / GIB).toFixed(1)} GiB free; it needs ${MIN_FREE_BYTES / GIB} GiB` };
  return { fits: true, why: `installed, ${host.cores} CPU cores, ${(host.freeBytes / GIB).toFixed(1)} GiB free` };
}
