/**
 * How a plan compares with the right one (bench/planning/README.md): exact (every step's capability, order, `after`,
 * `$ref`s and `when` pointer right), and steps found (precision and recall by capability). Pure.
 */
export interface ExpectedStep {
  capability: string;
  acceptable?: string[];
  after: string[];
  refs: Record<string, string>;
  when?: string;
}

export interface PlanningCase {
  id: string;
  lang: 'zh' | 'en';
  text: string;
  steps: ExpectedStep[];
}

export interface PlannedStepView {
  id: string;
  capability: string;
  after: string[];
  refs: Record<string, string>;
  when?: string;
}

export interface CaseScore {
  exact: boolean;
  /** Expected steps matched by a planned step of a right capability. */
  found: number;
  planned: number;
  expected: number;
  /** Why it is not exact (the first difference). */
  miss?: string;
}

const rightCapability = (e: ExpectedStep, capability: string) =>
  capability === e.capability || (e.acceptable ?? []).includes(capability);

/** Expected steps matched one to one by capability, in order of the plan (a step matches once). */
function matched(expected: readonly ExpectedStep[], planned: readonly PlannedStepView[]): number {
  const used = new Set<number>();
  let found = 0;
  for (const p of planned) {
    const i = expected.findIndex((e, index) => !used.has(index) && rightCapability(e, p.capability));
    if (i >= 0) {
      used.add(i);
      found += 1;
    }
  }
  return found;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

function firstDifference(expected: readonly ExpectedStep[], planned: readonly PlannedStepView[]): string | undefined {
  if (planned.length !== expected.length) return `${planned.length} steps, not ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const p = planned[i]!;
    const id = `s${i + 1}`;
    if (!rightCapability(e, p.capability)) return `${id}: ${p.capability}, not ${e.capability}`;
    if (!sameSet(p.after, e.after)) return `${id}: after [${p.after}], not [${e.after}]`;
    for (const [param, pointer] of Object.entries(e.refs)) {
      if (p.refs[param] !== pointer) return `${id}: ${param} ← ${p.refs[param] ?? 'nothing'}, not ${pointer}`;
    }
    for (const [param, pointer] of Object.entries(p.refs)) {
      if (pointer.startsWith('/steps/') && e.refs[param] !== pointer)
        return `${id}: ${param} ← ${pointer}, not expected`;
    }
    if (p.when !== e.when) return `${id}: when ${p.when ?? 'none'}, not ${e.when ?? 'none'}`;
  }
  return undefined;
}

export function scoreCase(c: PlanningCase, planned: readonly PlannedStepView[]): CaseScore {
  const miss = firstDifference(c.steps, planned);
  return {
    exact: miss === undefined,
    found: matched(c.steps, planned),
    planned: planned.length,
    expected: c.steps.length,
    ...(miss ? { miss } : {}),
  };
}

export interface SetScore {
  cases: number;
  exact: number;
  exact_pct: number;
  step_precision_pct: number;
  step_recall_pct: number;
}

export function scoreSet(scores: readonly CaseScore[]): SetScore {
  const sum = (f: (s: CaseScore) => number) => scores.reduce((n, s) => n + f(s), 0);
  const pct = (a: number, b: number) => (b === 0 ? 0 : Math.round((1000 * a) / b) / 10);
  const exact = sum((s) => (s.exact ? 1 : 0));
  return {
    cases: scores.length,
    exact,
    exact_pct: pct(exact, scores.length),
    step_precision_pct: pct(
      sum((s) => s.found),
      sum((s) => s.planned),
    ),
    step_recall_pct: pct(
      sum((s) => s.found),
      sum((s) => s.expected),
    ),
  };
}
