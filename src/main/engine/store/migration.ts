/**
 * One numbered migration, applied in order inside one transaction and recorded in
 * `schema_migrations`. Never edit a shipped migration; add the next number. Each domain declares
 * its own in `migrations-<domain>.ts`; `migrations.ts` puts them in order.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
