import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { a2aConfigOf, pushConfigFieldsOf } from '../../api/a2a/push-configs';
import { pushWebhookId } from '../../api/a2a/push-notifier';
import type { TaskPushNotificationConfig } from '../../api/a2a/sdk';

const config = (fields: Partial<TaskPushNotificationConfig>): TaskPushNotificationConfig =>
  ({ tenant: '', id: '', taskId: 't-1', url: '', token: '', ...fields }) as TaskPushNotificationConfig;

describe('a2a push configs', () => {
  it('a2a push configs - the id defaults to the task id; the token and authentication are kept; empty fields are absent', () => {
    assert.deepEqual(pushConfigFieldsOf(config({ url: 'https://hooks.example.com/a2a' })), {
      config_id: 't-1',
      url: 'https://hooks.example.com/a2a',
    });
    const full = pushConfigFieldsOf(
      config({
        id: 'hook-1',
        url: 'https://hooks.example.com/a2a',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      }),
    );
    assert.deepEqual(full, {
      config_id: 'hook-1',
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    assert.deepEqual(
      a2aConfigOf({ tenant: 'x', task_id: 't-1', ...full, last_state: '', failures: 0, created_at: new Date() }),
      {
        tenant: '',
        id: 'hook-1',
        taskId: 't-1',
        url: 'https://hooks.example.com/a2a',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      },
    );
  });

  it('a2a push configs - a URL that is not http(s), an id we cannot keep, or a control character in the token is invalid params', () => {
    for (const bad of [
      { url: 'ftp://example.com/x' },
      { url: '' },
      { url: 'https://example.com/x', id: 'a b' },
      { url: 'https://example.com/x', token: 'a\u0000b' },
      { url: `https://example.com/${'x'.repeat(2100)}` },
    ]) {
      assert.throws(
        () => pushConfigFieldsOf(config(bad)),
        { name: 'RequestMalformedError' },
        JSON.stringify(bad).slice(0, 80),
      );
    }
  });

  it('a2a push configs - each change of a task has its own webhook id, the same on a retry', () => {
    assert.equal(
      pushWebhookId({ task_id: 't-1', config_id: 'hook-1' }, 'TASK_STATE_COMPLETED'),
      't-1/a2a-push/hook-1/TASK_STATE_COMPLETED',
    );
    assert.notEqual(
      pushWebhookId({ task_id: 't-1', config_id: 'hook-1' }, 'TASK_STATE_WORKING'),
      pushWebhookId({ task_id: 't-1', config_id: 'hook-1' }, 'TASK_STATE_COMPLETED'),
    );
  });
});
