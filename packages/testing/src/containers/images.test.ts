import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { INFRASTRUCTURE, infrastructureImages } from './images';

function composeFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'images-test-')), 'compose.yaml');
  writeFileSync(file, text);
  return file;
}

describe('infrastructureImages', () => {
  it('reads each image from the service of the same name in deploy/compose.yaml', () => {
    const images = infrastructureImages();
    expect(Object.keys(images).sort()).toEqual([...INFRASTRUCTURE].sort());
    expect(images.postgres).toMatch(/^postgres:/);
    expect(images.kafka).toMatch(/^apache\/kafka:/);
  });

  it('follows the file, anchors and all', () => {
    const file = composeFile(`
x-pg: &pg { image: 'postgres:16' }
services:
  postgres: *pg
  redis: { image: 'redis:8' }
  kafka: { image: 'apache/kafka:9' }
  minio: { image: 'minio/minio:latest' }
  mailpit: { image: 'axllent/mailpit:v2' }
  gateway: { image: 'flowboard/gateway:dev' }
`);
    expect(infrastructureImages(file)).toEqual({
      postgres: 'postgres:16',
      redis: 'redis:8',
      kafka: 'apache/kafka:9',
      minio: 'minio/minio:latest',
      mailpit: 'axllent/mailpit:v2',
    });
  });

  it('names the piece whose image is missing', () => {
    const file = composeFile(`services:\n  postgres: { image: 'postgres:16' }\n  redis: { build: . }\n`);
    expect(() => infrastructureImages(file)).toThrow(/names no image for redis/);
  });
});
