/**
 * Recovery times of one crash, from the harness's send times and the agents' completion times. Pure.
 * - first progress: from the kill to the first completed pipeline among messages first sent after the kill;
 * - all done: from the kill to the completion of the last message that was in flight at the kill (sent before it,
 *   not yet complete); null when one of them never completed.
 */
export interface CrashTimes {
  killedAt: number;
  /** When the restarted process answered again. */
  upAt: number;
}

export interface Recovery {
  restart_s: number;
  in_flight_at_kill: number;
  first_progress_s: number | null;
  all_in_flight_done_s: number | null;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

export function recoveryOf(
  crash: CrashTimes,
  sentAt: ReadonlyMap<string, number>,
  doneAt: ReadonlyMap<string, number>,
): Recovery {
  let firstProgress: number | undefined;
  let lastInFlightDone = crash.killedAt;
  let inFlight = 0;
  let lost = false;
  for (const [key, sent] of sentAt) {
    const done = doneAt.get(key);
    if (sent >= crash.killedAt) {
      if (done !== undefined && (firstProgress === undefined || done < firstProgress)) firstProgress = done;
      continue;
    }
    if (done !== undefined && done <= crash.killedAt) continue;
    inFlight += 1;
    if (done === undefined) lost = true;
    else lastInFlightDone = Math.max(lastInFlightDone, done);
  }
  return {
    restart_s: seconds(crash.upAt - crash.killedAt),
    in_flight_at_kill: inFlight,
    first_progress_s: firstProgress === undefined ? null : seconds(firstProgress - crash.killedAt),
    all_in_flight_done_s: lost ? null : seconds(lastInFlightDone - crash.killedAt),
  };
}
