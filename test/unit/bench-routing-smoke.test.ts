/** A tiny run of the routing benchmark's harness (lexical matcher, a sample of our zh/en set): it runs and counts right. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lexicalMatcherFactory } from '../../router/matcher';
import { fitThreshold } from '../../router/threshold';
import { loadClinc150, loadZhRouting } from '../../bench/lib/routing-data';
import { isRight, parameterReport, report, routeAll, scoringRouter, toScored } from '../../bench/routing/routing-eval';

describe('routing benchmark harness', () => {
  it('routing benchmark harness - routes a sample, fits a threshold on it and reports per kind', async () => {
    const set = loadZhRouting();
    assert.equal(set.agents.length, 9);
    const sample = set.fit.filter((_, i) => i % 12 === 0);
    const routed = await routeAll(scoringRouter(set.agents, lexicalMatcherFactory()), sample);
    assert.equal(routed.length, sample.length);
    const fit = fitThreshold(toScored(routed));
    const result = report(routed, fit.threshold);
    assert.equal(result.n, sample.length);
    const inScope = routed.filter((r) => r.request.expected !== null);
    assert.equal(
      result.in_scope_accuracy_without_threshold,
      Math.round((inScope.filter(isRight).length / inScope.length) * 10_000) / 10_000,
    );
    assert.ok(result.in_scope_accuracy <= result.in_scope_accuracy_without_threshold);
    assert.deepEqual(Object.keys(result.per_kind).sort(), [...new Set(sample.map((r) => r.kind))].sort());
    const params = await parameterReport(sample, set.agents);
    assert.ok(params.requests_with_params > 0 && params.exact_match >= 0 && params.exact_match <= 1);
  });

  it('routing benchmark harness - CLINC150 becomes 10 agents and 150 capabilities with at most 10 examples each', () => {
    const set = loadClinc150();
    assert.equal(set.agents.length, 10);
    const capabilities = set.agents.flatMap((a) => a.agent.capabilities);
    assert.equal(capabilities.length, 150);
    assert.ok(capabilities.every((c) => c.examples.length === 10));
    assert.equal(set.fit.length, 3_100);
    assert.equal(set.test!.length, 5_500);
    assert.equal(set.test!.filter((r) => r.expected === null).length, 1_000);
  });
});
