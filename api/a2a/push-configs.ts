/**
 * A push notification config as the A2A face takes and shows it (spec §3.1.7–3.1.10, `TaskPushNotificationConfig`):
 * the caller's webhook URL (http or https), an optional token it wants back (`X-A2A-Notification-Token`), an
 * optional authentication (`Authorization: <scheme> <credentials>`), and the config's id (the task id when none is
 * given, as `a2a-sdk`'s server does). Pure: bad fields are invalid params.
 */
import { z } from 'zod';
import { MESSAGE_ID_PATTERN } from '../../rules/ids';
import { label } from '../../rules/text';
import { httpUrl } from '../../messages/message-schema';
import type { PushConfig } from '../../store/a2a-push-configs';
import { RequestMalformedError, type TaskPushNotificationConfig } from './sdk';

const configFields = z.strictObject({
  config_id: z
    .string()
    .regex(MESSAGE_ID_PATTERN, 'id: 1–128 of letters, digits and ._:- (starting with a letter or digit)'),
  url: httpUrl.max(2048),
  token: label(512).optional(),
  authentication: z.strictObject({ scheme: label(64), credentials: label(4096) }).optional(),
});
export type PushConfigFields = z.output<typeof configFields>;

/** The fields of a config to create, checked; the SDK gives absent fields as ''. */
export function pushConfigFieldsOf(params: TaskPushNotificationConfig): PushConfigFields {
  const auth = params.authentication;
  const parsed = configFields.safeParse({
    config_id: params.id || params.taskId,
    url: params.url,
    ...(params.token ? { token: params.token } : {}),
    ...(auth && (auth.scheme || auth.credentials)
      ? { authentication: { scheme: auth.scheme, credentials: auth.credentials } }
      : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const location = issue.path.join('.') === 'config_id' ? 'id' : issue.path.join('.');
    throw new RequestMalformedError({ message: `${location}: ${issue.message}`, metadata: { location } });
  }
  return parsed.data;
}

/** A stored config as the A2A face shows it. */
export function a2aConfigOf(config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: config.config_id,
    taskId: config.task_id,
    url: config.url,
    token: config.token ?? '',
    ...(config.authentication ? { authentication: config.authentication } : {}),
  } as TaskPushNotificationConfig;
}
