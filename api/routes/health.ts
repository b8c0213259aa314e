import { Router } from 'express';

export interface HealthChecks {
  database: () => Promise<boolean>;
  temporal: () => Promise<boolean>;
}

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: its dependencies answer too). */
export function healthRoutes(checks: HealthChecks): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [database, temporal] = await Promise.all([
      checks.database().catch(() => false),
      checks.temporal().catch(() => false),
    ]);
    const ready = database && temporal;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', database, temporal });
  });
  return router;
}
