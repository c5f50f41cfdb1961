import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** The infrastructure the integration tests can ask for: the services of deploy/compose.yaml of the same names. */
export type Infrastructure = 'postgres' | 'redis' | 'kafka' | 'minio' | 'mailpit';
export const INFRASTRUCTURE: readonly Infrastructure[] = ['postgres', 'redis', 'kafka', 'minio', 'mailpit'];

/** The repository's root, from this file's place in packages/testing (src/ or dist/, one level below). */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const COMPOSE_FILE = path.join(REPO_ROOT, 'deploy/compose.yaml');

/**
 * The image of each piece of infrastructure, as deploy/compose.yaml names it: the one place for these names, so the
 * tests run what the deployment runs. With a registry those are the official images; on a machine without one,
 * deploy/compose/standins/build.sh builds local stand-ins under the same names.
 */
export function infrastructureImages(composeFile = COMPOSE_FILE): Record<Infrastructure, string> {
  const services = (
    parse(readFileSync(composeFile, 'utf8')) as { services?: Record<string, { image?: unknown }> }
  ).services;
  return Object.fromEntries(
    INFRASTRUCTURE.map((name) => {
      const image = services?.[name]?.image;
      if (typeof image !== 'string' || !image) throw new Error(`${composeFile} names no image for ${name}`);
      return [name, image];
    }),
  ) as Record<Infrastructure, string>;
}
