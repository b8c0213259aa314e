/**
 * `npm run temporal-token -- --namespace tenant-a --role write`: prints a token for cluster mode's Temporal, signed
 * with the cluster's key (CLUSTER_DATA_DIR), granting one role on one namespace — for trying the wall out
 * (docs/cluster.md); in production tokens come from the operator's IdP. `--system-admin` instead grants
 * `temporal-system:admin` (creating namespaces and Nexus endpoints). Give it to a client as the SDK's `apiKey`, or to
 * the Temporal CLI as `--api-key`.
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfigOrExit } from '../platform/config';
import { mintTemporalToken, permission, SYSTEM_ADMIN, temporalRole } from '../supervisor/cluster/temporal-tokens';
import { clusterTokenKey } from '../supervisor/cluster/token-key';

const MAX_TTL_SECONDS = 30 * 86_400;

function ttlSeconds(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > MAX_TTL_SECONDS)
    throw new InvalidArgumentError(`a whole number of seconds, 1–${MAX_TTL_SECONDS}`);
  return value;
}

function role(text: string) {
  try {
    return temporalRole(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

const program = new Command('temporal-token')
  .description("Prints a token for cluster mode's Temporal, signed with the cluster's key")
  .option('--namespace <name>', 'the namespace the token grants')
  .option('--role <role>', 'read, write, worker or admin (reader, writer accepted)', role, 'write' as const)
  .option(
    '--system-admin',
    'grant temporal-system:admin (every namespace, and the cluster: namespaces, Nexus endpoints) instead',
  )
  .option('--subject <sub>', "who holds it (the token's sub)")
  .option('--ttl <seconds>', 'how long it is valid', ttlSeconds, 3_600)
  .option('--data-dir <folder>', "the cluster's data folder (default: CLUSTER_DATA_DIR)")
  .action(
    async (options: {
      namespace?: string;
      role: ReturnType<typeof temporalRole>;
      systemAdmin?: boolean;
      subject?: string;
      ttl: number;
      dataDir?: string;
    }) => {
      if (Boolean(options.namespace) === Boolean(options.systemAdmin))
        program.error('name a --namespace, or ask for --system-admin');
      const grant = options.systemAdmin ? SYSTEM_ADMIN : permission(options.namespace!, options.role);
      const dataDir = resolve(options.dataDir ?? loadConfigOrExit().CLUSTER_DATA_DIR);
      const key = await clusterTokenKey(dataDir, { create: false });
      const subject = options.subject ?? (options.systemAdmin ? 'operator' : options.namespace!);
      console.log(await mintTemporalToken(key, { subject, permissions: [grant], ttlSeconds: options.ttl }));
    },
  );

program.parseAsync().catch((error: unknown) => {
  console.error(`temporal-token: ${(error as Error).message}`);
  process.exit(1);
});
