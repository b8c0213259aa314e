/** API keys of the caller's tenant: create (the key is shown once), list, revoke. Admin scope only. */
import { Router } from 'express';
import { callerIdOf } from '../../rules/api-key';
import type { ApiKeyStore } from '../../store/api-keys';
import { requireCaller } from '../caller-auth';
import { ApiError } from '../errors';
import { createKeyBody, keyIdParams } from '../schemas';
import { parseInput } from '../validate';

export function keyRoutes(deps: { keys: ApiKeyStore }): Router {
  const router = Router();

  router.post('/v1/keys', async (req, res) => {
    const caller = requireCaller(res, 'admin');
    const body = parseInput(createKeyBody, req.body, 'body');
    const created = await deps.keys.create(caller.tenant, body, caller.key_id ?? callerIdOf(caller));
    res
      .status(201)
      .location(`/v1/keys/${created.view.key_id}`)
      .json({ ...created.view, key: created.key });
  });

  router.get('/v1/keys', async (_req, res) => {
    const caller = requireCaller(res, 'admin');
    res.json({ items: await deps.keys.list(caller.tenant) });
  });

  router.delete('/v1/keys/:key_id', async (req, res) => {
    const caller = requireCaller(res, 'admin');
    const { key_id } = parseInput(keyIdParams, req.params, 'params');
    switch (await deps.keys.revoke(caller.tenant, key_id)) {
      case 'not_found':
        throw new ApiError(404, 'key_not_found', `No key ${key_id} in this tenant`);
      case 'config_key':
        throw new ApiError(409, 'config_key', `Key ${key_id} comes from API_KEYS; remove it there and restart`);
      case 'revoked':
        res.status(204).end();
    }
  });

  return router;
}
