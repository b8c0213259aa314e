/** The line in front of the judge (router/judge/judge-line.ts): room by the recent pace, the most certain shed first. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JudgeLine, MAX_WAITING } from '../../router/judge/judge-line';

describe('judge line', () => {
  it('judge line - free: a turn at once; room by the pace: as many waiting as are answered within the timeout', async () => {
    const line = new JudgeLine(200);
    assert.equal(line.capacity(), MAX_WAITING, 'no pace measured yet');
    assert.equal(await line.turn(0.5), true);
    line.done(40);
    assert.equal(line.capacity(), 4, '200 ms at 40 ms a judgement: one reading, four waiting');
    line.done(400);
    assert.equal(
      line.capacity(),
      1,
      'slower than the timeout: one waits (the one reading may have lost its caller), and a free judge still reads',
    );
    assert.equal(await line.turn(0.9), true);
  });

  it('judge line - full: a less certain newcomer displaces the most certain one waiting; a more certain one is shed', async () => {
    const line = new JudgeLine(200);
    assert.equal(await line.turn(0), true);
    line.done(50); // pace 50 ms: 3 may wait
    assert.equal(await line.turn(0), true);
    const waiting = [0.3, 0.6, 0.2].map((c) => line.turn(c));
    assert.equal(line.length, 3);
    assert.equal(await line.turn(0.7), false, 'more certain than all waiting: shed');
    const displacing = line.turn(0.1);
    assert.equal(await waiting[1], false, 'the 0.6 one gave way');
    line.done(50);
    line.done(50);
    line.done(50);
    assert.deepEqual(await Promise.all([waiting[0], waiting[2], displacing]), [true, true, true]);
  });
});
