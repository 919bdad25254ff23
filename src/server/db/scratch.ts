import postgres from "postgres";

/**
 * A database of its own on a Postgres server, for one test file, test run or benchmark: made
 * empty (or as a copy of `template`), dropped after, so that runs never see each other's rows,
 * queued work or an older schema.
 */
export async function createScratchDatabase(
  serverUrl: string,
  prefix: string,
  options: { template?: string } = {},
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const template = options.template ? ` TEMPLATE ${options.template}` : "";
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(`CREATE DATABASE ${name}${template}`);
      break;
    } catch (e) {
      // 55006: the template is being copied by another CREATE DATABASE right now
      if ((e as { code?: string }).code !== "55006" || attempt >= 20) {
        await admin.end();
        throw e;
      }
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
