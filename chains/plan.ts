/**
 * A chain's plan as a DAG: checked before anything runs (duplicate ids, unknown or forward references, cycles,
 * depth, pointers that name no earlier step), then read while it runs (which steps are ready, in which order
 * completed steps are compensated). Pure: safe in workflows.
 */
import type { ChainBody, ChainStepBody, OnFailure, StepState } from './chain';
import { refsIn, sourceOf } from './pointer';

export interface PlanLimits {
  maxSteps: number;
  maxDepth: number;
}

/** A step with its `after` made explicit and its failure rule defaulted. */
export interface PlannedStep extends ChainStepBody {
  after: string[];
  on_failure: OnFailure;
}

/** What is wrong with a chain, naming the step (the api's `details.step`). */
export interface PlanIssue {
  step?: string;
  code:
    | 'too_many_steps'
    | 'duplicate_step'
    | 'unknown_step'
    | 'cycle'
    | 'too_deep'
    | 'invalid_reference'
    | 'mapping_type_error';
  message: string;
}

export type PlanCheck = { ok: true; steps: PlannedStep[] } | { ok: false; issue: PlanIssue };

/** The steps with `after` defaulting to the step before each (none for the first). */
export function plannedSteps(body: Pick<ChainBody, 'steps'>): PlannedStep[] {
  return body.steps.map((step, i) => ({
    ...step,
    after: step.after ?? (i === 0 ? [] : [body.steps[i - 1]!.id]),
    on_failure: step.on_failure ?? 'stop',
  }));
}

/** Every step's depth (1 for a step after nothing), or the id of a step on a cycle. */
export function depths(steps: readonly PlannedStep[]): { depths: Map<string, number> } | { cycleAt: string } {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const waiting = new Map(steps.map((s) => [s.id, s.after.length]));
  const found = new Map<string, number>();
  const ready = steps.filter((s) => s.after.length === 0).map((s) => s.id);
  const dependants = new Map<string, string[]>();
  for (const step of steps)
    for (const before of step.after) dependants.set(before, [...(dependants.get(before) ?? []), step.id]);
  while (ready.length > 0) {
    const id = ready.shift()!;
    const step = byId.get(id)!;
    found.set(id, 1 + Math.max(0, ...step.after.map((b) => found.get(b)!)));
    for (const next of dependants.get(id) ?? []) {
      waiting.set(next, waiting.get(next)! - 1);
      if (waiting.get(next) === 0) ready.push(next);
    }
  }
  const stuck = steps.find((s) => !found.has(s.id));
  return stuck ? { cycleAt: stuck.id } : { depths: found };
}

/** The steps that end before `id` starts (its `after`, and theirs, …). */
export function ancestorsOf(steps: readonly PlannedStep[], id: string): Set<string> {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const visit = (stepId: string) => {
    for (const before of byId.get(stepId)?.after ?? []) {
      if (seen.has(before)) continue;
      seen.add(before);
      visit(before);
    }
  };
  visit(id);
  return seen;
}

/** The templates of a step and of its compensation, named for messages. */
function templatesOf(step: PlannedStep): { where: string; template: unknown; own: boolean }[] {
  return [
    { where: 'input', template: step.input, own: false },
    { where: 'payload', template: step.payload, own: false },
    { where: 'when', template: step.when ? { $ref: step.when.$ref } : undefined, own: false },
    { where: 'compensate.input', template: step.compensate?.input, own: true },
    { where: 'compensate.payload', template: step.compensate?.payload, own: true },
  ];
}

/** A pointer a step may read: the chain input, or the result of a step that ended before it (its own, for a compensation). */
function referenceIssue(
  step: PlannedStep,
  ref: string,
  where: string,
  own: boolean,
  ancestors: Set<string>,
): PlanIssue | undefined {
  const source = sourceOf(ref);
  if (source.kind === 'invalid') {
    return {
      step: step.id,
      code: 'invalid_reference',
      message: `${where}: ${JSON.stringify(ref)} is not a pointer to /input/… or /steps/<id>/result/…`,
    };
  }
  if (source.kind === 'step' && !ancestors.has(source.step) && !(own && source.step === step.id)) {
    return {
      step: step.id,
      code: 'invalid_reference',
      message: `${where}: ${ref} reads step ${source.step}, which does not end before step ${step.id} (name it in after)`,
    };
  }
  return undefined;
}

/** Checks the plan's shape; the mapping's types are checked apart (chains/type-check.ts), with the catalogue. */
export function checkPlan(body: Pick<ChainBody, 'steps'>, limits: PlanLimits): PlanCheck {
  if (body.steps.length > limits.maxSteps)
    return {
      ok: false,
      issue: {
        code: 'too_many_steps',
        message: `a chain has at most ${limits.maxSteps} steps (here ${body.steps.length})`,
      },
    };
  const seen = new Set<string>();
  for (const step of body.steps) {
    if (seen.has(step.id))
      return { ok: false, issue: { step: step.id, code: 'duplicate_step', message: `two steps are named ${step.id}` } };
    seen.add(step.id);
  }
  const steps = plannedSteps(body);
  for (const step of steps) {
    const unknown = step.after.find((b) => !seen.has(b) || b === step.id);
    if (unknown !== undefined) {
      const message =
        unknown === step.id
          ? `step ${step.id} names itself in after`
          : `after names ${unknown}, which is no step of this chain`;
      return { ok: false, issue: { step: step.id, code: unknown === step.id ? 'cycle' : 'unknown_step', message } };
    }
  }
  const ordered = depths(steps);
  if ('cycleAt' in ordered)
    return {
      ok: false,
      issue: { step: ordered.cycleAt, code: 'cycle', message: `step ${ordered.cycleAt} is on a cycle of after` },
    };
  for (const step of steps) {
    const depth = ordered.depths.get(step.id)!;
    if (depth > limits.maxDepth)
      return {
        ok: false,
        issue: {
          step: step.id,
          code: 'too_deep',
          message: `step ${step.id} is ${depth} steps deep (at most ${limits.maxDepth})`,
        },
      };
    const ancestors = ancestorsOf(steps, step.id);
    for (const { where, template, own } of templatesOf(step)) {
      for (const { ref } of refsIn(template)) {
        const issue = referenceIssue(step, ref, where, own, ancestors);
        if (issue) return { ok: false, issue };
      }
    }
  }
  return { ok: true, steps };
}

/** Whether a step in this state lets the steps after it start. */
export function letsDependantsRun(state: StepState, onFailure: OnFailure): boolean {
  return state === 'completed' || state === 'skipped' || (state === 'failed' && onFailure === 'continue');
}

/** Pending steps whose `after` steps have all ended in a way that lets them run, in plan order. */
export function readySteps(steps: readonly PlannedStep[], states: ReadonlyMap<string, StepState>): PlannedStep[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  return steps.filter(
    (step) =>
      states.get(step.id) === 'pending' &&
      step.after.every((b) => letsDependantsRun(states.get(b)!, byId.get(b)!.on_failure)),
  );
}

/** The completed steps to compensate: those with a compensation, latest completed first. */
export function compensationOrder(steps: readonly PlannedStep[], completedInOrder: readonly string[]): PlannedStep[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  return [...completedInOrder]
    .reverse()
    .map((id) => byId.get(id)!)
    .filter((step) => step.compensate !== undefined);
}
