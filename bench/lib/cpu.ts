/**
 * CPU time of processes, read from /proc/<pid>/stat (Linux), in seconds; and the time their threads were ready to
 * run but waited for a core (/proc/<pid>/task/<tid>/schedstat), which shows how much the other tenants of a shared
 * machine held us back.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc figures (USER_HZ; 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/** utime + stime in ticks from the text of /proc/<pid>/stat (the name field may hold spaces and parentheses). */
export function cpuTicksFromStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3 of the man page, so utime (14) and stime (15) are at 11 and 12 here.
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU seconds used so far by a process, or undefined when it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    return cpuTicksFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Seconds the threads of a process spent waiting on a run queue, or undefined when it is gone. */
export function runQueueWaitSeconds(pid: number): number | undefined {
  try {
    let nanoseconds = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[1] ?? 0);
    }
    return nanoseconds / 1e9;
  } catch {
    return undefined;
  }
}

/**
 * Accumulates CPU per named role across process restarts: call `sample` with the current pids now and then; the
 * total of a role is the sum over every pid it ever had (a killed pid keeps its last sample).
 */
export class CpuMeter {
  private readonly last = new Map<number, { role: string; seconds: number; waitSeconds: number }>();

  sample(pids: Record<string, number[]>): void {
    for (const [role, list] of Object.entries(pids)) {
      for (const pid of list) {
        const seconds = cpuSeconds(pid);
        const waitSeconds = runQueueWaitSeconds(pid);
        if (seconds !== undefined)
          this.last.set(pid, { role, seconds, waitSeconds: waitSeconds ?? this.last.get(pid)?.waitSeconds ?? 0 });
      }
    }
  }

  /** Run-queue wait per role since `baseline`, in seconds. */
  waits(baseline?: CpuMeter): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const [pid, { role, waitSeconds }] of this.last) {
      const before = baseline?.last.get(pid)?.waitSeconds ?? 0;
      totals[role] = Math.round(((totals[role] ?? 0) + waitSeconds - before) * 100) / 100;
    }
    return totals;
  }

  /** Seconds per role since the meter's first sample of each pid began counting from `baseline`. */
  totals(baseline?: CpuMeter): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const [pid, { role, seconds }] of this.last) {
      const before = baseline?.last.get(pid)?.seconds ?? 0;
      totals[role] = Math.round(((totals[role] ?? 0) + seconds - before) * 100) / 100;
    }
    return totals;
  }

  snapshot(): CpuMeter {
    const copy = new CpuMeter();
    for (const [pid, value] of this.last) copy.last.set(pid, { ...value });
    return copy;
  }
}
