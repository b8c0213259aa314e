/**
 * A live api for probing by hand (e.g. with Schemathesis): real Temporal, FerretDB, worker and api, as the tests
 * start them, until Ctrl-C. Prints the base URL and the admin key. `tsx test/tools/live-api.ts [KEY=VALUE …]`.
 */
import { TEST_API_KEY } from '../helpers/http';
import { startTestServers } from '../helpers/servers';
import { startSystem } from '../helpers/system';

async function main(): Promise<void> {
  const env = Object.fromEntries(
    process.argv.slice(2).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const servers = await startTestServers();
  const system = await startSystem(servers, env);
  console.log(`api ${system.baseUrl}  key ${TEST_API_KEY}`);
  const stop = async () => {
    await system.stop();
    await servers.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
