/**
 * The judge holds a catalogue's cards before anyone asks (router/judge/warm-up.ts, warm-up-plan.ts,
 * priority-line.ts): which cards and how many slots, live uses of the model before the warm-up, a newer catalogue
 * stopping the older one's warm-up, and the bounded judge's part (held once on, never a reading).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentFromCard } from '../../bench/lib/routing-data';
import { candidatesOf, type CapabilityCandidate } from '../../router/candidates';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import { PriorityLine } from '../../router/judge/priority-line';
import type { JudgeProvider } from '../../router/judge/question';
import { CatalogueWarmUp, STEP_TOKENS, type JudgeCatalogue, type WarmUpTarget } from '../../router/judge/warm-up';
import { Router } from '../../router/router';
import { cardsToWarm, MAX_SLOTS, MIN_SLOTS, REQUEST_ROOM, slotsFor } from '../../router/judge/warm-up-plan';

function catalogue(names: string[], tenant = 't', revision = 'r1'): JudgeCatalogue {
  const candidates = candidatesOf([
    agentFromCard(
      {
        agent_id: 'a',
        name: 'a',
        description: 'a',
        tags: [],
        capabilities: names.map((name) => ({ name, description: `does ${name}` })),
      },
      tenant,
    ),
  ]);
  return { tenant, revision, candidates };
}

/** A step the test lets finish. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * A model stand-in: a card's prefix is `tokens` tokens of its number, held in a set once every token is evaluated;
 * each step waits for the test to let it finish when `gated`. Uses of the model (steps and live tasks) are logged.
 */
function fakeTarget(gated = false, tokens = 1) {
  const line = new PriorityLine();
  const held = new Set<number>();
  const log: string[] = [];
  const gates: ReturnType<typeof gate>[] = [];
  const keyOf = (c: CapabilityCandidate) => Number(c.capability.name.replace(/\D/g, ''));
  const evaluated: number[] = [];
  const target: WarmUpTarget = {
    idle: (step) => line.run(step, 'idle'),
    resize: async (cards) => ({ slots: slotsFor(cards), slotTokens: 512 }),
    prefix: async (c) => Array<number>(tokens).fill(keyOf(c)),
    holds: (prefix) => held.has(prefix[0]!),
    hold: async (prefix, most, slot) => {
      log.push(`hold ${prefix[0]}`);
      if (gated) {
        const g = gate();
        gates.push(g);
        await g.opened;
      }
      const index = slot ?? evaluated.push(0) - 1;
      evaluated[index] = Math.min(prefix.length, evaluated[index]! + most);
      const done = evaluated[index] === prefix.length;
      if (done) held.add(prefix[0]!);
      return { slot: index, done };
    },
  };
  const live = (name: string) => line.run(async () => void log.push(`live ${name}`));
  return { target, held, log, gates, live, evaluated };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('judge warm-up', () => {
  it('slots - as many as the catalogue has cards, in steps of 8, between 16 and 160', () => {
    assert.equal(MIN_SLOTS, 16);
    assert.equal(MAX_SLOTS, 160);
    assert.equal(slotsFor(0), 16);
    assert.equal(slotsFor(16), 16);
    assert.equal(slotsFor(17), 24);
    assert.equal(slotsFor(36), 40);
    assert.equal(slotsFor(37), 40);
    assert.equal(slotsFor(64), 64);
    assert.equal(slotsFor(150), 152);
    assert.equal(slotsFor(200), 160);
    assert.equal(slotsFor(150, { min: 4, max: 20 }), 20);
    assert.equal(slotsFor(2, { min: 4, max: 20 }), 8);
    assert.equal(slotsFor(0, { min: 4, max: 20 }), 4);
  });

  it('cards - held ones first, then the catalogue order, as many as there are slots; a card leaving no room for a request is not held', () => {
    const card = (tokens: number, held = false) => ({ tokens, held });
    const cards = [card(200), card(300, true), card(512 - REQUEST_ROOM), card(250), card(220, true), card(100)];
    assert.deepEqual(cardsToWarm(cards, 16, 512), [1, 4, 0, 3, 5]);
    assert.deepEqual(cardsToWarm(cards, 3, 512), [1, 4, 0]);
    assert.deepEqual(cardsToWarm(cards, 0, 512), []);
  });

  it('line - a live use goes before every waiting background use, after the use in progress', async () => {
    const line = new PriorityLine();
    const log: string[] = [];
    const first = gate();
    const running = line.run(async () => {
      log.push('idle 1');
      await first.opened;
    }, 'idle');
    const idle = [2, 3].map((n) => line.run(async () => void log.push(`idle ${n}`), 'idle'));
    const live = line.run(async () => void log.push('live'));
    assert.deepEqual(line.waiting, { live: 1, idle: 2 });
    first.open();
    await Promise.all([running, ...idle, live]);
    assert.deepEqual(log, ['idle 1', 'live', 'idle 2', 'idle 3']);
  });

  it('warm-up - holds every card of the catalogue, one step at a time; the status counts what is held', async () => {
    const { target, held } = fakeTarget();
    const warmUp = new CatalogueWarmUp(target);
    const done = warmUp.start(catalogue(['c1', 'c2', 'c3']));
    assert.equal(warmUp.status()?.state, 'warming');
    await done;
    assert.deepEqual([...held].sort(), [1, 2, 3]);
    assert.deepEqual(warmUp.status(), {
      tenant: 't',
      revision: 'r1',
      state: 'done',
      cards: 3,
      chosen: 3,
      held: 3,
      slots: 16,
    });
    held.delete(2);
    assert.equal(warmUp.status()?.held, 2, 'a card evicted since is no longer counted');
  });

  it('steps - a card is evaluated STEP_TOKENS at a time, on in the slot its first step chose', async () => {
    const { target, log, evaluated } = fakeTarget(false, 2 * STEP_TOKENS + 10);
    const warmUp = new CatalogueWarmUp(target);
    await warmUp.start(catalogue(['c1', 'c2']));
    assert.deepEqual(log, ['hold 1', 'hold 1', 'hold 1', 'hold 2', 'hold 2', 'hold 2']);
    assert.deepEqual(evaluated, [2 * STEP_TOKENS + 10, 2 * STEP_TOKENS + 10], 'one slot a card');
    assert.equal(warmUp.status()?.held, 2);
  });

  it('priority - a live use waits for the warm-up step in progress only, never for the steps after it', async () => {
    const { target, log, gates, live } = fakeTarget(true);
    const warmUp = new CatalogueWarmUp(target);
    const done = warmUp.start(catalogue(['c1', 'c2', 'c3', 'c4']));
    while (gates.length < 1) await tick();
    const first = live('a');
    const second = live('b');
    gates[0]!.open();
    await Promise.all([first, second]);
    while (gates.length < 2) await tick();
    assert.deepEqual(log, ['hold 1', 'live a', 'live b', 'hold 2']);
    const third = live('c');
    gates[1]!.open();
    await third;
    assert.deepEqual(log, ['hold 1', 'live a', 'live b', 'hold 2', 'live c']);
    while (gates.length < 3) await tick();
    gates[2]!.open();
    while (gates.length < 4) await tick();
    gates[3]!.open();
    await done;
    assert.equal(warmUp.status()?.state, 'done');
  });

  it("replaced - a newer catalogue stops the older one's warm-up at its next step", async () => {
    const { target, log, gates } = fakeTarget(true);
    const warmUp = new CatalogueWarmUp(target);
    const older = warmUp.start(catalogue(['c1', 'c2', 'c3'], 't', 'r1'));
    while (gates.length < 1) await tick();
    const newer = warmUp.start(catalogue(['c7', 'c8'], 't', 'r2'));
    gates[0]!.open();
    await older;
    while (gates.length < 2) await tick();
    gates[1]!.open();
    while (gates.length < 3) await tick();
    gates[2]!.open();
    await newer;
    assert.deepEqual(log, ['hold 1', 'hold 7', 'hold 8']);
    assert.deepEqual(
      { revision: warmUp.status()?.revision, state: warmUp.status()?.state, held: warmUp.status()?.held },
      { revision: 'r2', state: 'done', held: 2 },
    );
  });

  it('a failed step - the status says so', async () => {
    const { target } = fakeTarget();
    const warmUp = new CatalogueWarmUp({ ...target, hold: async () => Promise.reject(new Error('no memory')) });
    await warmUp.start(catalogue(['c1']));
    assert.equal(warmUp.status()?.state, 'failed');
    assert.equal(warmUp.status()?.error, 'no memory');
  });

  it('bounded judge - holds the served catalogue once it is on, shows only the asking tenant its warm-up, and the warm-up is no reading', async () => {
    const held: string[] = [];
    const { target } = fakeTarget();
    const warmUp = new CatalogueWarmUp(target);
    const provider: JudgeProvider = {
      name: 'test',
      judge: async () => 0.9,
      hold: async (c) => {
        held.push(c.revision);
        await warmUp.start(c);
      },
      warming: () => warmUp.status(),
    };
    const judge = new BoundedJudge(provider, { timeoutMs: 1_000, startsOff: true });
    judge.hold(catalogue(['c1', 'c2'], 't', 'r1'));
    judge.hold(catalogue(['c1', 'c2', 'c3'], 't', 'r2'));
    assert.deepEqual(held, [], 'off (auto still probing): nothing is held');
    judge.switchOn(true);
    assert.deepEqual(held, ['r2'], 'switched on: the newest catalogue');
    while (judge.warming('t')?.state !== 'done') await tick();
    assert.equal(judge.warming('t')?.held, 3);
    assert.equal(judge.warming('other'), undefined);
    assert.deepEqual(judge.load(), { waiting: 0, capacity: 64 }, 'no pace measured: the warm-up is no reading');
  });

  it("router - a tenant's catalogue, once its head serves, is held by the judge, and GET /v1/router/status shows how far", async () => {
    const { target } = fakeTarget();
    const warmUp = new CatalogueWarmUp(target);
    const provider: JudgeProvider = {
      name: 'test',
      judge: async () => 0.9,
      hold: (c) => warmUp.start(c),
      warming: () => warmUp.status(),
    };
    const agents = [
      agentFromCard(
        {
          agent_id: 'a',
          name: 'a',
          description: 'a',
          tags: [],
          capabilities: ['c1', 'c2', 'c3'].map((name) => ({ name, description: `does ${name}` })),
        },
        't',
      ),
    ];
    const router = new Router({
      agents: async () => agents,
      matcherFactory: async () => ({
        provider: 'scripted+head',
        score: async () => new Map(),
        classify: async () => ({ ranked: [], none: 1, same: () => false, crossLingual: new Set() }),
        ready: async () => {},
        head: () => ({ heads: ['scripted'] }),
      }),
      heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
      openCircuits: async () => new Set(),
      stats: async () => new Map(),
      threshold: 0.5,
      judge: new BoundedJudge(provider, { timeoutMs: 1_000 }),
      judgeStatus: () => ({ setting: 'local', active: 'local', why: 'ROUTER_JUDGE=local' }),
    });
    await router.prepare('t');
    for (let i = 0; i < 1_000 && warmUp.status()?.state !== 'done'; i++) await tick();
    const status = await router.status('t');
    assert.equal(status.state, 'ready');
    assert.deepEqual(
      { ...status.judge?.warm_up, revision: undefined },
      { tenant: 't', revision: undefined, state: 'done', cards: 3, chosen: 3, held: 3, slots: 16 },
    );
    assert.equal(status.judge?.warm_up?.revision, status.serving?.revision, "the serving revision's cards");
  });
});
